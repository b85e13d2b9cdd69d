/**
 * Locks the tenant's graph (the graph_versions row) until the transaction ends and returns
 * its version; creates the row at version 0 on the tenant's first graph write. $1 tenant.
 */
export const LOCK_GRAPH = `
INSERT INTO graph_versions AS g (tenant, version) VALUES ($1, 0)
ON CONFLICT (tenant) DO UPDATE SET version = g.version
RETURNING version`;

/** The version after this transaction's writes (their triggers bumped it): $1 tenant. */
export const GRAPH_VERSION = 'SELECT version FROM graph_versions WHERE tenant = $1';

/** Every resource with its root flag: $1 tenant. */
export const GRAPH_RESOURCES = "SELECT id, is_root FROM nodes WHERE tenant = $1 AND kind = 'resource'";

/** Every edge's ends: $1 tenant. */
export const GRAPH_EDGES = 'SELECT id, start_id, end_id FROM edges WHERE tenant = $1';

/** Names and data sets of stranded resources for the 400: $1 tenant, $2 ids. */
export const RESOURCE_EXTERNAL_IDS = 'SELECT id, external_id, data_set_id FROM nodes WHERE tenant = $1 AND id = ANY($2::bigint[]) ORDER BY id';
