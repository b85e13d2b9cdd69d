// Test fixture: the real server (embedded PostgreSQL, chdb) in this process on port 0 with
// its own DATA_DIR, a random tenant per test, and small helpers to call it.
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../engine/config.ts';
import { mintToken } from '../auth.ts';
import { startServer, type RunningServer } from '../server.ts';

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text. */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface TestServer {
  url: string;
  server: RunningServer;
  secret: string;
  dataDir: string;
  /** A fresh random tenant name. */
  newTenant(): string;
  token(opts: { org: string; sub?: string; read?: (number | string)[]; write?: (number | string)[]; expiresInSeconds?: number }): string;
  request(method: string, path: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string>; rawBody?: string | Uint8Array }): Promise<TestResponse>;
  close(): Promise<void>;
}

export async function startTestServer(opts: { serviceConfig?: unknown; env?: Record<string, string> } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'plantdata-test-'));
  chmodSync(dataDir, 0o755);
  const secret = randomBytes(24).toString('base64url');
  const env: NodeJS.ProcessEnv = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: secret, LOG_LEVEL: 'silent', ...opts.env };
  if (opts.serviceConfig !== undefined) {
    const file = path.join(dataDir, 'service-config.json');
    writeFileSync(file, JSON.stringify(opts.serviceConfig));
    env['SERVICE_CONFIG'] = file;
  }
  const server = await startServer(loadConfig(env));
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url, server, secret, dataDir,
    newTenant: () => `t-${randomBytes(6).toString('hex')}`,
    token: (t) => mintToken({ secret, organization: t.org, sub: t.sub ?? 'tester', read: t.read, write: t.write, expiresInSeconds: t.expiresInSeconds }),
    async request(method, p, r = {}) {
      const headers: Record<string, string> = { ...(r.headers ?? {}) };
      if (r.token) headers['authorization'] = `Bearer ${r.token}`;
      let body: string | Uint8Array | undefined = r.rawBody;
      if (r.body !== undefined) {
        body = JSON.stringify(r.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(url + p, { method, headers, body: body as BodyInit | undefined });
      const text = await res.text();
      let parsed: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
