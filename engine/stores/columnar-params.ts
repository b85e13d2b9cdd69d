// Bound values of the columnar seam (STYLE §7: values are bound, never spliced): their types
// and the builder of generated placeholders. Rendering them as literals for chdb is
// columnar-literal.ts's job, running statements columnar.ts's; both depend on this file only.

/** Column types an insert or a column source can carry (Arrow on the wire; convert in the SELECT list). */
export type InsertColumnType = 'Float64' | 'Int64' | 'Int32' | 'UInt8' | 'String';

export type InsertColumn =
  | { name: string; type: 'Float64'; data: Float64Array }
  | { name: string; type: 'Int64'; data: BigInt64Array }
  | { name: string; type: 'Int32'; data: Int32Array }
  | { name: string; type: 'UInt8'; data: Uint8Array }
  | { name: string; type: 'String'; data: readonly string[] };

/**
 * Columns in JS memory a SELECT reads as a table, written `arrowstream({name:ColumnSource})`
 * (the acknowledged points a read takes from the ingest log's memory). Only the engine in
 * process can read them (ColumnarStore.readsColumnSources): it registers the columns on the
 * connection running the statement, as an insert's.
 */
export class ColumnSource {
  constructor(readonly columns: readonly InsertColumn[]) {}
}

/** A bound value: numbers must be safe integers or finite doubles, 64-bit integers bigints. */
export type ParamValue = string | number | bigint | boolean | readonly string[] | readonly number[] | readonly bigint[] | ColumnSource;
export type QueryParams = Readonly<Record<string, ParamValue>>;

/** ClickHouse types a generated placeholder may carry. */
export type ParamType = 'String' | 'UInt64' | 'Int64' | 'UInt32' | 'Array(String)' | 'Array(UInt64)' | 'Array(Int64)';

/**
 * Builds {pN:Type} placeholders while composing a statement from parts (OR-ed ranges), so
 * every value stays bound (STYLE §7), like sql-params.ts does for PostgreSQL.
 */
export class ColumnarParams {
  readonly values: Record<string, ParamValue> = {};
  private count = 0;

  bind(value: ParamValue, type: ParamType): string {
    const name = `p${this.count++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}
