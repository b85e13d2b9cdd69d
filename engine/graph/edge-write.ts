// Writing edges (SPEC "Edges", rules 1 to 5 and 8): the one path every edge takes in, whether
// from /edges/create or the relations of /resources/create and /resources/update, inside the
// caller's graph-guarded transaction (graph-guard.ts). Every rule is checked for the whole
// batch before any row is written, so a refused batch writes nothing.
import type { Edge, RelationCreate } from '../../schemas/edges.ts';
import { BadRequestError, DuplicateError, type FieldProblem } from '../errors.ts';
import { assertCanWrite, canRead, type Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { GraphEdge } from './graph-structure.ts';
import { governingDataSet, lookupAnyNodes, type AnyNode } from '../meta/node-lookup.ts';
import { ASSIGN_SERIES_DATA_SETS, DELETE_EDGES, EDGES_BY_IDS_FOR_UPDATE, EXISTING_EDGES, INSERT_EDGES } from './edges.sql.ts';
import { BELONGS_TO, ensureRelationshipTypes, hasLetterOrDigit, relationshipTypesByIds, upperCase, type RelationshipTypeRow } from './relationship-types.ts';

/** A node as the edge rules see it. */
export type EdgeEnd = AnyNode;


/** An edge row with its type name and its ends' governing data sets. */
export interface EdgeRow {
  id: number;
  start_id: number;
  end_id: number;
  type_id: number;
  type: string;
  description: string | null;
  metadata: Record<string, string>;
  created_time: number;
  last_updated_time: number;
  start_data_set: number | null;
  end_data_set: number | null;
}

export function toEdge(r: Omit<EdgeRow, 'start_data_set' | 'end_data_set'>): Edge {
  return {
    id: r.id, start: r.start_id, end: r.end_id, type: r.type, relationshipTypeId: r.type_id, metadata: r.metadata,
    createdTime: r.created_time, lastUpdatedTime: r.last_updated_time,
    ...(r.description !== null ? { description: r.description } : {}),
  };
}

/** SPEC rule 6: reading an edge needs read access to both ends; a denied edge is missing. */
export const canReadEdge = (access: Access, r: Pick<EdgeRow, 'start_data_set' | 'end_data_set'>) => canRead(access, r.start_data_set) && canRead(access, r.end_data_set);

interface Resolved {
  start: EdgeEnd;
  end: EdgeEnd;
  type: RelationshipTypeRow;
  relation: RelationCreate;
  index: number;
}

/** Rule 1 and the identifier rules: a missing or unreadable end, or one named two ways that disagree, is a 400 naming it. */
async function resolveEnds(tx: Queryable, access: Access, relations: readonly RelationCreate[], field: string): Promise<{ ends: [EdgeEnd, EdgeEnd][]; problems: FieldProblem[] }> {
  const ids = relations.flatMap((r) => [r.fromId, r.toId].filter((v): v is number => v !== undefined));
  const externalIds = relations.flatMap((r) => [r.fromExternalId, r.toExternalId].filter((v): v is string => v !== undefined));
  const rows = await lookupAnyNodes(tx, access.tenant, ids, externalIds);
  const visible = rows.filter((r) => canRead(access, governingDataSet(r)));
  const byId = new Map(visible.map((r) => [r.id, r]));
  const byExternalId = new Map(visible.map((r) => [r.external_id, r]));
  const problems: FieldProblem[] = [];
  const ends = relations.map((relation, index) => {
    const one = (side: 'from' | 'to'): EdgeEnd | undefined => {
      const id = relation[`${side}Id`];
      const externalId = relation[`${side}ExternalId`];
      const path = `${field}.${index}.${side}${id !== undefined ? 'Id' : 'ExternalId'}`;
      if (id === undefined && externalId === undefined) {
        problems.push({ field: `${field}.${index}.${side}Id`, index, message: `a relation needs ${side}Id or ${side}ExternalId` });
        return undefined;
      }
      const node = id !== undefined ? byId.get(id) : byExternalId.get(externalId as string);
      if (!node) {
        problems.push({ field: path, index, message: `the ${side === 'from' ? 'start' : 'end'} does not exist`, value: id ?? externalId });
        return undefined;
      }
      if (id !== undefined && externalId !== undefined && node.external_id !== externalId) {
        problems.push({ field: `${field}.${index}.${side}ExternalId`, index, message: `${side}Id and ${side}ExternalId name different nodes`, value: { id, externalId } });
        return undefined;
      }
      return node;
    };
    return [one('from'), one('to')] as [EdgeEnd, EdgeEnd];
  });
  return { ends, problems };
}

/** Rule 1 (a relation with no type), rule 8 (upper-cased; an unknown name creates the type), and the letter-or-digit rule. */
async function resolveTypes(tx: Queryable, tenant: string, relations: readonly RelationCreate[], field: string): Promise<{ types: (RelationshipTypeRow | undefined)[]; problems: FieldProblem[] }> {
  const problems: FieldProblem[] = [];
  const names = relations.map((r, index) => {
    if (r.relationshipTypeId !== undefined) return undefined;
    if (r.relationshipType === undefined) {
      problems.push({ field: `${field}.${index}.relationshipType`, index, message: 'a relation needs relationshipType or relationshipTypeId' });
      return undefined;
    }
    const name = upperCase(r.relationshipType);
    if (!hasLetterOrDigit(name)) {
      problems.push({ field: `${field}.${index}.relationshipType`, index, message: 'a relationship type name needs a letter or a digit', value: r.relationshipType });
      return undefined;
    }
    return name;
  });
  const byId = await relationshipTypesByIds(tx, tenant, relations.flatMap((r) => (r.relationshipTypeId !== undefined ? [r.relationshipTypeId] : [])));
  const types = relations.map((r, index) => {
    if (r.relationshipTypeId === undefined) return undefined;
    const type = byId.get(r.relationshipTypeId);
    if (!type) problems.push({ field: `${field}.${index}.relationshipTypeId`, index, message: 'no relationship type with this id', value: r.relationshipTypeId });
    return type;
  });
  if (problems.length > 0) return { types, problems };
  // Only once the batch is otherwise valid: a refused batch must not leave new types behind
  // (the transaction would roll them back anyway; this keeps the statement count down).
  const byName = await ensureRelationshipTypes(tx, tenant, names.filter((n): n is string => n !== undefined));
  return { types: types.map((t, k) => t ?? byName.get((names[k] as string).toLowerCase())), problems };
}

export interface InsertedEdges {
  edges: Edge[];
  added: GraphEdge[];
  /** Time series that took a data set by rule 3 (their held keys must be forgotten). */
  seriesMoved: number;
}

/**
 * Writes `relations` as edges inside the caller's transaction: ends resolved among the
 * tenant's nodes (nodes inserted earlier in the transaction included), every rule checked for
 * the whole batch (400 naming each wrong relation; 403 without write access to an end's data
 * set; 409 when a (start, end, type) exists or repeats), then one insert. `field` prefixes
 * the problems' paths (`items`, `relations`).
 */
export async function insertEdges(tx: Queryable, access: Access, relations: readonly RelationCreate[], opts: { field: string; now: number }): Promise<InsertedEdges> {
  if (relations.length === 0) return { edges: [], added: [], seriesMoved: 0 };
  const tenant = access.tenant;
  const { field, now } = opts;
  const { ends, problems } = await resolveEnds(tx, access, relations, field);
  const typed = await resolveTypes(tx, tenant, relations, field);
  problems.push(...typed.problems);
  if (problems.length > 0) throw new BadRequestError(`Invalid relations: ${problems.slice(0, 3).map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
  const resolved: Resolved[] = relations.map((relation, index) => ({
    start: (ends[index] as [EdgeEnd, EdgeEnd])[0], end: (ends[index] as [EdgeEnd, EdgeEnd])[1], type: typed.types[index] as RelationshipTypeRow, relation, index,
  }));
  const ruleProblems: FieldProblem[] = [];
  const seriesDataSets = new Map<number, number>();
  for (const r of resolved) {
    // Rule 2: a relation into a data set is a BELONGS_TO.
    if (r.end.kind === 'dataset' && r.type.name !== BELONGS_TO) {
      ruleProblems.push({ field: `${field}.${r.index}.relationshipType`, index: r.index, message: `a relation into a data set must be of type ${BELONGS_TO}`, value: r.type.name });
    }
    // Rule 3: a data set and a time series: only a series without a data set (which takes it) or already in it.
    const pair = r.start.kind === 'timeseries' && r.end.kind === 'dataset' ? [r.start, r.end] : r.start.kind === 'dataset' && r.end.kind === 'timeseries' ? [r.end, r.start] : undefined;
    if (pair) {
      const [series, dataSet] = pair as [EdgeEnd, EdgeEnd];
      const already = seriesDataSets.get(series.id) ?? series.data_set_id;
      if (already !== null && already !== dataSet.id) {
        ruleProblems.push({ field: `${field}.${r.index}`, index: r.index, message: `time series ${series.external_id} already belongs to data set ${already}`, value: { timeseriesId: series.id, dataSetId: dataSet.id } });
      } else if (already === null) {
        seriesDataSets.set(series.id, dataSet.id);
      }
    }
  }
  if (ruleProblems.length > 0) throw new BadRequestError(`Invalid relations: ${ruleProblems.slice(0, 3).map((p) => `${p.field}: ${p.message}`).join('; ')}`, ruleProblems);
  // Rule 4: write access on both ends' data sets.
  assertCanWrite(access, resolved.flatMap((r) => [governingDataSet(r.start), governingDataSet(r.end)]), 'relationship create');
  // Rule 5: (start, end, type) is unique, in the store and within the batch.
  const key = (s: number, e: number, t: number) => `${s}/${e}/${t}`;
  const { rows: existing } = await tx.query<{ start_id: number; end_id: number; type_id: number }>(EXISTING_EDGES, [
    tenant, resolved.map((r) => r.start.id), resolved.map((r) => r.end.id), resolved.map((r) => r.type.id),
  ]);
  const taken = new Set(existing.map((e) => key(e.start_id, e.end_id, e.type_id)));
  const seen = new Set<string>();
  const duplicated = resolved.filter((r) => {
    const k = key(r.start.id, r.end.id, r.type.id);
    const dup = taken.has(k) || seen.has(k);
    seen.add(k);
    return dup;
  });
  if (duplicated.length > 0) throw duplicateEdges(duplicated.map((r) => ({ start: r.start.id, end: r.end.id, type: r.type.name })));
  let inserted;
  try {
    inserted = await tx.query<Omit<EdgeRow, 'type' | 'start_data_set' | 'end_data_set'>>(INSERT_EDGES, [
      tenant, resolved.map((r) => r.start.id), resolved.map((r) => r.end.id), resolved.map((r) => r.type.id),
      resolved.map((r) => r.relation.description ?? null), resolved.map((r) => JSON.stringify(r.relation.metadata ?? {})), now,
    ]);
  } catch (error) {
    // A concurrent request wrote one of the triples between the check and the insert.
    if ((error as { code?: string }).code === '23505') throw duplicateEdges(resolved.map((r) => ({ start: r.start.id, end: r.end.id, type: r.type.name })));
    throw error;
  }
  if (seriesDataSets.size > 0) await tx.query(ASSIGN_SERIES_DATA_SETS, [tenant, [...seriesDataSets.keys()], [...seriesDataSets.values()], now]);
  const byKey = new Map(inserted.rows.map((row) => [key(row.start_id, row.end_id, row.type_id), row]));
  const rows = resolved.map((r) => ({ ...(byKey.get(key(r.start.id, r.end.id, r.type.id)) as Omit<EdgeRow, 'type' | 'start_data_set' | 'end_data_set'>), type: r.type.name }));
  return { edges: rows.map(toEdge), added: rows.map((r) => ({ id: r.id, start: r.start_id, end: r.end_id })), seriesMoved: seriesDataSets.size };
}

function duplicateEdges(triples: { start: number; end: number; type: string }[]): DuplicateError {
  return new DuplicateError(triples, `A relationship with the same start, end and type exists: ${triples.slice(0, 3).map((t) => `${t.start} -${t.type}-> ${t.end}`).join(', ')}`);
}

/**
 * Deletes edges by id inside the caller's transaction: unknown and unreadable ones are
 * skipped (idempotent); 403 without write access to an end's data set. Returns what was
 * removed, for the graph guard.
 */
export async function removeEdges(tx: Queryable, access: Access, ids: readonly number[]): Promise<GraphEdge[]> {
  if (ids.length === 0) return [];
  const { rows } = await tx.query<EdgeRow>(EDGES_BY_IDS_FOR_UPDATE, [access.tenant, [...new Set(ids)]]);
  const visible = rows.filter((r) => canReadEdge(access, r));
  if (visible.length === 0) return [];
  assertCanWrite(access, visible.flatMap((r) => [r.start_data_set, r.end_data_set]), 'relationship delete');
  await tx.query(DELETE_EDGES, [access.tenant, visible.map((r) => r.id)]);
  return visible.map((r) => ({ id: r.id, start: r.start_id, end: r.end_id }));
}
