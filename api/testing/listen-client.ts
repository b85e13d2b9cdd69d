// Test helper for the data point streams (api/datapoints-listen.ts): a real WebSocket client
// (the `ws` package) over a real socket, collecting the server's frames as parsed JSON.
import WebSocket from 'ws';
import { pollUntil } from '../../engine/testing/poll-until.ts';

export interface ListenClient {
  ws: WebSocket;
  /** Every text frame, parsed, in arrival order. */
  frames: any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  pings: number;
  closed?: { code: number; reason: string };
  send(frame: unknown): void;
  /** The first frame at or after index `from` matching `match`, polled against a deadline. */
  next(what: string, match: (frame: any) => boolean, from?: number): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Polls until the socket is closed. */
  untilClosed(): Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** Opens a socket with the token in Authorization; resolves once open. */
export function listen(url: string, token: string, opts: { autoPong?: boolean } = {}): Promise<ListenClient> {
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, autoPong: opts.autoPong ?? true });
  const client: ListenClient = {
    ws, frames: [], pings: 0,
    send: (frame) => ws.send(JSON.stringify(frame)),
    async next(what, match, from = 0) {
      return pollUntil(what, () => client.frames.slice(from).find(match), 20_000, 10);
    },
    untilClosed: () => pollUntil('the close', () => client.closed, 20_000, 10),
    close() {
      if (client.closed) return Promise.resolve();
      return new Promise((resolve) => {
        ws.once('close', () => resolve());
        ws.close(1000);
      });
    },
  };
  ws.on('message', (data, isBinary) => { if (!isBinary) client.frames.push(JSON.parse(data.toString())); });
  ws.on('ping', () => { client.pings++; });
  ws.on('close', (code, reason) => { client.closed = { code, reason: reason.toString() }; });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

/** The status of a refused handshake. */
export function refusedStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); res.resume(); ws.terminate(); });
    ws.once('open', () => { ws.close(); reject(new Error('the handshake was accepted')); });
    ws.once('error', () => undefined);
  });
}
