// Bound values of the columnar seam (STYLE §7: values are bound, never spliced): their types
// and the builder of generated placeholders. Rendering them as literals for chdb is
// columnar-literal.ts's job, running statements columnar.ts's; both depend on this file only.

/** A bound value: numbers must be safe integers or finite doubles, 64-bit integers bigints. */
export type ParamValue = string | number | bigint | boolean | readonly string[] | readonly number[] | readonly bigint[];
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
