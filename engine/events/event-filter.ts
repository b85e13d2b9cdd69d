// The event filter, advanced filter, sort and paging rules of SPEC "Events", exactly, odd ones
// included: list entries OR-ed (metadata and relatedResources AND-ed), externalId literals
// case-sensitive, eventTime max exclusive, an explicit empty dataSetId list matching nothing;
// advanced filter leaves over a fixed property list compared as strings, reading only the
// first entry of `property`; a non-sortable property ignored, any order but exactly `desc`
// ascending, nulls last ascending and first descending; an undecodable cursor restarting, a
// cursor of another sort answering an empty page, sorting by subType or status not paged.
import type { EventFilter } from '../../schemas/events.ts';
import { BadRequestError } from '../errors.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { DESCENDANT_DATA_SETS } from '../grants/access.sql.ts';
import { parseInstant } from '../records/instant.ts';
import { lookupAnyNodes } from '../meta/node-lookup.ts';
import { and, metadataPredicate, rangePredicate, readableIdsPredicate } from '../meta/node-filter.sql.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import { asList, patternPredicate } from '../records/patterns.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { SqlParams } from '../stores/sql-params.ts';

/** SPEC: default 100, max 10 000; zero or negative falls back to 100. */
export const EVENT_FILTER_LIMIT_DEFAULT = 100;

export function eventLimit(limit: number | undefined): number {
  return limit === undefined || limit <= 0 ? EVENT_FILTER_LIMIT_DEFAULT : limit;
}

const nodeId = (value: number | string): number => Number(value);

/** Every readable event: events without a data set, or in a readable one. */
export function readableEvents(params: SqlParams, access: Access): string | undefined {
  return readableIdsPredicate(params, readableIds(access));
}

async function dataSetPredicate(db: Queryable, params: SqlParams, access: Access, refs: EventFilter['dataSetId']): Promise<string | undefined> {
  if (refs === undefined || refs === null) return undefined;
  const list = asList(refs) ?? [];
  if (list.length === 0) return 'false';
  const ids = list.flatMap((r) => ('id' in r ? [nodeId(r.id)] : []));
  const externalIds = list.flatMap((r) => ('externalId' in r ? [r.externalId] : []));
  const { rows } = await db.query<{ id: number }>(DESCENDANT_DATA_SETS, [access.tenant, ids, externalIds]);
  return `data_set_id = ANY(${params.bind(rows.map((r) => r.id))}::bigint[])`;
}

/** SPEC rule 6 with rule 1: every related resource entry must match (AND). An unknown one matches nothing. */
async function relatedPredicate(db: Queryable, params: SqlParams, access: Access, refs: EventFilter['relatedResources']): Promise<string | undefined> {
  const list = asList(refs);
  if (!list) return undefined;
  if (list.length === 0) return undefined;
  const ids = list.flatMap((r) => ('id' in r ? [nodeId(r.id)] : []));
  const externalIds = list.flatMap((r) => ('externalId' in r ? [r.externalId] : []));
  const found = await lookupAnyNodes(db, access.tenant, ids, externalIds);
  const byExternalId = new Map(found.map((n) => [n.external_id, n.id]));
  const wanted: number[] = [];
  for (const r of list) {
    const id = 'id' in r ? nodeId(r.id) : byExternalId.get(r.externalId);
    if (id === undefined) return 'false';
    wanted.push(id);
  }
  return `related_ids @> ${params.bind(wanted)}::bigint[]`;
}

/** The `filter` block as a WHERE part (values bound). */
export async function eventFilterWhere(db: Queryable, params: SqlParams, access: Access, filter: EventFilter = {}): Promise<string> {
  const eventTime = filter.eventTime;
  const min = parseInstant(eventTime?.min, 'filter.eventTime.min');
  const max = parseInstant(eventTime?.max, 'filter.eventTime.max');
  return and([
    patternPredicate(params, 'external_id', filter.externalId, { literalCaseSensitive: true }),
    patternPredicate(params, 'type', filter.type),
    patternPredicate(params, 'sub_type', filter.subType),
    patternPredicate(params, 'status', filter.status),
    patternPredicate(params, 'source', filter.source),
    // SPEC rule 1: a list of metadata objects is AND-ed, every entry must match.
    and((asList(filter.metadata) ?? []).map((pairs) => metadataPredicate(params, pairs))),
    await dataSetPredicate(db, params, access, filter.dataSetId),
    await relatedPredicate(db, params, access, filter.relatedResources),
    min !== undefined ? `event_time >= ${params.bind(min)}` : undefined,
    max !== undefined ? `event_time < ${params.bind(max)}` : undefined,
    rangePredicate(params, 'created_time', filter.createdTime),
    rangePredicate(params, 'last_updated_time', filter.lastUpdatedTime),
  ]);
}

/** SPEC: the advanced filter's properties, each as the text it compares. */
const ADVANCED_PROPERTIES: Readonly<Record<string, string>> = {
  id: 'id::text',
  externalId: 'external_id',
  type: 'type',
  subType: 'sub_type',
  source: 'source',
  dataSetId: 'data_set_id::text',
  metadata: 'metadata',
};

const LEAVES = ['equals', 'prefix', 'in'] as const;
const COMBINATORS = ['and', 'or', 'not'] as const;
/** Nesting past this is a 400: the filter is compiled recursively. */
const ADVANCED_DEPTH_MAX = 16;

function advancedProblem(path: string, message: string, value?: unknown): BadRequestError {
  return new BadRequestError(`Invalid advancedFilter: ${path}: ${message}`, [{ field: path, message, ...(value !== undefined ? { value } : {}) }]);
}

const asText = (value: unknown, path: string): string => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw advancedProblem(path, 'values compare as strings: give a string or a number', value);
};

type Combinator = (typeof COMBINATORS)[number];
type Leaf = (typeof LEAVES)[number];
type LeafBody = { property?: unknown; value?: unknown; values?: unknown };

/** One node's operator and body, checked: exactly one known key. */
function advancedOp(node: unknown, path: string): { op: Combinator | Leaf; body: unknown } {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) throw advancedProblem(path, 'must be an object with one of and, or, not, equals, prefix, in');
  const keys = Object.keys(node);
  const op = keys[0];
  if (keys.length !== 1 || op === undefined || !([...LEAVES, ...COMBINATORS] as readonly string[]).includes(op)) {
    throw advancedProblem(path, 'must have exactly one of and, or, not, equals, prefix, in', keys.join(', '));
  }
  return { op: op as Combinator | Leaf, body: (node as Record<string, unknown>)[op] };
}

/**
 * One advanced filter node as SQL. A leaf on `metadata` (only the first entry of `property` is
 * read, so no key can be named) matches an event having any metadata value that compares.
 *
 * A leaf on a null column is NULL, not false, and stays bare so that an index on the column
 * serves it: under AND and OR a NULL leaf acts as false (both are monotone, so Kleene's
 * three values give what false would), and `not` folds its operand's NULL to false before
 * negating, as SPEC's "not matching" asks.
 */
export function advancedWhere(params: SqlParams, node: unknown, path = 'advancedFilter', depth = 0): string {
  if (depth > ADVANCED_DEPTH_MAX) throw advancedProblem(path, `nested deeper than ${ADVANCED_DEPTH_MAX}`);
  const { op, body } = advancedOp(node, path);
  if (op === 'and' || op === 'or') {
    if (!Array.isArray(body) || body.length === 0) throw advancedProblem(`${path}.${op}`, 'must be a non-empty list');
    return `(${body.map((child, k) => advancedWhere(params, child, `${path}.${op}.${k}`, depth + 1)).join(op === 'and' ? ' AND ' : ' OR ')})`;
  }
  if (op === 'not') return `NOT coalesce(${advancedWhere(params, body, `${path}.not`, depth + 1)}, false)`;
  if (typeof body !== 'object' || body === null) throw advancedProblem(`${path}.${op}`, 'must be { property, value } (or values for in)');
  const leaf = body as LeafBody;
  const property = Array.isArray(leaf.property) ? leaf.property[0] : undefined;
  if (typeof property !== 'string') throw advancedProblem(`${path}.${op}.property`, 'must be a list whose first entry names a property', leaf.property);
  const column = ADVANCED_PROPERTIES[property];
  if (!column) throw new BadRequestError(`advancedFilter cannot filter on ${property}; filterable: ${Object.keys(ADVANCED_PROPERTIES).join(', ')}`, [{ field: `${path}.${op}.property`, message: 'not a filterable property', value: property }]);
  const compare = (sql: (text: string) => string) => (property === 'metadata'
    ? `EXISTS (SELECT 1 FROM jsonb_each_text(metadata) AS m(k, v) WHERE ${sql('m.v')})`
    : sql(column));
  if (op === 'equals') {
    const value = params.bind(asText(leaf.value, `${path}.equals.value`));
    return compare((c) => `${c} = ${value}`);
  }
  if (op === 'prefix') {
    const value = params.bind(asText(leaf.value, `${path}.prefix.value`));
    return compare((c) => `starts_with(${c}, ${value})`);
  }
  if (!Array.isArray(leaf.values)) throw advancedProblem(`${path}.in.values`, 'must be a list');
  const values = params.bind(leaf.values.map((v, k) => asText(v, `${path}.in.values.${k}`)));
  return compare((c) => `${c} = ANY(${values}::text[])`);
}

/** Branches past which an advanced filter is not split (each is one more index scan of up to a page). */
export const ADVANCED_BRANCHES_MAX = 8;

/**
 * The advanced filter (already checked by advancedWhere) as OR-ed branches, each one a
 * conjunction an index may serve in the page's order: `or` lists its children's branches,
 * `and` distributes over them, `in` on a column is one equality per value. PostgreSQL keeps
 * no index order across an OR (a page of `type in (a, b) or externalId prefix p` walks the
 * eventTime index past every event matching neither), but each branch alone is an ordered
 * scan of its own index that stops at a page. A node whose split would pass `max` branches
 * stays one branch.
 */
export function advancedBranches(params: SqlParams, node: unknown, max = ADVANCED_BRANCHES_MAX): string[] {
  const { op, body } = advancedOp(node, 'advancedFilter');
  const bound = params.values.length;
  // Values the dropped split had bound go with it: a statement must use every placeholder.
  const whole = () => (params.truncate(bound), [advancedWhere(params, node)]);
  if (op === 'or' && Array.isArray(body)) {
    const branches = body.flatMap((child) => advancedBranches(params, child, max));
    return branches.length <= max ? branches : whole();
  }
  if (op === 'and' && Array.isArray(body)) {
    let branches = [''];
    for (const child of body) {
      const parts = advancedBranches(params, child, max);
      if (branches.length * parts.length > max) return whole();
      branches = branches.flatMap((b) => parts.map((p) => (b ? `${b} AND ${p}` : p)));
    }
    return branches.map((b) => `(${b})`);
  }
  const leaf = body as LeafBody;
  const property = Array.isArray(leaf?.property) ? leaf.property[0] : undefined;
  if (op === 'in' && property !== 'metadata' && Array.isArray(leaf.values) && leaf.values.length > 1 && leaf.values.length <= max) {
    return leaf.values.map((value) => advancedWhere(params, { equals: { property: [property], value } }));
  }
  return whole();
}

/** SPEC: the sortable properties; a null-able one sorts nulls last ascending, first descending. */
const SORT_COLUMNS: Readonly<Record<string, { column: string; kind: 'number' | 'text' }>> = {
  eventTime: { column: 'event_time', kind: 'number' },
  createdTime: { column: 'created_time', kind: 'number' },
  lastUpdatedTime: { column: 'last_updated_time', kind: 'number' },
  externalId: { column: 'external_id', kind: 'text' },
  type: { column: 'type', kind: 'text' },
  subType: { column: 'sub_type', kind: 'text' },
  status: { column: 'status', kind: 'text' },
  source: { column: 'source', kind: 'text' },
  dataSetId: { column: 'data_set_id', kind: 'number' },
};
/** SPEC: sorting by these cannot be paged. */
const UNPAGED_SORTS = new Set(['subType', 'status']);

export interface EventSort {
  property: string;
  order: 'asc' | 'desc';
  column: string;
  kind: 'number' | 'text';
  paged: boolean;
}

/** SPEC: only the first property is used; a non-sortable one is ignored; any order but exactly `desc` is ascending. */
export function eventSort(sort: unknown): EventSort {
  const first = (Array.isArray(sort) ? sort[0] : sort) as { property?: unknown; order?: unknown } | undefined;
  const raw = first && typeof first === 'object' ? first.property : undefined;
  const property = Array.isArray(raw) ? raw[0] : raw;
  const order = first && typeof first === 'object' && first.order === 'desc' ? 'desc' : 'asc';
  const known = typeof property === 'string' ? SORT_COLUMNS[property] : undefined;
  if (!known || typeof property !== 'string') return { property: 'eventTime', order: known ? order : 'asc', ...SORT_COLUMNS['eventTime'] as { column: string; kind: 'number' }, paged: true };
  return { property, order, ...known, paged: !UNPAGED_SORTS.has(property) };
}

/** ORDER BY with id appended; PostgreSQL's own NULLS LAST (ASC) / NULLS FIRST (DESC) are SPEC's. */
export function eventOrderBy(sort: EventSort): string {
  const dir = sort.order === 'desc' ? 'DESC' : 'ASC';
  return `${sort.column} ${dir}, id ${dir}`;
}

interface EventCursorState {
  /** The last row's sort value (null when it had none) and id. */
  v: string | number | null;
  i: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isState = (s: unknown): s is EventCursorState => {
  if (typeof s !== 'object' || s === null) return false;
  const { v, i } = s as Record<string, unknown>;
  return typeof i === 'string' && UUID.test(i) && (v === null || (typeof v === 'string' && !v.includes('\u0000')) || Number.isSafeInteger(v));
};
const cursors = cursorCodec('events-filter', 1, isState);
const sortContext = (sort: EventSort) => `${sort.property}:${sort.order}`;

export function encodeEventCursor(sort: EventSort, value: string | number | null, id: string): string {
  return cursors.encode({ v: value, i: id }, sortContext(sort));
}

/** SPEC: an undecodable cursor restarts ('restart'); one of another sort answers an empty page ('empty'). */
export function decodeEventCursor(cursor: string | undefined, sort: EventSort): EventCursorState | 'restart' | 'empty' {
  if (cursor === undefined || cursor === '') return 'restart';
  const decoded = cursors.decode(cursor, sortContext(sort));
  if (decoded.ok) return decoded.state.v === null || typeof decoded.state.v === (sort.kind === 'number' ? 'number' : 'string') ? decoded.state : 'restart';
  return decoded.reason === 'context' ? 'empty' : 'restart';
}

/** Rows strictly after the cursor's row in the sort (nulls last ascending, first descending). */
export function eventAfterCursor(params: SqlParams, sort: EventSort, state: EventCursorState): string {
  const c = sort.column;
  const id = params.bind(state.i);
  const cast = sort.kind === 'number' ? '::bigint' : '::text';
  if (state.v === null) {
    // Ascending, nulls come last: after a null row only nulls with a greater id. Descending,
    // nulls come first: other nulls with a smaller id, then every non-null row.
    return sort.order === 'asc' ? `(${c} IS NULL AND id > ${id}::uuid)` : `((${c} IS NULL AND id < ${id}::uuid) OR ${c} IS NOT NULL)`;
  }
  const v = `${params.bind(state.v)}${cast}`;
  return sort.order === 'asc'
    ? `((${c}, id) > (${v}, ${id}::uuid) OR ${c} IS NULL)`
    : `(${c} IS NOT NULL AND (${c}, id) < (${v}, ${id}::uuid))`;
}
