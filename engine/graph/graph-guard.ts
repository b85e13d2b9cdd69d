// The reachability rule of the asset graph (SPEC edge rule 7): every
// resource stays reachable from a root. Every write that changes a tenant's graph runs through
// `write`, which serialises the tenant's graph writes on its graph_versions row, checks the
// change against the structure held in memory (graph-structure.ts) before commit, and refuses
// a change that would strand a resource with a 400 naming them, rolling everything back.
//
// Why memory: deciding reachability is a search from the roots, which PostgreSQL does one
// index probe per node (hundreds of milliseconds at 100,000 resources) while a JavaScript
// walk of the same adjacency takes a few. The structure is trusted only while the tenant's
// graph_versions row is the version it was loaded at; triggers bump that row on every
// structural change, whichever process or path made it, so a change made elsewhere (another
// instance, a data set re-parented) makes the next write here reload it.
import { BadRequestError, ConflictError } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { GRAPH_EDGES, GRAPH_RESOURCES, GRAPH_VERSION, LOCK_GRAPH, RESOURCE_EXTERNAL_IDS } from './graph-guard.sql.ts';
import { GraphStructure, type GraphChange } from './graph-structure.ts';

export type { GraphChange, GraphEdge } from './graph-structure.ts';

/** At most this many stranded resources are named in one 400. */
export const STRANDED_NAMED_MAX = 1_000;

/**
 * Edges held in memory over all tenants before the least recently used tenant's structure is
 * dropped (about 100 bytes each: 4,000,000 is some 400 MiB at worst, reached only by tenants
 * far beyond the bench's 200,000-edge graph).
 */
export const GRAPH_EDGES_HELD_MAX = 4_000_000;

/**
 * 400: the change would leave these resources unreachable from every root. Only resources the
 * caller may read are counted and named; `unreadable` says that others (never which, nor how
 * many) would be stranded too.
 */
export class StrandedResourcesError extends BadRequestError {
  constructor(readonly stranded: readonly { id: number; externalId: string }[], total: number, unreadable = false) {
    const others = unreadable ? `${total > 0 ? ', and' : ''} resources outside this token's data sets` : '';
    super(
      `The change would strand ${total > 0 ? `${total} resource${total === 1 ? '' : 's'}` : ''}${others} from every root: include ${total === 1 && !unreadable ? 'it' : 'them'} in the same delete, or attach ${total === 1 && !unreadable ? 'it' : 'them'} to a root first`,
      stranded.map((s) => ({ field: 'items', message: 'would be unreachable from every root', id: s.id, externalId: s.externalId, value: s.externalId })),
    );
  }
}

export interface GraphGuard {
  /**
   * Runs `work` in one transaction holding the tenant's graph lock. `work` makes its writes
   * and returns what it changed (every deleted edge row included); before commit the guard
   * throws StrandedResourcesError when a surviving resource would be reachable from no root.
   */
  write<T>(access: Access, work: (tx: Queryable) => Promise<{ result: T; change: GraphChange }>): Promise<T>;
  /** Takes the tenant's graph lock inside a transaction run elsewhere (time series delete). */
  lock(tx: Queryable, tenant: string): Promise<void>;
}

const DEADLOCK = '40P01';
const SERIALIZATION_FAILURE = '40001';

export function createGraphGuard(store: RelationalStore, edgesHeldMax = GRAPH_EDGES_HELD_MAX): GraphGuard {
  /** Tenant → structure, in least recently used order (a Map iterates in insertion order). */
  const held = new Map<string, GraphStructure>();

  function hold(tenant: string, structure: GraphStructure): void {
    held.delete(tenant);
    held.set(tenant, structure);
    let edges = 0;
    for (const s of held.values()) edges += s.edgeCount;
    for (const [other, s] of held) {
      if (edges <= edgesHeldMax || other === tenant) break;
      held.delete(other);
      edges -= s.edgeCount;
    }
  }

  async function structureAt(tx: Queryable, tenant: string, version: number): Promise<GraphStructure> {
    const cached = held.get(tenant);
    if (cached && cached.version === version) {
      hold(tenant, cached);
      return cached;
    }
    const structure = new GraphStructure(version);
    const { rows: resources } = await tx.query<{ id: number; is_root: boolean }>(GRAPH_RESOURCES, [tenant]);
    for (const r of resources) structure.addResource(r.id, r.is_root);
    const { rows: edges } = await tx.query<{ id: number; start_id: number; end_id: number }>(GRAPH_EDGES, [tenant]);
    for (const e of edges) structure.addEdge({ id: e.id, start: e.start_id, end: e.end_id });
    hold(tenant, structure);
    return structure;
  }

  async function lockedVersion(tx: Queryable, tenant: string): Promise<number> {
    const { rows } = await tx.query<{ version: number }>(LOCK_GRAPH, [tenant]);
    return Number((rows[0] as { version: number }).version);
  }

  return {
    async write(access, work) {
      const { tenant } = access;
      let applied: { structure: GraphStructure; change: GraphChange; version: number } | undefined;
      let result: Awaited<ReturnType<typeof work>>['result'];
      try {
        result = await store.transaction(async (tx) => {
          const structure = await structureAt(tx, tenant, await lockedVersion(tx, tenant));
          const { result, change } = await work(tx);
          const stranded = structure.stranded(change);
          if (stranded.length > 0) {
            // A caller who reads every data set gets the first names and the total; one who
            // does not needs every stranded row's data set to count only what it may read.
            const everyDataSet = access.readable === null;
            const { rows } = await tx.query<{ id: number; external_id: string; data_set_id: number | null }>(RESOURCE_EXTERNAL_IDS, [tenant, everyDataSet ? stranded.slice(0, STRANDED_NAMED_MAX) : stranded]);
            const readable = everyDataSet ? rows : rows.filter((r) => canRead(access, r.data_set_id));
            const named = readable.slice(0, STRANDED_NAMED_MAX).map((r) => ({ id: r.id, externalId: r.external_id }));
            throw new StrandedResourcesError(named, everyDataSet ? stranded.length : readable.length, readable.length < rows.length);
          }
          const { rows } = await tx.query<{ version: number }>(GRAPH_VERSION, [tenant]);
          applied = { structure, change, version: Number((rows[0] as { version: number }).version) };
          return result;
        });
      } catch (error) {
        // The commit may have failed after the writes reached the server: trust nothing held.
        if (applied) held.delete(tenant);
        const code = (error as { code?: string }).code;
        if (code === DEADLOCK || code === SERIALIZATION_FAILURE) throw new ConflictError();
        throw error;
      }
      const { structure, change, version } = applied as NonNullable<typeof applied>;
      structure.apply(change);
      structure.version = version;
      return result;
    },
    async lock(tx, tenant) {
      await lockedVersion(tx, tenant);
    },
  };
}
