// The columnar store seam (CONTRACT "The embedded default and the scale-out
// engines"): one interface over the ClickHouse engine in process (npm chdb, a Session on
// DATA_DIR/clickhouse) and a ClickHouse server (@clickhouse/client). Callers write one SQL
// text with {name:Type} placeholders; values are always bound, never spliced. The only
// difference kept here is where JS columns come from: chdb reads them in memory through
// arrowstream('<name>'); a server reads an insert's as an Arrow IPC body through
// input('<structure>'), and a statement's ColumnSource inlined in its text (server-columns.ts).
//
// Why not chdb/connection under @clickhouse/client for both: that Connection turns every
// insert body into a string appended to the SQL text (no binary formats, no Arrow), so the
// cheapest insert path (Arrow columns, about 5x less CPU than JSONEachRow here) is lost.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { Table, tableFromIPC } from 'apache-arrow';
import { renderParams } from './columnar-literal.ts';
import { ColumnSource, type InsertColumn, type InsertColumnType, type QueryParams } from './columnar-params.ts';
import { arrowStreamOf, columnsStructure } from './server-columns.ts';
import { serverStatement } from './server-statement.ts';

export type { InsertColumn, InsertColumnType } from './columnar-params.ts';

/**
 * An insert of columns through `INSERT INTO <table> SELECT <select> FROM <columns>`. Column
 * values arrive as Nullable in chdb, so the select list wraps them in assumeNotNull().
 */
export interface ColumnarInsert {
  /** Target table; an identifier from the caller's allow-list. */
  table: string;
  /** Target column list, e.g. `tenant, series_id, ts`. Identifiers only. */
  targetColumns: readonly string[];
  /** The SELECT list over the inserted columns; may use {name:Type} placeholders. */
  select: string;
  columns: readonly InsertColumn[];
  params?: QueryParams;
  /** Query-level engine settings of this insert (names are identifiers, values numbers). */
  settings?: Readonly<Record<string, number>>;
}

export interface ColumnarStore {
  readonly kind: 'chdb' | 'clickhouse';
  /**
   * Whether reads should take JS columns bound as ColumnSource (`arrowstream({name:ColumnSource})`)
   * where they could wait for an insert instead: the engine in process reads them in place; a
   * server gets a copy in the statement's text (server-columns.ts), which suits a few thousand
   * aggregate buckets but not every read of queued points.
   */
  readonly readsColumnSources: boolean;
  /** Rows of a SELECT as objects (JSONEachRow). 64-bit integers may arrive as numbers or strings
   *  depending on engine defaults: select exact values with toString(). */
  query<Row = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<Row[]>;
  /** The result of a SELECT as an Arrow table (columnar reads: Float64Array, BigInt64Array). */
  queryArrow(sql: string, params?: QueryParams): Promise<Table>;
  /** The result of a SELECT in RawBLOB format: the bytes of its one String column, rows back to back (answers built by the engine). */
  queryBytes(sql: string, params?: QueryParams): Promise<Uint8Array>;
  /** A statement without a result: DDL, INSERT ... SELECT, DELETE. */
  command(sql: string, params?: QueryParams): Promise<void>;
  /** Inserts columns; resolves once the engine has written (and, per table settings, synced) the part. */
  insertColumns(insert: ColumnarInsert): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export type ColumnarStoreOptions =
  | {
    engine: 'chdb';
    /** The engine's data directory, e.g. DATA_DIR/clickhouse. */
    path: string;
    /** Connections on it; a connection runs one statement at a time. @default 3 (libuv has 4 threads) */
    connections?: number;
  }
  | { engine: 'clickhouse'; url: string; username?: string; password?: string; database?: string; requestTimeoutMs?: number };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Identifiers are never bound; they come from allow-lists and must look like one. */
export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not an SQL identifier: ${JSON.stringify(name)}`);
  return name;
}

function insertHead(insert: ColumnarInsert): string {
  assertIdentifier(insert.table);
  if (insert.columns.length === 0) throw new Error(`insert into ${insert.table} without columns`);
  const length = insert.columns[0]!.data.length;
  for (const column of insert.columns) {
    assertIdentifier(column.name);
    if (column.data.length !== length) throw new Error(`insert into ${insert.table}: column ${column.name} has ${column.data.length} rows, expected ${length}`);
  }
  return `INSERT INTO ${insert.table} (${insert.targetColumns.map(assertIdentifier).join(', ')}) SELECT ${insert.select}`;
}

/** ` SETTINGS a = 1, b = 0` for the end of an insert's SELECT, or ''. */
function insertSettings(insert: ColumnarInsert): string {
  const entries = Object.entries(insert.settings ?? {});
  for (const [name, value] of entries) {
    assertIdentifier(name);
    if (!Number.isFinite(value)) throw new Error(`insert into ${insert.table}: setting ${name} is not a finite number`);
  }
  return entries.length === 0 ? '' : ` SETTINGS ${entries.map(([name, value]) => `${name} = ${value}`).join(', ')}`;
}

export async function openColumnarStore(options: ColumnarStoreOptions): Promise<ColumnarStore> {
  const store = options.engine === 'chdb' ? ChdbColumnarStore.open(options.path, options.connections ?? 3) : ServerColumnarStore.open(options);
  if (!(await store.ping())) throw new Error(`the ${options.engine} columnar store does not answer`);
  return store;
}

// ---- chdb ---------------------------------------------------------------------------------

/** The parts of chdb's CommonJS entry used here; _arrowRegisterColumns is its Arrow C Data input. */
interface ChdbResult {
  bytes(): Uint8Array;
  text(): string;
}
interface ChdbSession {
  readonly connection: unknown;
  queryAsync(sql: string, opts?: { format?: string }): Promise<ChdbResult>;
  close(): void;
}
interface ChdbModule {
  Session: new (path: string) => ChdbSession;
  drainPending(): Promise<void>;
  _arrowRegisterColumns(connection: unknown, name: string, columns: ChdbArrowColumn[]): void;
  _arrowUnregister(connection: unknown, name: string): void;
}
interface ChdbArrowColumn {
  name: string;
  /** Arrow C format string: g Float64, l Int64, i Int32, C UInt8, u Utf8. */
  format: string;
  length: number;
  nullCount: number;
  buffers: (Buffer | null)[];
}

const ARROW_FORMAT: Record<InsertColumnType, string> = { Float64: 'g', Int64: 'l', Int32: 'i', UInt8: 'C', String: 'u' };

function bufferOf(view: ArrayBufferView): Buffer {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}

function utf8Column(values: readonly string[]): Buffer[] {
  const offsets = new Int32Array(values.length + 1);
  let bytes = 0;
  for (let i = 0; i < values.length; i++) {
    offsets[i] = bytes;
    bytes += Buffer.byteLength(values[i]!, 'utf8');
  }
  offsets[values.length] = bytes;
  const data = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < values.length; i++) data.write(values[i]!, offsets[i]!, 'utf8');
  return [bufferOf(offsets), data];
}

function chdbColumn(column: InsertColumn): ChdbArrowColumn {
  const buffers = column.type === 'String' ? utf8Column(column.data) : [bufferOf(column.data)];
  return { name: column.name, format: ARROW_FORMAT[column.type], length: column.data.length, nullCount: 0, buffers: [null, ...buffers] };
}

function jsonLines<Row>(text: string): Row[] {
  const rows: Row[] = [];
  for (const line of text.split('\n')) if (line.length > 0) rows.push(JSON.parse(line) as Row);
  return rows;
}

/** A chdb connection and how many statements it is running (a connection runs one at a time). */
interface PooledSession {
  session: ChdbSession;
  running: number;
  /** The connection's settings statement, until it has run (every statement waits for it). */
  configuring?: Promise<unknown>;
}

/**
 * chdb renders bound values into the statement's text (columnar-literal.ts), so a read binding
 * thousands of delete tombstones is a statement of hundreds of KiB: past the engine's default
 * max_query_size (256 KiB) it was refused. A ClickHouse server gets values as parameters, apart
 * from the text.
 */
const CHDB_QUERY_BYTES_MAX = 64 * 1024 * 1024;

class ChdbColumnarStore implements ColumnarStore {
  readonly kind = 'chdb';
  readonly readsColumnSources = true;
  private insertCount = 0;
  private closed = false;

  private constructor(private readonly chdb: ChdbModule, private readonly pool: PooledSession[]) {}

  /**
   * Several connections on the one data directory (they share the engine): a connection runs
   * its statements one after another, so a read on a single connection waited for a running
   * insert. Each statement takes the least busy connection.
   */
  static open(path: string, connections: number): ChdbColumnarStore {
    // Not recursive when the parent exists: Node's recursive mkdir never returns under /proc.
    if (!existsSync(path)) mkdirSync(path, { recursive: !existsSync(dirname(path)) });
    const chdb = createRequire(import.meta.url)('chdb') as ChdbModule;
    const pool = Array.from({ length: Math.max(1, connections) }, (): PooledSession => {
      const session = new chdb.Session(path);
      return { session, running: 0, configuring: session.queryAsync(`SET max_query_size = ${CHDB_QUERY_BYTES_MAX}`, { format: 'TSV' }) };
    });
    return new ChdbColumnarStore(chdb, pool);
  }

  private pick(): PooledSession {
    let best = this.pool[0] as PooledSession;
    for (const pooled of this.pool) if (pooled.running < best.running) best = pooled;
    return best;
  }

  /**
   * chdb's own binding runs every bound statement of the process through one queue (reads
   * waited ~200 ms behind an insert); placeholders are rendered as typed literals instead
   * (columnar-literal.ts), and statements run side by side.
   */
  private async run(sql: string, values: QueryParams | undefined, format: string, on = this.pick()): Promise<ChdbResult> {
    const sources = values ? Object.entries(values).filter((entry): entry is [string, ColumnSource] => entry[1] instanceof ColumnSource) : [];
    if (sources.length > 0) return this.runWithSources(sql, values as QueryParams, sources, format, on);
    const text = renderParams(sql, values);
    on.running++;
    try {
      if (on.configuring) {
        await on.configuring;
        on.configuring = undefined;
      }
      return await on.session.queryAsync(text, { format });
    } finally {
      on.running--;
    }
  }

  /** A statement reading JS columns: each ColumnSource is registered on its connection for the statement's run. */
  private async runWithSources(sql: string, values: QueryParams, sources: readonly [string, ColumnSource][], format: string, on: PooledSession): Promise<ChdbResult> {
    const rest: Record<string, QueryParams[string]> = { ...values };
    const names: string[] = [];
    let text = sql;
    try {
      for (const [param, source] of sources) {
        const name = `source_${process.pid}_${++this.insertCount}`;
        this.chdb._arrowRegisterColumns(on.session.connection, name, source.columns.map(chdbColumn));
        names.push(name);
        text = text.replaceAll(`{${param}:ColumnSource}`, `'${name}'`);
        delete rest[param];
      }
      return await this.run(text, rest, format, on);
    } finally {
      for (const name of names) this.chdb._arrowUnregister(on.session.connection, name);
    }
  }

  async query<Row>(sql: string, values?: QueryParams): Promise<Row[]> {
    return jsonLines<Row>((await this.run(sql, values, 'JSONEachRow')).text());
  }

  async queryArrow(sql: string, values?: QueryParams): Promise<Table> {
    // 'arrow' makes chdb ask for uncompressed Arrow IPC, which apache-arrow reads as is.
    const bytes = (await this.run(sql, values, 'arrow')).bytes();
    return bytes.length === 0 ? new Table() : tableFromIPC(bytes);
  }

  async queryBytes(sql: string, values?: QueryParams): Promise<Uint8Array> {
    return (await this.run(sql, values, 'RawBLOB')).bytes();
  }

  async command(sql: string, values?: QueryParams): Promise<void> {
    await this.run(sql, values, 'TSV');
  }

  async insertColumns(insert: ColumnarInsert): Promise<void> {
    const head = insertHead(insert);
    const name = `insert_${process.pid}_${++this.insertCount}`;
    // The Arrow columns are registered on the connection that runs the insert.
    const on = this.pick();
    this.chdb._arrowRegisterColumns(on.session.connection, name, insert.columns.map(chdbColumn));
    try {
      await this.run(`${head} FROM arrowstream('${name}')${insertSettings(insert)}`, insert.params, 'TSV', on);
    } finally {
      this.chdb._arrowUnregister(on.session.connection, name);
    }
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.run('SELECT 1', undefined, 'TSV')).text().trim() === '1';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // close() defers teardown behind running native work; drain so a reopen in this
    // process (tests, restarts) finds the data directory free.
    for (const pooled of this.pool) pooled.session.close();
    await this.chdb.drainPending();
  }
}

// ---- ClickHouse server ----------------------------------------------------------------------

class ServerColumnarStore implements ColumnarStore {
  readonly kind = 'clickhouse';
  /**
   * A server gets a ColumnSource's columns copied into the statement (server-columns.ts), so the
   * data point engine does not read queued points that way: its reads wait for their inserts.
   */
  readonly readsColumnSources = false;

  private constructor(private readonly client: ClickHouseClient) {}

  static open(options: Extract<ColumnarStoreOptions, { engine: 'clickhouse' }>): ServerColumnarStore {
    // Required here, not imported at the top: the embedded default never loads the client.
    const { createClient } = createRequire(import.meta.url)('@clickhouse/client') as typeof import('@clickhouse/client');
    return new ServerColumnarStore(createClient({
      url: options.url,
      username: options.username ?? 'default',
      password: options.password ?? '',
      database: options.database ?? 'default',
      request_timeout: options.requestTimeoutMs ?? 60_000,
      // Errors must surface before a 2xx: have the server finish the query before answering.
      clickhouse_settings: { wait_end_of_query: 1, async_insert: 0 },
    }));
  }

  async query<Row>(sql: string, values?: QueryParams): Promise<Row[]> {
    const { query, query_params, settings } = serverStatement(sql, values);
    const result = await this.client.query({ query, query_params, format: 'JSONEachRow', clickhouse_settings: settings });
    return result.json<Row>();
  }

  async queryArrow(sql: string, values?: QueryParams): Promise<Table> {
    const { query, query_params, settings } = serverStatement(sql, values);
    const result = await this.client.exec({
      query: `${query}\nFORMAT ArrowStream`,
      query_params,
      clickhouse_settings: { ...settings, output_format_arrow_compression_method: 'none' },
    });
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    return bytes.length === 0 ? new Table() : tableFromIPC(bytes);
  }

  async queryBytes(sql: string, values?: QueryParams): Promise<Uint8Array> {
    const { query, query_params, settings } = serverStatement(sql, values);
    const result = await this.client.exec({ query: `${query}\nFORMAT RawBLOB`, query_params, clickhouse_settings: settings });
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async command(sql: string, values?: QueryParams): Promise<void> {
    const { query, query_params, settings } = serverStatement(sql, values);
    await this.client.command({ query, query_params, clickhouse_settings: settings });
  }

  async insertColumns(insert: ColumnarInsert): Promise<void> {
    const head = insertHead(insert);
    const result = await this.client.exec({
      query: `${head} FROM input('${columnsStructure(insert.columns)}')${insertSettings(insert)} FORMAT ArrowStream`,
      query_params: insert.params as Record<string, unknown>,
      values: Readable.from([Buffer.from(arrowStreamOf(insert.columns))]),
    });
    for await (const _ of result.stream) { /* drain the (empty) answer */ }
  }

  async ping(): Promise<boolean> {
    return (await this.client.ping()).success;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
