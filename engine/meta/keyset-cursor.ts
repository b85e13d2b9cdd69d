// Keyset paging over one sort property with `id` appended (SPEC time series filter): the
// cursor carries the last row's sort key, so each record is visited exactly once even while
// records are inserted or deleted between pages. Nullable properties sort with nulls last
// ascending and first descending; they are compared as (isNull, coalesced value, id).
import { BadRequestError } from '../errors.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import type { SortColumn } from './keyset-cursor.sql.ts';

export type { SortColumn };

export interface SortSpec {
  property: string;
  order: 'asc' | 'desc';
}

/** The last row's sort key: whether its value was null, the value, and its id. */
export interface CursorState {
  n: boolean;
  v: string | number | null;
  i: number;
}

function isCursorState(state: unknown): state is CursorState {
  if (typeof state !== 'object' || state === null) return false;
  const { n, v, i } = state as Record<string, unknown>;
  return typeof n === 'boolean' && (v === null || typeof v === 'string' || typeof v === 'number') && Number.isSafeInteger(i);
}

/** The context binds a cursor to its sort: `${property}:${order}`. */
const timeSeriesCursors = cursorCodec('timeseries-filter', 1, isCursorState);
const sortContext = (sort: SortSpec) => `${sort.property}:${sort.order}`;

export function encodeCursor(sort: SortSpec, value: string | number | null, id: number): string {
  return timeSeriesCursors.encode({ n: value === null, v: value, i: id }, sortContext(sort));
}

/** The cursor's value is bound into SQL: one that does not fit the sort column is a 400, never a store error. */
function fitsColumn(state: CursorState, col: SortColumn): boolean {
  if (state.n) return state.v === null;
  return col.kind === 'number' ? Number.isSafeInteger(state.v) : typeof state.v === 'string' && !state.v.includes('\u0000');
}

/** Time series policy: every refused cursor is a 400 (a cursor of another sort says so). */
export function decodeCursor(cursor: string, sort: SortSpec, col: SortColumn): CursorState {
  const decoded = timeSeriesCursors.decode(cursor, sortContext(sort));
  if (!decoded.ok && decoded.reason === 'context') {
    throw new BadRequestError('cursor was issued for another sort; send the same sort as the first page', [{ field: 'cursor', message: `issued for sort ${decoded.issuedFor}` }]);
  }
  if (!decoded.ok || !fitsColumn(decoded.state, col)) {
    throw new BadRequestError('cursor is not one this service issued', [{ field: 'cursor', message: 'undecodable' }]);
  }
  return decoded.state;
}

export { afterCursor, orderBy } from './keyset-cursor.sql.ts';
