// The web console (docs/console.md) is part of the service: `GET /` leads to `/console/`,
// whose files are the build of console/ (console/build.mjs: one script, one stylesheet, the
// page, each with a gzip copy) served from memory with a strict Content-Security-Policy. The
// console calls the same public API a user's script calls, with the token the user signs in
// with; these routes need none.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { ServiceConfig } from '../engine/config.ts';
import { ok, type Reply, type Route } from './route.ts';

const TAG = 'Console';

/**
 * Every console response forbids what an injected value could use: scripts and styles only
 * from the service's own files (no inline code, no eval), no plugins, frames or foreign
 * connections. WebSockets to the same host are `'self'` under CSP Level 3.
 */
export const CONSOLE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "font-src 'self'",
  "connect-src 'self'", "manifest-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

interface ConsoleFile { bytes: Buffer; gzip?: Buffer; contentType: string; etag: string }

/**
 * Where the console's build is: `dist/console` of the repository, both for the sources (api/
 * run by tsx) and for the compiled service (dist/api/, whose sibling is dist/console).
 */
export function consoleBuildDir(moduleDir = import.meta.dirname): string {
  const parent = path.dirname(moduleDir);
  return path.basename(parent) === 'dist' ? path.join(parent, 'console') : path.join(parent, 'dist', 'console');
}

/** The built files by name (a flat folder), read once: the whole console is a few hundred KB. */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(path.join(dir, 'index.html'))) return files;
  for (const name of readdirSync(dir)) {
    const type = CONTENT_TYPES[path.extname(name)];
    if (!type) continue;
    const bytes = readFileSync(path.join(dir, name));
    const gzipPath = path.join(dir, `${name}.gz`);
    files.set(name, {
      bytes, contentType: type,
      ...(existsSync(gzipPath) ? { gzip: readFileSync(gzipPath) } : {}),
      etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`,
    });
  }
  return files;
}

const acceptsGzip = (header: string | undefined): boolean => /(^|[\s,])gzip(\s*;\s*q=(?!0(\.0*)?\s*($|,))[\d.]+)?\s*($|,)/i.test(header ?? '');

function serveFile(file: ConsoleFile, headers: Record<string, string>): Reply {
  const common = { ...SECURITY_HEADERS, etag: file.etag, 'cache-control': 'no-cache', vary: 'Accept-Encoding' };
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag || tag.trim() === '*')) {
    return { status: 304, headers: common };
  }
  if (file.gzip && acceptsGzip(headers['accept-encoding'])) {
    return { status: 200, body: file.gzip, contentType: file.contentType, headers: { ...common, 'content-encoding': 'gzip' } };
  }
  return { status: 200, body: file.bytes, contentType: file.contentType, headers: common };
}

function notBuilt(): Reply {
  return {
    status: 503, headers: { ...SECURITY_HEADERS, 'retry-after': '60' },
    body: { error: { code: 503, message: 'The console is not built: run `make run` (or node console/build.mjs) from the repository' } },
  };
}

export function consoleRoutes(config: Readonly<ServiceConfig>, dir = consoleBuildDir()): Route[] {
  let files: Map<string, ConsoleFile> | undefined;
  const built = () => {
    if (!files || files.size === 0) files = loadConsoleFiles(dir);
    return files;
  };
  const redirect = (): Reply => ({ status: 302, headers: { location: '/console/', 'cache-control': 'no-cache' }, body: '', contentType: 'text/plain' });
  const responses = { 200: { description: 'the file' }, 304: { description: 'the copy the browser holds is current (If-None-Match)' }, 404: { description: 'no such file' }, 503: { description: 'the console is not built' } };
  return [
    {
      method: 'get', path: '/', operationId: 'root', tag: TAG, public: true,
      summary: 'Leads to the web console (302 to /console/)',
      responses: { 302: { description: 'Location: /console/' } },
      handle: async () => redirect(),
    },
    {
      method: 'get', path: '/console', operationId: 'consoleRoot', tag: TAG, public: true,
      summary: 'Leads to the web console (302 to /console/)',
      responses: { 302: { description: 'Location: /console/' } },
      handle: async () => redirect(),
    },
    {
      method: 'get', path: '/console/config.json', operationId: 'consoleConfig', tag: TAG, public: true,
      summary: "The console's sign-in options: whether the dev identity provider (POST /oauth/token) has clients",
      responses: { 200: { description: 'sign-in options', schema: Type.Object({ oauth: Type.Boolean() }) } },
      handle: async () => ({ ...ok({ oauth: Object.keys(config.policy.oauthClients ?? {}).length > 0 }), headers: { ...SECURITY_HEADERS, 'cache-control': 'no-store' } }),
    },
    {
      method: 'get', path: '/console/{file}', restParam: true, operationId: 'consoleFile', tag: TAG, public: true,
      requestHeaders: ['accept-encoding', 'if-none-match'],
      summary: 'The web console: its page at /console/, its script and stylesheet beside it',
      description: 'Served with a strict Content-Security-Policy (no inline script or style, no eval, connections to this service only). The console\'s views are addressed by the URL fragment (`/console/#/timeseries`); another page name leads to `/console/`, a missing file is a 404.',
      responses,
      async handle({ params, headers }) {
        const all = built();
        if (all.size === 0) return notBuilt();
        const name = params['file'] ?? '';
        const file = all.get(name === '' ? 'index.html' : name);
        if (file) return serveFile(file, headers);
        // A name with an extension is a missing file; anything else a page address typed by hand.
        if (path.extname(name) !== '') return { status: 404, headers: SECURITY_HEADERS, body: { error: { code: 404, message: 'No such console file' } } };
        return redirect();
      },
    },
  ];
}
