// The containment tree over resources, for clients that see the graph as a tree of assets
// (the CDF surface, docs/cdf.md "Assets"): a resource's parent is the start of its oldest
// containment edge from a resource, its root the top of that chain. Only readable resources
// are ever named: a chain stops below an ancestor the caller may not read, and descendants
// in unreadable data sets are left out.
import { canRead, type Access } from '../grants/access.ts';
import type { Queryable } from '../stores/queryable.ts';
import { ANCESTOR_CHAINS, DESCENDANTS } from './asset-tree.sql.ts';

/** The relationship type of the containment edge, parent → child (as /resources/create's tests and the console name it). */
export const CONTAINMENT_TYPE = 'CONTAINS';

/** Containment walks stop this deep (a deeper tree, or a cycle of containment edges). */
export const CONTAINMENT_DEPTH_MAX = 1_000;

/** At most this many resources come from one descent (a subtree filter or a recursive delete); more is the caller's 400. */
export const DESCENDANTS_MAX = 10_000;

export interface Containment {
  parentId?: number;
  parentExternalId?: string;
  rootId: number;
}

type ChainRow = { id: string | number; depth: number; node: string | number; external_id: string; data_set_id: string | number | null };

/** Parent and root of each resource (readable ancestors only). */
export async function containmentOf(db: Queryable, access: Access, ids: number[]): Promise<Map<number, Containment>> {
  const out = new Map<number, Containment>();
  if (ids.length === 0) return out;
  const { rows } = await db.query<ChainRow>(ANCESTOR_CHAINS, [access.tenant, [...new Set(ids)], CONTAINMENT_TYPE, CONTAINMENT_DEPTH_MAX]);
  const chains = new Map<number, ChainRow[]>();
  for (const row of rows) {
    const chain = chains.get(Number(row.id)) ?? [];
    chain.push(row);
    chains.set(Number(row.id), chain);
  }
  for (const id of ids) {
    const chain = chains.get(id) ?? [];
    let top = id;
    let parent: ChainRow | undefined;
    for (const step of chain) {
      if (step.depth === 0) continue;
      if (!canRead(access, step.data_set_id === null ? null : Number(step.data_set_id))) break;
      if (step.depth === 1) parent = step;
      top = Number(step.node);
    }
    out.set(id, { ...(parent ? { parentId: Number(parent.node), parentExternalId: parent.external_id } : {}), rootId: top });
  }
  return out;
}

/**
 * The readable resources under `ids` (all depths, or only the direct children), with `ids`
 * themselves when `withSelf`; at most `max` (a caller seeing `max` back may have been cut short).
 */
export async function descendantsOf(db: Queryable, access: Access, ids: number[], options: { withSelf: boolean; childrenOnly?: boolean; max?: number }): Promise<number[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string | number; data_set_id: string | number | null }>(DESCENDANTS, [
    access.tenant, ids, CONTAINMENT_TYPE, CONTAINMENT_DEPTH_MAX, options.max ?? DESCENDANTS_MAX, options.withSelf, options.childrenOnly ?? false,
  ]);
  return rows.filter((r) => canRead(access, r.data_set_id === null ? null : Number(r.data_set_id))).map((r) => Number(r.id));
}
