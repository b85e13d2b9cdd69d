// The one resolver of request identifiers (`{id}`, `{externalId}` or both, SPEC Conventions)
// to stored records, for every record family. A family says how to fetch its rows by ids and
// externalIds in one query (RecordFamily); this module owns the rules: an identifier needs
// at least one of the two, and one giving both must name one record (SPEC Errors: "id and
// externalId naming different resources" is a 400). What a miss means (omit, 404, 400) stays
// with the caller.
import { BadRequestError, type FieldProblem } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';

/** An identifier as a request gives it; Id is a number (nodes, edges) or a UUID string (events). */
export interface RecordIdentifier<Id extends number | string = number> {
  id?: Id;
  externalId?: string;
}

/**
 * The identifier an item names, keeping both fields when both are given: the resolver then
 * checks that they name the same record, instead of silently dropping one.
 */
export function identifierOf<Id extends number | string = number>(item: { id?: Id; externalId?: string }): RecordIdentifier<Id> {
  // Set field by field: spreading conditional objects made three objects per item, and ingest
  // names ~100 series per gateway request (heap sampling, bench/probe.ts gateway).
  const identifier: RecordIdentifier<Id> = {};
  if (item.id !== undefined) identifier.id = item.id;
  if (item.externalId !== undefined) identifier.externalId = item.externalId;
  return identifier;
}

/** How one record family (time series, data sets, resources, edges, events) is looked up. */
export interface RecordFamily<Row, Id extends number | string = number> {
  /**
   * The tenant's rows whose id is in `ids` or whose externalId is in `externalIds`, in one
   * query, locked FOR UPDATE when `forUpdate`. Rows the caller may not see may be left out
   * here (they then behave as missing, also for the both-given check).
   */
  fetch(db: Queryable, tenant: string, ids: Id[], externalIds: string[], forUpdate: boolean): Promise<Row[]>;
  idOf(row: Row): Id;
  /** Null for records without an externalId. */
  externalIdOf(row: Row): string | null;
}

export interface Resolved<Row, Id extends number | string = number> {
  identifier: RecordIdentifier<Id>;
  /** Position of the identifier in the request. */
  index: number;
  /** The record named; undefined for a miss. */
  row: Row | undefined;
  /**
   * Every record named: at most one where externalId is unique; all records under the
   * externalId for families where it is not (events). Empty for a miss.
   */
  rows: Row[];
}

export interface ResolveOptions<Row> {
  /** Lock the rows (inside the caller's transaction). @default false */
  forUpdate?: boolean;
  /** Rows failing this behave as missing, before the both-given check (unreadable records). */
  visible?: (row: Row) => boolean;
  /** Field path of the identifier at `index` in problems. @default `items.${index}` */
  field?: (index: number) => string;
}

/** Problems of identifiers that give neither id nor externalId. */
function resolveIdentifiersShapeProblems<Id extends number | string>(identifiers: readonly RecordIdentifier<Id>[], field: (index: number) => string): FieldProblem[] {
  return identifiers.flatMap((identifier, index) => (identifier.id === undefined && identifier.externalId === undefined
    ? [{ field: field(index), index, message: 'no identifier: give an id or an externalId' }] : []));
}

function resolveIdentifiersGroup<K, Row>(rows: readonly Row[], keyOf: (row: Row) => K | null): Map<K, Row[]> {
  const out = new Map<K, Row[]>();
  for (const row of rows) {
    const key = keyOf(row);
    if (key === null) continue;
    const list = out.get(key);
    if (list) list.push(row);
    else out.set(key, [row]);
  }
  return out;
}

/**
 * Resolves every identifier in one query. Throws BadRequestError listing every identifier
 * that gives neither field, or gives both naming different records (an id and an externalId
 * of which only one names a record count as different: the client's two keys disagree).
 * Misses come back with `row` undefined.
 */
export async function resolveIdentifiers<Row, Id extends number | string = number>(
  family: RecordFamily<Row, Id>, db: Queryable, tenant: string, identifiers: readonly RecordIdentifier<Id>[], options: ResolveOptions<Row> = {},
): Promise<Resolved<Row, Id>[]> {
  const field = options.field ?? ((index: number) => `items.${index}`);
  const shapeProblems = resolveIdentifiersShapeProblems(identifiers, field);
  if (shapeProblems.length > 0) {
    throw new BadRequestError(`${shapeProblems.length} item(s) need an id or an externalId: ${shapeProblems.map((p) => p.field).slice(0, 5).join(', ')}`, shapeProblems);
  }
  const ids = [...new Set(identifiers.flatMap((i) => (i.id !== undefined ? [i.id] : [])))];
  const externalIds = [...new Set(identifiers.flatMap((i) => (i.externalId !== undefined ? [i.externalId] : [])))];
  const fetched = identifiers.length === 0 ? [] : await family.fetch(db, tenant, ids, externalIds, options.forUpdate ?? false);
  const visible = options.visible ? fetched.filter(options.visible) : fetched;
  const byId = resolveIdentifiersGroup(visible, (row) => family.idOf(row));
  const byExternalId = resolveIdentifiersGroup(visible, (row) => family.externalIdOf(row));
  const conflicts: FieldProblem[] = [];
  const resolved = identifiers.map((identifier, index) => {
    const named = identifier.id !== undefined ? byId.get(identifier.id) ?? [] : byExternalId.get(identifier.externalId as string) ?? [];
    if (identifier.id !== undefined && identifier.externalId !== undefined) {
      const agrees = named.length > 0
        ? named.every((row) => family.externalIdOf(row) === identifier.externalId)
        : !byExternalId.has(identifier.externalId);
      if (!agrees) {
        conflicts.push({ field: field(index), index, message: 'id and externalId name different records', value: { id: identifier.id, externalId: identifier.externalId } });
      }
    }
    return { identifier, index, row: named[0], rows: named };
  });
  if (conflicts.length > 0) {
    const first = conflicts[0] as FieldProblem & { value: RecordIdentifier<Id> };
    throw new BadRequestError(
      `${field(first.index as number)}: id ${first.value.id} and externalId "${first.value.externalId}" name different records${conflicts.length > 1 ? ` (and ${conflicts.length - 1} more)` : ''}`,
      conflicts,
    );
  }
  return resolved;
}
