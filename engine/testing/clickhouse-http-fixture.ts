// A ClickHouse HTTP endpoint for tests, over the chdb engine in this process: enough of the
// server's HTTP interface for @clickhouse/client as the columnar store's server path uses it
// (no ClickHouse server can be installed on these machines). It runs real engine SQL; what it
// emulates is only the HTTP layer: /ping, the statement in the body or `query=`, FORMAT and
// default_format, param_<name> values, settings as URL parameters, database, query_id,
// credentials, an INSERT's data in the body, gzip/deflate/br both ways, the server's error
// answers (status, X-ClickHouse-Exception-Code, `Code: N. DB::Exception: ...`), and the
// server's defaults that bound a request (http_max_uri_size, max_query_size).
//
// chdb is one engine per process, bound to one data directory: a test that also opens the
// embedded columnar store must give the fixture the same path (a Session on a second path is
// refused: "only one active data directory per process"; it opens only once every Session of
// the first is closed and chdb's drainPending() has resolved). Sessions on the same path share
// the engine and its tables, each with its own settings and current database (chdb 3.4, checked
// here). Keep the two apart with a database:
// the fixture serves its own (`database`, created at start) and the embedded store uses
// `default`. Each request runs on a Session of its own, so its settings and USE end with it;
// one anchor Session stays open so the engine is not torn down between requests.
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile, unlink } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServerError, substituteParams } from './clickhouse-http-params.ts';
import { insertFromFile, statementShape } from './clickhouse-http-statement.ts';
import { answerBody, errorStatus, readBody } from './clickhouse-http-wire.ts';

interface ChdbResult { bytes(): Uint8Array; readonly rowsRead: number; readonly bytesRead: number; readonly elapsed: number }
interface ChdbSession { queryAsync(sql: string, opts?: { format?: string }): Promise<ChdbResult>; close(): void }
interface ChdbModule { Session: new (path: string) => ChdbSession }

export interface ClickHouseHttpFixtureOptions {
  /** The engine's data directory; the same path as any embedded store of the same process. */
  path: string;
  /** The database requests run in unless they name one; created at start. @default 'default' */
  database?: string;
  /** Credentials the fixture requires. @default user 'default' with an empty password */
  username?: string;
  password?: string;
}

export interface ClickHouseHttpFixture {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly port: number;
  /** Requests answered so far (a test can see its calls went through here). */
  readonly requestCount: number;
  stop(): Promise<void>;
}

/** The server's defaults for what a request may carry (ClickHouse 26: settings http_max_uri_size, max_query_size). */
const URI_BYTES_MAX = 1024 * 1024;
const QUERY_BYTES_MAX_DEFAULT = 262_144;
/** Placeholders are rendered as literals here, so the engine's own text limit is raised past the request's. */
const RENDERED_QUERY_BYTES_MAX = 256 * 1024 * 1024;
const SERVER_VERSION = '26.7.2.1';
/** HTTP-handler parameters that are not settings (ClickHouse's HTTPHandler reserved names). */
const RESERVED = new Set(['query', 'database', 'default_format', 'query_id', 'compress', 'decompress', 'user', 'password', 'quota_key',
  'stacktrace', 'role', 'buffer_size', 'wait_end_of_query', 'session_id', 'session_timeout', 'session_check', 'client_protocol_version',
  'close_session']);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * A server's defaults where chdb's differ (read from chdb 3.4's system.settings; the server's
 * from its documentation): a server quotes 64-bit integers in JSON, does not turn inserts into
 * async inserts, runs ALTER mutations asynchronously and parses DateTime text strictly.
 */
const SERVER_DEFAULTS: readonly [string, string][] = [
  ['output_format_json_quote_64bit_integers', '1'], ['async_insert', '0'], ['mutations_sync', '0'],
  ['date_time_input_format', 'basic'], ['implicit_select', '0'], ['output_format_arrow_use_native_writer', '1'],
  ['allow_introspection_functions', '0'],
];

const CONTENT_TYPE: Record<string, string> = {
  JSONEachRow: 'application/x-ndjson; charset=UTF-8', JSON: 'application/json; charset=UTF-8',
  ArrowStream: 'application/octet-stream', Arrow: 'application/octet-stream', RawBLOB: 'application/octet-stream',
};

interface Request {
  sql: string;
  data?: Buffer;
  readonly: boolean;
  params: Map<string, string>;
  settings: [string, string][];
  database: string;
  defaultFormat: string;
}

function settingLiteral(value: string): string {
  return /^-?\d+(?:\.\d+)?$/.test(value) ? value : `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

class Fixture {
  private requests = 0;
  private readonly running = new Set<Promise<unknown>>();
  private readonly bodies = mkdtempSync(path.join(tmpdir(), 'clickhouse-http-bodies-'));

  constructor(private readonly chdb: ChdbModule, private readonly options: ClickHouseHttpFixtureOptions, private readonly anchor: ChdbSession) {}

  get requestCount(): number {
    return this.requests;
  }

  handle(request: IncomingMessage, response: ServerResponse): void {
    this.requests++;
    const work = this.answer(request, response).catch((error: unknown) => this.fail(response, error));
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if ((request.url ?? '').length > URI_BYTES_MAX) throw new ServerError(1001, 'STD_EXCEPTION', `URI is too long: more than http_max_uri_size (${URI_BYTES_MAX})`);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    response.setHeader('X-ClickHouse-Server-Display-Name', 'clickhouse-http-fixture');
    response.setHeader('Keep-Alive', 'timeout=10');
    if (url.pathname === '/ping' || (url.pathname === '/' && request.method === 'GET' && !url.searchParams.has('query'))) {
      response.end('Ok.\n');
      return;
    }
    if (url.pathname !== '/') throw new ServerError(0, 'UNKNOWN', `There is no handle ${url.pathname}`);
    this.authenticate(request, url);
    const queryId = url.searchParams.get('query_id') || randomUUID();
    response.setHeader('X-ClickHouse-Query-Id', queryId);
    const body = await readBody(request);
    const parsed = this.parse(request, url, body);
    const enabled = parsed.settings.find(([name]) => name === 'enable_http_compression')?.[1] === '1';
    const [result, format] = await this.run(parsed);
    response.setHeader('X-ClickHouse-Format', format);
    response.setHeader('X-ClickHouse-Timezone', 'UTC');
    response.setHeader('Content-Type', CONTENT_TYPE[format] ?? 'text/tab-separated-values; charset=UTF-8');
    response.setHeader('X-ClickHouse-Summary', JSON.stringify({
      read_rows: String(result.rowsRead), read_bytes: String(result.bytesRead), written_rows: '0', written_bytes: '0',
      total_rows_to_read: '0', result_rows: '0', result_bytes: String(result.bytes().length), elapsed_ns: String(Math.round(result.elapsed * 1e9)),
    }));
    const { bytes, encoding } = answerBody(Buffer.from(result.bytes()), enabled ? request.headers['accept-encoding'] : undefined);
    if (encoding) response.setHeader('Content-Encoding', encoding);
    response.end(bytes);
  }

  private authenticate(request: IncomingMessage, url: URL): void {
    let user = url.searchParams.get('user') ?? undefined;
    let password = url.searchParams.get('password') ?? undefined;
    const header = request.headers.authorization;
    if (header?.startsWith('Basic ')) {
      const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      [user, password] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    } else if (request.headers['x-clickhouse-user'] !== undefined) {
      user = String(request.headers['x-clickhouse-user']);
      password = String(request.headers['x-clickhouse-key'] ?? '');
    }
    if ((user ?? 'default') !== (this.options.username ?? 'default') || (password ?? '') !== (this.options.password ?? '')) {
      throw new ServerError(516, 'AUTHENTICATION_FAILED', `${user ?? 'default'}: Authentication failed: password is incorrect, or there is no user with such name`);
    }
  }

  private parse(request: IncomingMessage, url: URL, body: Buffer): Request {
    const query = url.searchParams.get('query');
    const get = request.method === 'GET';
    if (!get && request.method !== 'POST') throw new ServerError(1, 'UNSUPPORTED_METHOD', `HTTP method ${request.method} is not supported`);
    if (String(request.headers['content-type'] ?? '').startsWith('multipart/form-data')) {
      throw new ServerError(48, 'NOT_IMPLEMENTED', 'the fixture does not read multipart/form-data parameters');
    }
    for (const name of ['session_id', 'compress', 'decompress']) {
      if (url.searchParams.get(name)) throw new ServerError(48, 'NOT_IMPLEMENTED', `the fixture does not implement ${name}`);
    }
    const insertData = query !== null && body.length > 0 && statementShape(query).insert;
    const sql = query === null ? body.toString('utf8') : insertData || body.length === 0 ? query : `${query}\n${body.toString('utf8')}`;
    const params = new Map<string, string>();
    const settings: [string, string][] = [];
    for (const [name, value] of url.searchParams) {
      if (name.startsWith('param_')) params.set(name.slice(6), value);
      else if (!RESERVED.has(name) && name !== 'default_format') settings.push([name, value]);
    }
    const database = url.searchParams.get('database') || this.options.database || 'default';
    return { sql, data: insertData ? body : undefined, readonly: get, params, settings, database, defaultFormat: url.searchParams.get('default_format') || 'TabSeparated' };
  }

  /** Runs the request's statement on a Session of its own; the answer and its format. */
  private async run(request: Request): Promise<[ChdbResult, string]> {
    if (request.sql.trim().length === 0) throw new ServerError(62, 'SYNTAX_ERROR', 'Empty query');
    const limit = Number(request.settings.find(([name]) => name === 'max_query_size')?.[1] ?? QUERY_BYTES_MAX_DEFAULT);
    if (Buffer.byteLength(request.sql, 'utf8') > limit) throw new ServerError(62, 'SYNTAX_ERROR', `Syntax error: Max query size exceeded (max_query_size = ${limit})`);
    for (const name of [request.database, ...request.settings.map(([setting]) => setting)]) {
      if (!IDENTIFIER.test(name)) throw new ServerError(115, 'UNKNOWN_SETTING', `Unknown setting or database name ${JSON.stringify(name)}`);
    }
    const shape = statementShape(request.sql);
    const format = shape.insert ? request.defaultFormat : shape.format ?? request.defaultFormat;
    const dataPath = request.data && path.join(this.bodies, `${randomUUID()}.body`);
    const session = new this.chdb.Session(this.options.path);
    try {
      await session.queryAsync(`USE ${request.database}`, { format: 'TSV' });
      const settings = [...SERVER_DEFAULTS, ['max_query_size', String(RENDERED_QUERY_BYTES_MAX)] as const, ...request.settings.filter(([name]) => name !== 'max_query_size')];
      await session.queryAsync(`SET ${settings.map(([name, value]) => `${name} = ${settingLiteral(value)}`).join(', ')}`, { format: 'TSV' });
      // A server runs GET requests read-only (readonly = 2: settings may still change).
      if (request.readonly) await session.queryAsync('SET readonly = 2', { format: 'TSV' });
      let text = substituteParams(request.sql, request.params);
      if (dataPath && request.data) {
        await writeFile(dataPath, request.data);
        text = insertFromFile(statementShape(text), dataPath);
      }
      return [await session.queryAsync(text, { format }), format];
    } finally {
      session.close();
      if (dataPath) await unlink(dataPath).catch(() => undefined);
    }
  }

  private fail(response: ServerResponse, error: unknown): void {
    const code = error instanceof ServerError ? error.code : (error as { clickhouseCode?: number }).clickhouseCode ?? 1001;
    const raw = error instanceof Error ? error.message : String(error);
    // chdb's messages already read `Code: N. DB::Exception: ... (TYPE)`; the fixture's own get that shape here.
    const message = error instanceof ServerError ? `Code: ${code}. DB::Exception: ${raw}. (${error.type})` : raw;
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response.removeHeader('Content-Encoding');
    response.statusCode = errorStatus(code);
    response.setHeader('X-ClickHouse-Exception-Code', String(code));
    response.setHeader('Content-Type', 'text/plain; charset=UTF-8');
    response.end(`${message} (version ${SERVER_VERSION})\n`);
  }

  async stop(server: Server): Promise<void> {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await Promise.allSettled([...this.running]);
    this.anchor.close();
    rmSync(this.bodies, { recursive: true, force: true });
  }
}

/** Starts the endpoint on 127.0.0.1 (a port of the system's choosing); stop() ends it and its sessions. */
export async function startClickHouseHttpFixture(options: ClickHouseHttpFixtureOptions): Promise<ClickHouseHttpFixture> {
  const chdb = createRequire(import.meta.url)('chdb') as ChdbModule;
  const anchor = new chdb.Session(options.path);
  const database = options.database ?? 'default';
  if (!IDENTIFIER.test(database)) throw new Error(`not a database name: ${JSON.stringify(database)}`);
  await anchor.queryAsync(`CREATE DATABASE IF NOT EXISTS ${database}`, { format: 'TSV' });
  const fixture = new Fixture(chdb, options, anchor);
  // Node's default header limit (16 KiB) would refuse long URLs, with an empty 431, before the
  // server's own limit is checked.
  const server = createServer({ maxHeaderSize: 4 * URI_BYTES_MAX }, (request, response) => fixture.handle(request, response));
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requestCount() {
      return fixture.requestCount;
    },
    stop: () => fixture.stop(server),
  };
}

