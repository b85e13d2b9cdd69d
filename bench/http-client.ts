// A keep-alive HTTP client for the bench: one agent per target, bodies as Buffers, the time
// from the first byte written to the last byte of the answer received.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface HttpAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  /** From the request being sent to the whole answer read, in ms. */
  elapsedMs: number;
}

export class HttpClient {
  readonly #agent: http.Agent;
  readonly #base: URL;
  readonly #headers: Record<string, string>;

  constructor(baseUrl: string, opts: { headers?: Record<string, string>; socketsMax?: number } = {}) {
    this.#base = new URL(baseUrl);
    this.#headers = opts.headers ?? {};
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: opts.socketsMax ?? 8 });
  }

  request(method: string, path: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
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
