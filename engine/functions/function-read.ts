// Function reads: the list (newest created first, keyset cursor, `dataSetId` with its
// descendants) and byids, and the lookup the writes share. As with time series, a function
// in a data set the caller cannot read behaves as missing everywhere.
import { BadRequestError, NotFoundError, type Identifier } from '../errors.ts';
import { canRead, readableIds, type Access } from '../grants/access.ts';
import { resolveDataSetFilter } from '../meta/node-filter.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import { resolveIdentifiers, type RecordFamily, type Resolved } from '../records/identifiers.ts';
import type { Queryable } from '../stores/queryable.ts';
import { FUNCTIONS_BY_KEYS, FUNCTIONS_BY_KEYS_FOR_UPDATE, LIST_FUNCTIONS } from './function-read.sql.ts';
import { toFunctionRecord, type FunctionPage, type FunctionRecord, type FunctionRow } from './function-records.ts';

const FUNCTION_FAMILY: RecordFamily<FunctionRow> = {
  async fetch(db, tenant, ids, externalIds, forUpdate) {
    return (await db.query<FunctionRow>(forUpdate ? FUNCTIONS_BY_KEYS_FOR_UPDATE : FUNCTIONS_BY_KEYS, [tenant, ids, externalIds])).rows;
  },
  idOf: (row) => row.id,
  externalIdOf: (row) => row.external_id,
};

export function canReadFunction(access: Access, row: FunctionRow): boolean {
  return canRead(access, row.data_set_id);
}

/**
 * Resolves identifiers to the functions the caller may read (others are misses, as unknown
 * ones are); an identifier with neither field, or both naming different functions, is a 400.
 */
export async function lookupFunctions(db: Queryable, access: Access, identifiers: readonly Identifier[], forUpdate = false): Promise<Resolved<FunctionRow>[]> {
  return resolveIdentifiers(FUNCTION_FAMILY, db, access.tenant, identifiers, { forUpdate, visible: (row) => canReadFunction(access, row) });
}

/** Misses as the request named them (unknown and unreadable alike), for a 404. */
export function missingFunctionsError(missing: readonly Identifier[]): NotFoundError {
  const listed = missing.map((i): Identifier => (i.externalId !== undefined ? { externalId: i.externalId } : { id: i.id as number }));
  return new NotFoundError(`Functions not found: ${listed.slice(0, 10).map((m) => m.externalId ?? m.id).join(', ')}${listed.length > 10 ? ` (and ${listed.length - 10} more)` : ''}`, listed);
}

/**
 * Readable functions in request order, each once. A miss is omitted with `ignoreUnknownIds`,
 * else a NotFoundError listing every miss.
 */
export async function functionsByIds(db: Queryable, access: Access, identifiers: readonly Identifier[], ignoreUnknownIds: boolean): Promise<FunctionRecord[]> {
  const resolved = await lookupFunctions(db, access, identifiers);
  const missing = resolved.filter((r) => !r.row).map((r) => r.identifier as Identifier);
  if (missing.length > 0 && !ignoreUnknownIds) throw missingFunctionsError(missing);
  const seen = new Set<number>();
  const out: FunctionRecord[] = [];
  for (const { row } of resolved) {
    if (!row || seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(toFunctionRecord(row));
  }
  return out;
}

/** The last row of a page: its created time and id. */
interface ListPosition {
  t: number;
  i: number;
}

const isListPosition = (state: unknown): state is ListPosition => {
  if (typeof state !== 'object' || state === null) return false;
  const { t, i } = state as Record<string, unknown>;
  return Number.isSafeInteger(t) && Number.isSafeInteger(i);
};

/** The one sort of the list is bound into the context, so a later sort option cannot misread a cursor. */
const listCursors = cursorCodec('functions-list', 1, isListPosition);
const LIST_SORT = 'createdTime:desc';

/** Above every row: the first page's position (created times and ids are at most 2^53-1). */
const FIRST_PAGE: ListPosition = { t: Number.MAX_SAFE_INTEGER, i: Number.MAX_SAFE_INTEGER };

/** As GET /timeseries: a cursor this list did not issue is a 400 naming it. */
function listFunctionsPosition(cursor: string | undefined): ListPosition {
  if (cursor === undefined) return FIRST_PAGE;
  const decoded = listCursors.decode(cursor, LIST_SORT);
  if (!decoded.ok) throw new BadRequestError('cursor is not one this list issued', [{ field: 'cursor', message: 'undecodable' }]);
  return decoded.state;
}

/** One page, newest created first; `dataSetId` includes descendants, unreadable data sets are silently omitted. */
export async function listFunctions(db: Queryable, access: Access, query: { dataSetId?: number; limit: number; cursor?: string }): Promise<FunctionPage> {
  const after = listFunctionsPosition(query.cursor);
  const dataSetIds = query.dataSetId === undefined ? null : await resolveDataSetFilter(db, access, { id: query.dataSetId }) ?? null;
  const { rows } = await db.query<FunctionRow>(LIST_FUNCTIONS, [access.tenant, readableIds(access), dataSetIds, after.t, after.i, query.limit + 1]);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  const items = page.map(toFunctionRecord);
  return rows.length > query.limit && last ? { items, nextCursor: listCursors.encode({ t: last.created_time, i: last.id }, LIST_SORT) } : { items };
}
