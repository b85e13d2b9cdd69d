// The node families (time series, data sets, resources share the `nodes` table) plugged into
// the one identifier resolver of engine/records/identifiers.ts.
import type { Identifier } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import { identifierOf, resolveIdentifiers, type RecordFamily, type ResolveOptions } from '../records/identifiers.ts';
import type { NodeRow } from './timeseries-rows.ts';
import { ANY_NODES, LOOKUP_NODES, LOOKUP_NODES_FOR_UPDATE } from './node-lookup.sql.ts';

export { identifierOf };

export interface Resolved {
  identifier: Identifier;
  index: number;
  row: NodeRow | undefined;
}

export type NodeKind = 'timeseries' | 'dataset' | 'resource';

function nodeFamilyOf(kind: NodeKind): RecordFamily<NodeRow> {
  return {
    async fetch(db, tenant, ids, externalIds, forUpdate) {
      // Prepared once per connection: every data point request looks its series up here.
      const { rows } = await db.query<NodeRow>({
        name: forUpdate ? 'lookup-nodes-for-update' : 'lookup-nodes',
        text: forUpdate ? LOOKUP_NODES_FOR_UPDATE : LOOKUP_NODES,
        values: [tenant, kind, ids, externalIds],
      });
      return rows;
    },
    idOf: (row) => row.id,
    externalIdOf: (row) => row.external_id,
  };
}

/** One family object per kind: the resolver's input for nodes. */
export const NODE_FAMILIES: Readonly<Record<NodeKind, RecordFamily<NodeRow>>> = Object.freeze({
  timeseries: nodeFamilyOf('timeseries'),
  dataset: nodeFamilyOf('dataset'),
  resource: nodeFamilyOf('resource'),
});

/**
 * Looks every identifier up; `row` is undefined for misses. An identifier with neither field,
 * or with both naming different records, is a 400 (engine/records/identifiers.ts). With
 * `forUpdate`, rows are locked.
 */
export async function lookupNodes(db: Queryable, tenant: string, kind: NodeKind, identifiers: Identifier[], forUpdate = false, options: Omit<ResolveOptions<NodeRow>, 'forUpdate'> = {}): Promise<Resolved[]> {
  return resolveIdentifiers(NODE_FAMILIES[kind], db, tenant, identifiers, { ...options, forUpdate });
}

/** A node of any kind as edge ends and event relations see it. */
export interface AnyNode {
  id: number;
  external_id: string;
  kind: NodeKind;
  data_set_id: number | null;
}

/** Nodes of any kind (resources, time series, data sets) by ids or externalIds, in one query. */
export async function lookupAnyNodes(db: Queryable, tenant: string, ids: number[], externalIds: string[]): Promise<AnyNode[]> {
  if (ids.length + externalIds.length === 0) return [];
  return (await db.query<AnyNode>(ANY_NODES, [tenant, [...new Set(ids)], [...new Set(externalIds)]])).rows;
}

/** The data set that decides who may read and write a node: a data set governs itself. */
export const governingDataSet = (node: Pick<AnyNode, 'id' | 'kind' | 'data_set_id'>): number | null => (node.kind === 'dataset' ? node.id : node.data_set_id);
