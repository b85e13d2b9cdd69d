// The trees of the expression language (expression.ts parses, expression-checks.ts checks):
// the raw tree as written, the checked tree evaluation compiles, the inputs it reads and the
// functions it knows. Every node keeps the character offset it starts at.
import { FUNCTION_INPUTS_MAX } from '../limits.ts';

/** A time series an expression reads: by id or externalId, raw or as one CDF aggregate. */
export interface InputRef {
  externalId?: string;
  id?: number;
  /** A CDF aggregate name (`average`, `interpolation`, ...); with `granularity`, or neither. */
  aggregate?: string;
  granularity?: string;
  /** Where the aggregate's buckets start, epoch milliseconds. @default 0 */
  alignment?: number;
}

export type Expr =
  | { kind: 'number'; at: number; value: number }
  /** `input` indexes the expression's `inputs`: one entry per distinct reference. */
  | { kind: 'input'; at: number; input: number }
  | { kind: 'negate'; at: number; arg: Expr }
  | { kind: 'binary'; at: number; op: BinaryOp; left: Expr; right: Expr }
  | { kind: 'call'; at: number; name: CallName; args: Expr[] }
  | { kind: 'on_error'; at: number; expr: Expr; fallback: Expr }
  /** map(expr, [from...], [to...], default): an input's value (text or number) looked up in `from`. */
  | { kind: 'map'; at: number; expr: Expr; from: (string | number)[]; to: number[]; fallback: Expr };

export type BinaryOp = '+' | '-' | '*' | '/' | '^';

/** Functions of one or more numbers, by how many arguments each takes. */
export const CALLS = {
  sin: [1, 1], cos: [1, 1], tan: [1, 1], sqrt: [1, 1], exp: [1, 1], ln: [1, 1], log2: [1, 1], log10: [1, 1],
  abs: [1, 1], floor: [1, 1], ceil: [1, 1], round: [1, 2], pow: [2, 2], pi: [0, 0],
  max: [1, FUNCTION_INPUTS_MAX], min: [1, FUNCTION_INPUTS_MAX], avg: [1, FUNCTION_INPUTS_MAX], sum: [1, FUNCTION_INPUTS_MAX],
} as const satisfies Record<string, readonly [number, number]>;
export type CallName = keyof typeof CALLS;

/** A call or input as written, before its name and arguments are checked. */
export type Raw =
  | { kind: 'number'; at: number; value: number }
  | { kind: 'input'; at: number; pairs: { key: string; keyAt: number; value: string | number; valueAt: number }[] }
  | { kind: 'negate'; at: number; arg: Raw }
  | { kind: 'binary'; at: number; op: BinaryOp; left: Raw; right: Raw }
  | { kind: 'call'; at: number; name: string; args: Raw[] }
  | { kind: 'list'; at: number; items: { value: string | number; at: number }[] };
