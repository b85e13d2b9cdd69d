// Keyset paging over one sort property with `id` appended (SPEC time series filter): the
// cursor carries the last row's sort key, so each record is visited exactly once even while
// records are inserted or deleted between pages. Nullable properties sort with nulls last
// ascending and first descending; they are compared as (isNull, coalesced value, id).
import { BadRequestError } from '../errors.ts';
import type { SqlParams } from '../stores/sql-params.ts';

export interface SortColumn {
  /** SQL column; comes only from a fixed allow-list. */
  column: string;
  nullable: boolean;
  kind: 'text' | 'number';
}

export interface SortSpec {
  property: string;
  order: 'asc' | 'desc';
}

interface CursorState {
  s: string; // `${property}:${order}`
  n: boolean; // last row's value was null
  v: string | number | null;
  i: number;
}

export function encodeCursor(sort: SortSpec, value: string | number | null, id: number): string {
  const state: CursorState = { s: `${sort.property}:${sort.order}`, n: value === null, v: value, i: id };
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

function isCursorState(state: unknown): state is CursorState {
  if (typeof state !== 'object' || state === null) return false;
  const { s, n, i } = state as Record<string, unknown>;
  return typeof s === 'string' && typeof n === 'boolean' && Number.isSafeInteger(i);
}

/** The cursor's value is bound into SQL: one that does not fit the sort column is a 400, never a store error. */
function fitsColumn(state: CursorState, col: SortColumn): boolean {
  if (state.n) return state.v === null;
  return col.kind === 'number' ? Number.isSafeInteger(state.v) : typeof state.v === 'string' && !state.v.includes('\u0000');
}

export function decodeCursor(cursor: string, sort: SortSpec, col: SortColumn): CursorState {
  const undecodable = () => new BadRequestError('cursor is not one this service issued', [{ field: 'cursor', message: 'undecodable' }]);
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw undecodable();
  }
  if (!isCursorState(state)) throw undecodable();
  if (state.s !== `${sort.property}:${sort.order}`) {
    throw new BadRequestError('cursor was issued for another sort; send the same sort as the first page', [{ field: 'cursor', message: `issued for sort ${state.s}` }]);
  }
  if (!fitsColumn(state, col)) throw undecodable();
  return state;
}

function coalesced(col: SortColumn): string {
  if (!col.nullable) return col.column;
  return col.kind === 'text' ? `COALESCE(${col.column}, '')` : `COALESCE(${col.column}, 0)`;
}

/** ORDER BY text for the sort, with the id tie-break. */
export function orderBy(col: SortColumn, order: 'asc' | 'desc'): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const keys = col.nullable ? [`(${col.column} IS NULL)`, coalesced(col), 'id'] : [col.column, 'id'];
  return keys.map((k) => `${k} ${dir}`).join(', ');
}

/** WHERE part selecting rows strictly after the cursor's row. */
export function afterCursor(params: SqlParams, col: SortColumn, order: 'asc' | 'desc', state: CursorState): string {
  const op = order === 'asc' ? '>' : '<';
  const value = state.n ? (col.kind === 'text' ? '' : 0) : state.v;
  const cast = col.kind === 'text' ? '::text' : '::bigint';
  if (col.nullable) {
    return `((${col.column} IS NULL), ${coalesced(col)}, id) ${op} (${params.bind(state.n)}::boolean, ${params.bind(value)}${cast}, ${params.bind(state.i)}::bigint)`;
  }
  return `(${col.column}, id) ${op} (${params.bind(value)}${cast}, ${params.bind(state.i)}::bigint)`;
}
