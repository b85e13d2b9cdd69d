// A keep-alive HTTP client for the bench: one agent per target, bodies as Buffers, the time
// from the first byte written to the last byte of the answer received.
import http from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * A kept-alive socket idle this long is not reused. uWS closes an idle HTTP connection after
 * its HTTP_IDLE_TIMEOUT_S of 10 s, on a 4 s timer tick: between about 8 and 12 s (a bench run
 * saw closes 8.0 s after the last answer). Node's agent drops a free socket only when it
 * handles the server's close, which it cannot do while the bench's own synchronous work
 * blocks the event loop (building the high-cardinality requests takes 5 to 9 s): the next
 * request then went out on the closed socket and failed with "socket hang up", before any
 * byte reached the service (the full load rows' filter page, 2026-11-23).
 */
const FREE_SOCKET_IDLE_MS_MAX = 4_000;

/**
 * An agent that never hands out a free socket idle for `freeSocketIdleMsMax` or more. The
 * idle time is taken from the clock when a request asks for a socket, so it holds even when
 * the event loop could not handle the server's close in time.
 */
class FreshSocketAgent extends http.Agent {
  readonly #freedAt = new WeakMap<Socket, number>();

  constructor(opts: http.AgentOptions, readonly freeSocketIdleMsMax: number) {
    super(opts);
    // 'free': a request is done with the socket, which the agent then keeps for the next one.
    this.on('free', (socket: Socket) => this.#freedAt.set(socket, performance.now()));
  }

  /** Closes the free sockets idle too long; call it right before a request. */
  dropStaleSockets(): void {
    const now = performance.now();
    for (const sockets of Object.values(this.freeSockets)) {
      for (const socket of [...(sockets ?? [])]) {
        if (now - (this.#freedAt.get(socket as Socket) ?? now) < this.freeSocketIdleMsMax) continue;
        // destroy() makes it unwritable; 'agentRemove' then takes it out of the free list at
        // once (http.Agent's documented way), where 'close' would only come on a later turn.
        socket.destroy();
        socket.emit('agentRemove');
      }
    }
  }
}

export interface HttpAnswer {
  status: number;
  contentType: string;
  /** Every answer header (node:http's lower-cased names). */
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** From the request being sent to the whole answer read, in ms. */
  elapsedMs: number;
}

export class HttpClient {
  readonly #agent: FreshSocketAgent;
  readonly #base: URL;
  readonly #headers: Record<string, string>;

  /** `freeSocketIdleMsMax`: a kept-alive socket idle this long is closed, not reused (default FREE_SOCKET_IDLE_MS_MAX). */
  constructor(baseUrl: string, opts: { headers?: Record<string, string>; socketsMax?: number; freeSocketIdleMsMax?: number } = {}) {
    this.#base = new URL(baseUrl);
    this.#headers = opts.headers ?? {};
    this.#agent = new FreshSocketAgent({ keepAlive: true, maxSockets: opts.socketsMax ?? 8 }, opts.freeSocketIdleMsMax ?? FREE_SOCKET_IDLE_MS_MAX);
  }

  request(method: string, path: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
    this.#agent.dropStaleSockets();
    return new Promise((resolve, reject) => {
      const started = performance.now();
      let responded = false;
      const req = http.request({
        host: this.#base.hostname, port: this.#base.port, method, path, agent: this.#agent,
        headers: { ...this.#headers, ...headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
      }, (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          headers: res.headers,
          body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
          elapsedMs: performance.now() - started,
        }));
        res.on('error', reject);
      });
      req.on('error', (error) => {
        // A server may answer early (404, 413) and close while the body is still going out:
        // the answer, once it arrived, is what counts.
        if (responded) return;
        const early = /EPIPE|ECONNRESET/.test(error.message) ? ' (the server closed the connection while the body was being sent)' : '';
        reject(new Error(`${method} ${this.#base.origin}${path} failed: ${error.message}${early}`, { cause: error }));
      });
      req.end(payload);
    });
  }

  /** POST a JSON value (or pre-encoded JSON bytes); throws unless the status is `expectStatus`. */
  async postJson(path: string, body: unknown, expectStatus = 200): Promise<HttpAnswer> {
    const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const answer = await this.request('POST', path, payload, { 'content-type': 'application/json' });
    if (answer.status !== expectStatus) throw new UnexpectedAnswerError(`POST ${path}`, expectStatus, answer);
    return answer;
  }

  close(): void {
    this.#agent.destroy();
  }
}

export class UnexpectedAnswerError extends Error {
  constructor(what: string, expectStatus: number, readonly answer: HttpAnswer) {
    super(`${what}: expected ${expectStatus}, got ${answer.status}: ${answer.body.toString('utf8', 0, 500)}`);
  }
}

export function parseJson<T = any>(answer: HttpAnswer): T { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(answer.body.toString('utf8')) as T;
}
