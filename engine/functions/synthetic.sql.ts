// The one statement that evaluates an expression (expression.ts) over its inputs' raw points.
// Each input's live rows (datapoint-read.sql.ts liveRawRows: tombstones applied, queued points
// included) in [start, end) and its nearest point on either side are stacked, grouped by
// timestamp into one column per input, and two window passes give every timestamp each
// input's previous and next point (value and time). An input's value at a timestamp is its own
// point there, else its previous one (stepwise or text inputs) or the line between the two
// (linear inputs); before its first point, or after its last for a linear input, it has none,
// and the timestamp gives no point. The expression is then one SQL expression over those
// values, NaN and infinities standing for errors (on_error tests for them).
import { liveRawRows } from '../datapoints/read/datapoint-read.sql.ts';
import type { TombstoneForm } from '../datapoints/read/series-context.ts';
import type { FamilyShape } from '../datapoints/tables/families.ts';
import type { Expr } from './expression.ts';

/** An input as the statement reads it: {s<k>:UInt64} names its series. */
export interface StatementInput {
  shape: FamilyShape;
  /** Held until the next point (CDF's isStep) rather than linear between points. */
  step: boolean;
  /** A TEXT series: its values are strings, read by map(...) only. */
  text: boolean;
  /** Whether its queued points are bound, as {queued_<k>_<part>:ColumnSource} (queuedParamOf). */
  queued: boolean;
  /** An aggregate input: its buckets bound under this name as `ts` and `v` columns (aggregate-inputs.ts), read instead of raw rows. */
  columns?: string;
}

/** Why an expression cannot be compiled over its inputs, and where. */
export class CompileError extends Error {
  constructor(readonly position: number, message: string) {
    super(message);
  }
}

const windowed = (k: number, side: string) => `${side}${k}`;

/** The three reads of an input's rows: its last point before the window, its points in it, its first after. */
export const QUEUED_PARTS = ['before', 'within', 'after'] as const;
export type QueuedPart = (typeof QUEUED_PARTS)[number];

/** The name input `k`'s queued points are bound by for one of its reads. */
export function queuedParamOf(k: number, part: QueuedPart): string {
  return `queued_${k}_${part}`;
}

function inputRows(input: StatementInput, k: number, form: TombstoneForm): string {
  if (input.columns !== undefined) {
    // A few buckets per page at most, all bound: every one is read, none is cut off.
    return `(SELECT toUInt16(${k}) AS k, toInt64(ts) AS ts, toNullable(v) AS v, CAST(NULL AS Nullable(String)) AS s,
      toUInt8(multiIf(ts < {start:Int64}, 0, ts < {end:Int64}, 1, 2)) AS w FROM arrowstream({${input.columns}:ColumnSource}))`;
  }
  const { shape } = input;
  const value = input.text ? 'CAST(NULL AS Nullable(Float64)) AS v, toNullable(value) AS s' : `toNullable(${shape.asFloat('value')}) AS v, CAST(NULL AS Nullable(String)) AS s`;
  const rowFilter = shape.aggregateRowFilter;
  const series = `tenant = {tenant:String} AND series_id = {s${k}:UInt64}`;
  // A bound source is read once per statement: each of the three reads has its own name.
  const rows = (time: string, part: QueuedPart) => liveRawRows(shape, `${series} AND ${time}`, form, { rowFilter, queued: input.queued, queuedParam: queuedParamOf(k, part) });
  // w: 0 the point before the window, 1 one of the first {take} points in it, 2 the one after;
  // each read within the bounds boundsSql found, so FINAL merges only the rows it answers.
  const [before, last, after] = boundParams(k);
  return `(SELECT toUInt16(${k}) AS k, ts, ${value}, toUInt8(0) AS w ${rows(`ts < {start:Int64} AND ts >= {${before}:Int64}`, 'before')} ORDER BY ts DESC LIMIT 1)
  UNION ALL
  (SELECT toUInt16(${k}) AS k, ts, ${value}, toUInt8(1) AS w ${rows(`ts >= {start:Int64} AND ts < {end:Int64} AND ts <= {${last}:Int64}`, 'within')} ORDER BY ts ASC LIMIT {take:UInt32})
  UNION ALL
  (SELECT toUInt16(${k}) AS k, ts, ${value}, toUInt8(2) AS w ${rows(`ts >= {end:Int64} AND ts <= {${after}:Int64}`, 'after')} ORDER BY ts ASC LIMIT 1)`;
}

/** The params input `k`'s reads are bounded by: its neighbour before, the last of its page, its neighbour after (see boundsSql). */
export function boundParams(k: number): [before: string, last: string, after: string] {
  return [`bound_${k}_before`, `bound_${k}_last`, `bound_${k}_after`];
}

/** The param holding where input `k`'s page is complete up to (exclusive) when it holds fewer than {take} points: the bound's next ms, or {end}. */
export function completeParam(k: number): string {
  return `bound_${k}_complete`;
}

/**
 * The statement that bounds each raw input's reads before the evaluation runs: FINAL on
 * `ORDER BY ts LIMIT` merges every row of the range before it can stop (a 100-point page of a
 * 1M-point series read the whole rest of it, 34 ms; the last point before a window, the whole
 * history before it, 40 ms). Over the stored rows as they lie, an ordered read stops after a
 * few granules (6 ms): rows `k`, `side` (0 the last live timestamp before {start}, 1 the
 * {take}-th live stored row's in [{start}, {end}) counting every version, 2 the first at or
 * after {end}), `ts`; a side with none is absent. Queued points need no bound: nearer ones
 * lie inside it. MIXED inputs, whose numeric points are told apart after the dedup, and
 * aggregate inputs are not bounded (the caller binds the widest bounds).
 */
export function boundsSql(inputs: readonly StatementInput[], form: TombstoneForm): string | undefined {
  const parts = inputs.flatMap((input, k) => {
    if (input.columns !== undefined || input.shape.aggregateRowFilter) return [];
    const series = `tenant = {tenant:String} AND series_id = {s${k}:UInt64}`;
    const rows = (time: string) => liveRawRows(input.shape, `${series} AND ${time}`, form, { final: false });
    return [
      `(SELECT toUInt16(${k}) AS k, toUInt8(0) AS side, toFloat64(ts) AS ts ${rows('ts < {start:Int64}')} ORDER BY ts DESC LIMIT 1)`,
      `(SELECT toUInt16(${k}) AS k, toUInt8(1) AS side, toFloat64(ts) AS ts ${rows('ts >= {start:Int64} AND ts < {end:Int64}')} ORDER BY ts ASC LIMIT 1 OFFSET {skip:UInt32})`,
      `(SELECT toUInt16(${k}) AS k, toUInt8(2) AS side, toFloat64(ts) AS ts ${rows('ts >= {end:Int64}')} ORDER BY ts ASC LIMIT 1)`,
    ];
  });
  return parts.length === 0 ? undefined : parts.join('\n  UNION ALL\n  ');
}

/** An input's value at the row's timestamp, NULL where it has none. */
function valueAt(input: StatementInput, k: number): string {
  const [p, pt, n, nt] = [windowed(k, 'p'), windowed(k, 'pt'), windowed(k, 'n'), windowed(k, 'nt')];
  if (input.step || input.text) return `if(isNull(${pt}), NULL, ${p})`;
  return `multiIf(${pt} = ts, ${p}, isNull(${pt}) OR isNull(${nt}), NULL, ${p} + (${n} - ${p}) * ((ts - ${pt}) / (${nt} - ${pt})))`;
}

/**
 * The statement. Each input reads at most {take} of its points in [{start}, {end}), so a page
 * costs its own size, not the window's: the timestamps before `cut_ms` are the ones every
 * input's points are complete for (up to the {take}-th point of an input that has {take},
 * else all of the window). Rows: every timestamp in [{start}, cut) where an input has a point,
 * ascending, with `ts_ms`, `value` Nullable(Float64) (NULL where the expression has no finite
 * value), `defined` (0 where an input has no value there, so the timestamp gives no point) and
 * `cut_ms`. Params: {tenant}, {s<k>} per input, {start}, {end}, {take}, the bounds of each
 * input (boundParams, completeParam), the tombstones of `form` and the queued columns of the
 * inputs that have them.
 */
export function syntheticSql(expression: Expr, inputs: readonly StatementInput[], form: TombstoneForm): string {
  const value = new ExpressionSql(inputs).compile(expression);
  if (inputs.length === 0) {
    // Constants only: no input gives a timestamp, so there is nothing to answer.
    return 'SELECT toFloat64(0) AS ts_ms, toNullable(toFloat64(0)) AS value, toUInt8(0) AS defined, toFloat64(0) AS cut_ms WHERE 0';
  }
  const stacked = inputs.map((input, k) => inputRows(input, k, form)).join('\n  UNION ALL\n  ');
  const perTimestamp = inputs.map((input, k) => `anyIf(${input.text ? 's' : 'v'}, k = ${k}) AS x${k}, maxIf(w = 1, k = ${k}) AS in${k}`).join(', ');
  const windows = inputs.map((_, k) => `anyLast(x${k}) OVER up AS p${k}, anyLast(if(isNull(x${k}), NULL, ts)) OVER up AS pt${k},
    anyLast(x${k}) OVER down AS n${k}, anyLast(if(isNull(x${k}), NULL, ts)) OVER down AS nt${k},
    sum(in${k}) OVER whole AS taken${k}, max(if(in${k} = 1, ts, NULL)) OVER whole AS last${k}`).join(',\n    ');
  const cut = `least({end:Int64}, ${inputs.map((_, k) => `if(taken${k} = {take:UInt32}, assumeNotNull(last${k}) + 1, {${completeParam(k)}:Int64})`).join(', ')})`;
  const values = inputs.map((input, k) => `${valueAt(input, k)} AS val${k}`).join(',\n    ');
  const defined = inputs.map((_, k) => `isNotNull(val${k})`).join(' AND ');
  return `SELECT toFloat64(ts) AS ts_ms, if(defined AND isFinite(out), out, NULL) AS value, defined, toFloat64(cut) AS cut_ms FROM (
  SELECT ts, cut, ${defined} AS defined, if(defined, toFloat64(${value}), nan) AS out FROM (
    SELECT ts, ${cut} AS cut, ${values}
    FROM (
      SELECT ts, ${windows}
      FROM (SELECT ts, ${perTimestamp} FROM (
  ${stacked}
      ) GROUP BY ts)
      WINDOW up AS (ORDER BY ts ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
        down AS (ORDER BY ts DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
        whole AS ()
    )
  )
  WHERE ts >= {start:Int64} AND ts < cut
)
ORDER BY ts_ms`;
}

/** Functions whose ClickHouse name and meaning are the expression's own. */
const SAME_NAME = new Set(['sin', 'cos', 'tan', 'sqrt', 'exp', 'log2', 'log10', 'abs', 'floor', 'ceil', 'pow']);

/** An expression as a ClickHouse expression over the statement's val<k> columns. */
class ExpressionSql {
  /** Aliases given to subexpressions used twice, so nesting does not double the text. */
  private aliases = 0;

  constructor(private readonly inputs: readonly StatementInput[]) {}

  compile(e: Expr): string {
    switch (e.kind) {
      case 'number':
        return `toFloat64(${literal(e.value)})`;
      case 'input':
        if (this.inputs[e.input]?.text) throw new CompileError(e.at, 'this ts{...} is a TEXT series; its values are strings, which only map(...) reads');
        return `val${e.input}`;
      case 'negate':
        return `(-${this.compile(e.arg)})`;
      case 'binary': {
        const [a, b] = [this.compile(e.left), this.compile(e.right)];
        return e.op === '^' ? `pow(${a}, ${b})` : `(${a} ${e.op} ${b})`;
      }
      case 'on_error': {
        const alias = this.alias();
        return `if(isFinite((${this.compile(e.expr)}) AS ${alias}), ${alias}, ${this.compile(e.fallback)})`;
      }
      case 'map':
        return this.map(e);
      case 'call':
        return this.call(e);
    }
  }

  private alias(): string {
    return `_e${this.aliases++}`;
  }

  private call(e: Extract<Expr, { kind: 'call' }>): string {
    const args = e.args.map((arg) => this.compile(arg));
    if (SAME_NAME.has(e.name)) return `${e.name}(${args.join(', ')})`;
    switch (e.name) {
      case 'ln': return `log(${args[0]})`;
      case 'pi': return 'pi()';
      case 'round': {
        // Half away from zero, at the given decimals (a literal from -9 to 9, expression.ts).
        const decimals = e.args[1] ? constantOf(e.args[1]) : 0;
        const x = this.alias();
        const scale = `toFloat64(${literal(10 ** decimals)})`;
        return `(if(((${args[0]}) AS ${x}) < 0, -floor(-${x} * ${scale} + 0.5), floor(${x} * ${scale} + 0.5)) / ${scale})`;
      }
      case 'sum': return `(${args.join(' + ')})`;
      case 'avg': return `((${args.join(' + ')}) / ${args.length})`;
      case 'max':
      case 'min': {
        // greatest/least pass over a NaN in some positions; an error in any argument is the result's.
        if (args.length === 1) return args[0] as string;
        const names = args.map(() => this.alias());
        const bound = args.map((a, i) => `isFinite((${a}) AS ${names[i]})`).join(' AND ');
        return `if(${bound}, ${e.name === 'max' ? 'greatest' : 'least'}(${names.join(', ')}), nan)`;
      }
    }
    throw new Error(`no SQL for ${e.name}`);
  }

  private map(e: Extract<Expr, { kind: 'map' }>): string {
    const fallback = this.compile(e.fallback);
    const to = `[${e.to.map((n) => `toFloat64(${literal(n)})`).join(', ') || ''}]::Array(Float64)`;
    const textInput = e.expr.kind === 'input' && this.inputs[e.expr.input]?.text;
    if (textInput) {
      const from = `[${e.from.map((v) => quote(String(v))).join(', ')}]::Array(String)`;
      return `transform(assumeNotNull(val${(e.expr as { input: number }).input}), ${from}, ${to}, ${fallback})`;
    }
    // A number is looked up among the numbers of the list; its strings cannot match one.
    const pairs = e.from.flatMap((v, i) => (typeof v === 'number' ? [[v, e.to[i] as number] as const] : []));
    if (pairs.length === 0) return fallback;
    const from = `[${pairs.map(([v]) => `toFloat64(${literal(v)})`).join(', ')}]::Array(Float64)`;
    const mapped = `[${pairs.map(([, t]) => `toFloat64(${literal(t)})`).join(', ')}]::Array(Float64)`;
    return `transform(${this.compile(e.expr)}, ${from}, ${mapped}, ${fallback})`;
  }
}

/** A finite double as SQL text that reads back as the same double. */
function literal(value: number): string {
  return Object.is(value, -0) ? '-0.0' : String(value);
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function constantOf(e: Expr): number {
  if (e.kind === 'number') return e.value;
  if (e.kind === 'negate') return -constantOf(e.arg);
  throw new Error('round\'s decimals are a literal (expression.ts checks)');
}
