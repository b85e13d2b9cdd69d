// The checks an expression's tree passes after it parses (expression.ts): function names and
// argument counts, map's lists, round's decimals, and each ts{...}'s keys, which become the
// expression's inputs (one per distinct reference, at most FUNCTION_INPUTS_MAX). A failed
// check is an ExpressionError naming the character offset it concerns.
import { CDF_AGGREGATES } from '../datapoints/read/cdf-pieces.ts';
import { parseGranularity } from '../datapoints/read/aggregate-grid.ts';
import { FUNCTION_INPUTS_MAX } from '../limits.ts';
import { CALLS, type CallName, type Expr, type InputRef, type Raw } from './expression-tree.ts';


export class ExpressionError extends Error {
  constructor(readonly position: number, message: string) {
    super(message);
  }
}

/** The checked tree of `raw` and the inputs it reads; throws ExpressionError. */
export function checkTree(raw: Raw): { expression: Expr; inputs: InputRef[] } {
  const into: Inputs = { inputs: [], keys: new Map() };
  return { expression: check(raw, into), inputs: into.inputs };
}

interface Inputs {
  inputs: InputRef[];
  keys: Map<string, number>;
}

const INPUT_KEYS = ['externalId', 'id', 'aggregate', 'granularity', 'alignment'] as const;

function check(raw: Raw, into: Inputs): Expr {
  switch (raw.kind) {
    case 'number':
      if (!Number.isFinite(raw.value)) throw new ExpressionError(raw.at, 'the number is beyond the range of a double');
      return raw;
    case 'negate':
      return { kind: 'negate', at: raw.at, arg: check(raw.arg, into) };
    case 'binary':
      return { kind: 'binary', at: raw.at, op: raw.op, left: check(raw.left, into), right: check(raw.right, into) };
    case 'input':
      return { kind: 'input', at: raw.at, input: inputOf(raw, into) };
    case 'list':
      throw new ExpressionError(raw.at, 'a [list] is only an argument of map(expression, [from...], [to...], default)');
    case 'call':
      return checkCall(raw, into);
  }
}

function checkCall(raw: Extract<Raw, { kind: 'call' }>, into: Inputs): Expr {
  const name = raw.name.toLowerCase();
  const count = raw.args.length;
  if (name === 'on_error') {
    if (count !== 2) throw new ExpressionError(raw.at, `on_error takes 2 arguments (expression, default), got ${count}`);
    return { kind: 'on_error', at: raw.at, expr: check(raw.args[0]!, into), fallback: check(raw.args[1]!, into) };
  }
  if (name === 'map') {
    const [value, from, to, fallback] = raw.args;
    if (count !== 4) throw new ExpressionError(raw.at, `map takes 4 arguments (expression, [from...], [to...], default), got ${count}`);
    if (from!.kind !== 'list') throw new ExpressionError(from!.at, 'expected the [list] of values to map from');
    if (to!.kind !== 'list') throw new ExpressionError(to!.at, 'expected the [list] of numbers to map to');
    if (from!.items.length !== to!.items.length) throw new ExpressionError(to!.at, `the lists to map from and to differ in length (${from!.items.length} and ${to!.items.length})`);
    const numbers = to!.items.map((item) => {
      if (typeof item.value !== 'number') throw new ExpressionError(item.at, 'expected a number to map to');
      return item.value;
    });
    return { kind: 'map', at: raw.at, expr: check(value!, into), from: from!.items.map((item) => item.value), to: numbers, fallback: check(fallback!, into) };
  }
  if (!Object.hasOwn(CALLS, name)) {
    throw new ExpressionError(raw.at, `unknown function ${raw.name}; the functions are ${[...Object.keys(CALLS), 'on_error', 'map'].join(', ')}`);
  }
  const [least, most] = CALLS[name as CallName];
  if (count < least || count > most) {
    const takes = least === most ? `${least}` : most === FUNCTION_INPUTS_MAX ? `at least ${least}` : `${least} or ${most}`;
    throw new ExpressionError(raw.at, `${name} takes ${takes} argument${least === 1 && most !== 2 ? '' : 's'}, got ${count}`);
  }
  if (name === 'round' && count === 2) {
    const decimals = raw.args[1]!;
    if (decimals.kind !== 'number' && !(decimals.kind === 'negate' && decimals.arg.kind === 'number')) {
      throw new ExpressionError(decimals.at, 'round\'s decimals are a number from -9 to 9');
    }
    const value = decimals.kind === 'number' ? decimals.value : -(decimals.arg as { value: number }).value;
    if (!Number.isInteger(value) || value < -9 || value > 9) throw new ExpressionError(decimals.at, 'round\'s decimals are a whole number from -9 to 9');
  }
  return { kind: 'call', at: raw.at, name: name as CallName, args: raw.args.map((arg) => check(arg, into)) };
}

function inputOf(raw: Extract<Raw, { kind: 'input' }>, into: Inputs): number {
  const ref: InputRef = {};
  for (const pair of raw.pairs) {
    const key = INPUT_KEYS.find((k) => k.toLowerCase() === pair.key.toLowerCase());
    if (!key) throw new ExpressionError(pair.keyAt, `unknown key ${pair.key} in ts{...}; the keys are ${INPUT_KEYS.join(', ')}`);
    if (ref[key] !== undefined) throw new ExpressionError(pair.keyAt, `${key} is given twice`);
    switch (key) {
      case 'externalId':
      case 'aggregate':
      case 'granularity':
        if (typeof pair.value !== 'string' || pair.value.length === 0) throw new ExpressionError(pair.valueAt, `${key} is a non-empty quoted string`);
        ref[key] = pair.value;
        break;
      case 'id':
      case 'alignment':
        if (typeof pair.value !== 'number' || !Number.isSafeInteger(pair.value) || (key === 'id' && pair.value < 1)) {
          throw new ExpressionError(pair.valueAt, key === 'id' ? 'id is a whole number from 1' : 'alignment is whole epoch milliseconds');
        }
        ref[key] = pair.value;
        break;
    }
  }
  if ((ref.id === undefined) === (ref.externalId === undefined)) throw new ExpressionError(raw.at, 'ts{...} names its time series by one of id or externalId');
  if ((ref.aggregate === undefined) !== (ref.granularity === undefined)) throw new ExpressionError(raw.at, 'ts{...} gives aggregate and granularity together, or neither');
  if (ref.alignment !== undefined && ref.aggregate === undefined) throw new ExpressionError(raw.at, 'alignment applies to an aggregate; give aggregate and granularity');
  if (ref.aggregate !== undefined && !(CDF_AGGREGATES as readonly string[]).includes(ref.aggregate)) {
    throw new ExpressionError(raw.at, `unknown aggregate ${ref.aggregate}; the aggregates are ${CDF_AGGREGATES.join(', ')}`);
  }
  if (ref.granularity !== undefined) {
    try {
      parseGranularity(ref.granularity);
    } catch (error) {
      throw new ExpressionError(raw.at, (error as Error).message);
    }
  }
  const key = JSON.stringify([ref.id ?? null, ref.externalId ?? null, ref.aggregate ?? null, ref.granularity ?? null, ref.alignment ?? 0]);
  let index = into.keys.get(key);
  if (index === undefined) {
    if (into.inputs.length === FUNCTION_INPUTS_MAX) throw new ExpressionError(raw.at, `the expression reads more than ${FUNCTION_INPUTS_MAX} time series`);
    into.keys.set(key, (index = into.inputs.length));
    into.inputs.push(ref);
  }
  return index;
}
