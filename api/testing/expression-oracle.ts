// The expression language's meaning, written again apart from the engine: plain JavaScript
// over the points a test wrote (sharing no code with engine/functions), for the tests of
// synthetic queries, function calls and kept targets. Inputs are aligned on the union of
// their timestamps; a linear input is interpolated between its points, a stepwise one held;
// a value that is not finite is an error point.

export interface Point { timestamp: number; value: number | string }
export interface Series { externalId: string; valueType: 'FLOAT' | 'BIGINT' | 'TEXT'; isStep: boolean; points: Point[] }
export type Answer = { timestamp: number; value?: number; error?: string };

export type Node =
  | { n: number }
  | { input: number }
  | { neg: Node }
  | { op: '+' | '-' | '*' | '/' | '^'; a: Node; b: Node }
  | { fn: string; args: Node[]; decimals?: number }
  | { onError: Node; fallback: Node };

export function print(node: Node, names: string[]): string {
  if ('n' in node) return node.n < 0 ? `(${node.n})` : String(node.n);
  if ('input' in node) return `ts{externalId='${names[node.input]}'}`;
  // Parenthesised whole: the grammar reads -a^b as -(a^b), so an unwrapped -(a) before ^ is not this node.
  if ('neg' in node) return `(-(${print(node.neg, names)}))`;
  if ('op' in node) return `(${print(node.a, names)} ${node.op} ${print(node.b, names)})`;
  if ('onError' in node) return `on_error(${print(node.onError, names)}, ${print(node.fallback, names)})`;
  const args = node.args.map((a) => print(a, names));
  if (node.decimals !== undefined) args.push(String(node.decimals));
  return `${node.fn}(${args.join(', ')})`;
}

const finiteOr = (x: number) => (Number.isFinite(x) ? x : NaN);

export function evaluate(node: Node, values: number[]): number {
  if ('n' in node) return node.n;
  if ('input' in node) return values[node.input] as number;
  if ('neg' in node) return -evaluate(node.neg, values);
  if ('onError' in node) {
    const x = evaluate(node.onError, values);
    return Number.isFinite(x) ? x : evaluate(node.fallback, values);
  }
  if ('op' in node) {
    const [a, b] = [evaluate(node.a, values), evaluate(node.b, values)];
    switch (node.op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': return a / b;
      case '^': return Math.pow(a, b);
    }
  }
  const args = node.args.map((a) => evaluate(a, values));
  const x = args[0] as number;
  switch (node.fn) {
    case 'sin': return Math.sin(x);
    case 'cos': return Math.cos(x);
    case 'sqrt': return Math.sqrt(x);
    case 'abs': return Math.abs(x);
    case 'ln': return Math.log(x);
    case 'log10': return Math.log10(x);
    case 'floor': return Math.floor(x);
    case 'ceil': return Math.ceil(x);
    case 'pow': return Math.pow(x, args[1] as number);
    case 'round': {
      const scale = 10 ** (node.decimals ?? 0);
      return (x < 0 ? -Math.floor(-x * scale + 0.5) : Math.floor(x * scale + 0.5)) / scale;
    }
    case 'max': return args.every(Number.isFinite) ? Math.max(...args) : NaN;
    case 'min': return args.every(Number.isFinite) ? Math.min(...args) : NaN;
    case 'sum': return finiteOr(args.reduce((s, v) => s + v, 0));
    case 'avg': return finiteOr(args.reduce((s, v) => s + v, 0)) / args.length;
  }
  throw new Error(`no reference for ${node.fn}`);
}

/** An input's value at `t`: its point there, else held (stepwise) or on the line between its neighbours (linear); undefined outside its points. */
export function valueAt(series: Series, t: number): number | undefined {
  const points = [...series.points].sort((a, b) => a.timestamp - b.timestamp);
  let before: Point | undefined;
  let after: Point | undefined;
  for (const p of points) {
    if (p.timestamp <= t) before = p;
    if (p.timestamp >= t && after === undefined) after = p;
  }
  if (!before) return undefined;
  if (before.timestamp === t || series.isStep) return Number(before.value);
  if (!after) return undefined;
  const [p, n] = [Number(before.value), Number(after.value)];
  return p + (n - p) * ((t - before.timestamp) / (after.timestamp - before.timestamp));
}

export function expected(node: Node, series: Series[], used: number[], start: number, end: number, limit: number): Answer[] {
  const grid = [...new Set(used.flatMap((k) => series[k]!.points.map((p) => p.timestamp)))].filter((ts) => ts >= start && ts < end).sort((a, b) => a - b);
  const out: Answer[] = [];
  for (const ts of grid) {
    const values = series.map((s) => valueAt(s, ts));
    if (used.some((k) => values[k] === undefined)) continue;
    const v = evaluate(node, values as number[]);
    out.push(Number.isFinite(v) ? { timestamp: ts, value: v } : { timestamp: ts, error: 'x' });
    if (out.length === limit) break;
  }
  return out;
}

export function inputsOf(node: Node): number[] {
  if ('input' in node) return [node.input];
  if ('n' in node) return [];
  if ('neg' in node) return inputsOf(node.neg);
  if ('op' in node) return [...inputsOf(node.a), ...inputsOf(node.b)];
  if ('onError' in node) return [...inputsOf(node.onError), ...inputsOf(node.fallback)];
  return node.args.flatMap(inputsOf);
}

export function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

export function sameAnswers(got: Answer[], want: Answer[]): string | undefined {
  if (got.length !== want.length) return `${got.length} points, expected ${want.length}`;
  for (let i = 0; i < got.length; i++) {
    const [g, w] = [got[i]!, want[i]!];
    if (g.timestamp !== w.timestamp) return `point ${i} at ${g.timestamp}, expected ${w.timestamp}`;
    if ((g.error !== undefined) !== (w.error !== undefined)) return `point ${i} at ${g.timestamp}: ${JSON.stringify(g)}, expected ${JSON.stringify(w)}`;
    if (w.value !== undefined && !close(g.value as number, w.value)) return `point ${i} at ${g.timestamp}: ${g.value}, expected ${w.value}`;
  }
  return undefined;
}

