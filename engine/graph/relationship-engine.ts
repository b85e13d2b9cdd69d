// Relationships: edges named by a client-chosen externalId (migration 014), for clients that
// name relationships so (the CDF surface, docs/cdf.md "Relationships"). A relationship is an
// edge: it is written through insertEdges inside the graph guard (SPEC "Edges" rules 1-5 and
// 8, the daily `relationships` quota) and removed through removeEdges (rule 7: a delete that
// strands a resource is refused). What this adds: the externalId (unique in the tenant, a
// DuplicateError otherwise), ends named by externalId and kind (a resource or a time series),
// a named relationship that is unknown or unreadable (rule 6) as a NotFoundError listing it
// unless ignored, and pages in id order.
import type { Edge } from '../../schemas/edges.ts';
import { BadRequestError, DuplicateError, NotFoundError, type FieldProblem } from '../errors.ts';
import { readableIds, canRead, type Access } from '../grants/access.ts';
import { governingDataSet, lookupAnyNodes, type NodeKind } from '../meta/node-lookup.ts';
import { and, rangePredicate } from '../meta/node-filter.sql.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import { assertNoRepeats } from '../records/repeated-identifiers.ts';
import type { Queryable } from '../stores/queryable.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { canReadEdge, insertEdges, removeEdges, toEdge, type EdgeRow } from './edge-write.ts';
import type { GraphGuard } from './graph-guard.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';
import type { SeriesDirectory } from '../meta/series-directory.ts';
import { NAME_EDGES, readableEndsSql, relationshipPageSql, RELATIONSHIPS_BY_EXTERNAL_IDS, TAKEN_EDGE_EXTERNAL_IDS } from './relationships.sql.ts';

/** The node kinds a relationship may join. */
export type RelationshipEndKind = Extract<NodeKind, 'resource' | 'timeseries'>;

export interface RelationshipEnd {
  externalId: string;
  kind: NodeKind;
}

export interface RelationshipCreate {
  externalId: string;
  source: { externalId: string; kind: RelationshipEndKind };
  target: { externalId: string; kind: RelationshipEndKind };
  /** The edge's relationship type name (upper-cased, SPEC edge rule 8). */
  type: string;
}

export interface RelationshipRecord {
  externalId: string;
  edge: Edge;
  source: RelationshipEnd;
  target: RelationshipEnd;
}

export interface RelationshipFilter {
  sourceExternalIds?: string[];
  sourceKinds?: NodeKind[];
  targetExternalIds?: string[];
  targetKinds?: NodeKind[];
  types?: string[];
  createdTime?: { min?: number; max?: number };
  lastUpdatedTime?: { min?: number; max?: number };
}

export interface RelationshipEngine {
  /** All-or-nothing; answers in request order. */
  create(access: Access, items: RelationshipCreate[]): Promise<RelationshipRecord[]>;
  byExternalIds(access: Access, externalIds: string[], ignoreUnknownIds: boolean): Promise<RelationshipRecord[]>;
  /** Readable relationships in id order; nextCursor on a full page. */
  list(access: Access, request: { filter?: RelationshipFilter; limit: number; cursor?: string }): Promise<{ items: RelationshipRecord[]; nextCursor?: string }>;
  delete(access: Access, externalIds: string[], ignoreUnknownIds: boolean): Promise<void>;
}

export interface RelationshipEngineDeps {
  relational: RelationalStore;
  quotas: Quotas;
  graph: GraphGuard;
  series: SeriesDirectory;
}

type RelationshipRow = EdgeRow & { external_id: string; source_external_id: string; source_kind: NodeKind; target_external_id: string; target_kind: NodeKind };

const UNIQUE_VIOLATION = '23505';

function toRecord(row: RelationshipRow): RelationshipRecord {
  return {
    externalId: row.external_id,
    edge: toEdge({ ...row, id: Number(row.id), start_id: Number(row.start_id), end_id: Number(row.end_id), type_id: Number(row.type_id), created_time: Number(row.created_time), last_updated_time: Number(row.last_updated_time) }),
    source: { externalId: row.source_external_id, kind: row.source_kind },
    target: { externalId: row.target_external_id, kind: row.target_kind },
  };
}

const readableRow = (access: Access, row: RelationshipRow) => canReadEdge(access, {
  start_data_set: row.start_data_set === null ? null : Number(row.start_data_set), end_data_set: row.end_data_set === null ? null : Number(row.end_data_set),
});

const pageCursor = cursorCodec('relationships', 1, (state: unknown): state is { after: number } =>
  typeof state === 'object' && state !== null && Number.isSafeInteger((state as { after?: unknown }).after));

/** The readable relationships named, in request order; the others a NotFoundError unless ignored. */
async function resolveNamed(db: Queryable, access: Access, externalIds: string[], ignoreUnknownIds: boolean): Promise<RelationshipRow[]> {
  const { rows } = await db.query<RelationshipRow>(RELATIONSHIPS_BY_EXTERNAL_IDS, [access.tenant, [...new Set(externalIds)]]);
  const byExternalId = new Map(rows.filter((r) => readableRow(access, r)).map((r) => [r.external_id, r]));
  const missing = externalIds.filter((x) => !byExternalId.has(x));
  if (missing.length > 0 && !ignoreUnknownIds) {
    throw new NotFoundError(`Relationships not found: ${missing.slice(0, 5).join(', ')}`, missing.map((externalId) => ({ externalId })));
  }
  const seen = new Set<string>();
  return externalIds.flatMap((x) => { const row = byExternalId.get(x); return row && !seen.has(x) ? (seen.add(x), [row]) : []; });
}

/** A visible end of another kind than the one named is a 400 naming the item's type field. */
async function checkEndKinds(tx: Queryable, access: Access, items: RelationshipCreate[]): Promise<void> {
  const nodes = await lookupAnyNodes(tx, access.tenant, [], items.flatMap((i) => [i.source.externalId, i.target.externalId]));
  const kinds = new Map(nodes.filter((n) => canRead(access, governingDataSet(n))).map((n) => [n.external_id, n.kind]));
  const problems: FieldProblem[] = [];
  items.forEach((item, index) => {
    for (const [end, field] of [[item.source, 'sourceType'], [item.target, 'targetType']] as const) {
      const kind = kinds.get(end.externalId);
      if (kind !== undefined && kind !== end.kind) problems.push({ field: `items.${index}.${field}`, index, message: `${end.externalId} is a ${kind}, not a ${end.kind}`, value: end.kind });
    }
  });
  if (problems.length > 0) throw new BadRequestError(`Invalid relationships: ${problems.slice(0, 3).map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
}

export function bindRelationshipEngine(deps: RelationshipEngineDeps): RelationshipEngine {
  const { relational, quotas, graph } = deps;
  const db = relational.pool;
  return {
    async create(access, items) {
      const repeated = items.filter((item, k) => items.findIndex((other) => other.externalId === item.externalId) !== k);
      if (repeated.length > 0) throw new DuplicateError(repeated.map((r) => ({ externalId: r.externalId })), 'An externalId appears twice in the request');
      await quotas.chargeDaily(access.tenant, 'relationships', items.length);
      let seriesMoved = 0;
      try {
        await graph.write(access, async (tx) => {
          const { rows: taken } = await tx.query<{ external_id: string }>(TAKEN_EDGE_EXTERNAL_IDS, [access.tenant, items.map((i) => i.externalId)]);
          if (taken.length > 0) throw new DuplicateError(taken.map((r) => ({ externalId: r.external_id })), 'Relationship externalIds already exist');
          await checkEndKinds(tx, access, items);
          const inserted = await insertEdges(tx, access, items.map((i) => ({ fromExternalId: i.source.externalId, toExternalId: i.target.externalId, relationshipType: i.type })), { field: 'items', now: Date.now() });
          await tx.query(NAME_EDGES, [access.tenant, inserted.edges.map((e) => e.id), items.map((i) => i.externalId)]);
          seriesMoved = inserted.seriesMoved;
          return { result: undefined, change: { addedEdges: inserted.added } };
        });
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new DuplicateError(items.map((i) => ({ externalId: i.externalId })), 'A relationship externalId was taken concurrently');
        throw error;
      }
      if (seriesMoved > 0) deps.series.forgetTenant(access.tenant);
      return (await resolveNamed(db, access, items.map((i) => i.externalId), true)).map(toRecord);
    },
    byExternalIds: async (access, externalIds, ignoreUnknownIds) => (await resolveNamed(db, access, externalIds, ignoreUnknownIds)).map(toRecord),
    async list(access, { filter = {}, limit, cursor }) {
      const decoded = cursor !== undefined ? pageCursor.decode(cursor) : undefined;
      if (decoded && !decoded.ok) throw new BadRequestError('cursor: not a cursor of this list', [{ field: 'cursor', message: 'undecodable' }]);
      const params = new SqlParams();
      const readable = readableIds(access);
      const where = and([
        `e.tenant = ${params.bind(access.tenant)}`,
        'e.external_id IS NOT NULL',
        readable === null ? undefined : readableEndsSql(params.bind(readable)),
        filter.sourceExternalIds ? `s.external_id = ANY(${params.bind(filter.sourceExternalIds)}::text[])` : undefined,
        filter.sourceKinds ? `s.kind = ANY(${params.bind(filter.sourceKinds)}::text[])` : undefined,
        filter.targetExternalIds ? `t.external_id = ANY(${params.bind(filter.targetExternalIds)}::text[])` : undefined,
        filter.targetKinds ? `t.kind = ANY(${params.bind(filter.targetKinds)}::text[])` : undefined,
        filter.types ? `rt.name = ANY(${params.bind(filter.types)}::text[])` : undefined,
        rangePredicate(params, 'e.created_time', filter.createdTime),
        rangePredicate(params, 'e.last_updated_time', filter.lastUpdatedTime),
        decoded?.ok ? `e.id > ${params.bind(decoded.state.after)}` : undefined,
      ]);
      const { rows } = await db.query<RelationshipRow>(relationshipPageSql(where, params.bind(limit)), params.values);
      const last = rows[rows.length - 1];
      return { items: rows.map(toRecord), ...(rows.length === limit && last ? { nextCursor: pageCursor.encode({ after: Number(last.id) }) } : {}) };
    },
    async delete(access, externalIds, ignoreUnknownIds) {
      assertNoRepeats(externalIds.map((externalId) => ({ externalId })));
      const named = await resolveNamed(db, access, externalIds, ignoreUnknownIds);
      if (named.length === 0) return;
      await graph.write(access, async (tx) => {
        const removed = await removeEdges(tx, access, named.map((r) => Number(r.id)));
        return { result: undefined, change: { removedEdges: removed } };
      });
    },
  };
}
