import { NODE_COLUMNS } from './timeseries-rows.sql.ts';

/** Nodes of one kind by ids or externalIds ($1 tenant, $2 kind, $3 ids, $4 externalIds). */
export const LOOKUP_NODES = `
SELECT ${NODE_COLUMNS} FROM nodes
 WHERE tenant = $1 AND kind = $2 AND (id = ANY($3::bigint[]) OR external_id = ANY($4::text[]))
 ORDER BY id`;

/** The same, locked; ordered by id so concurrent batches lock in one order (no deadlock). */
export const LOOKUP_NODES_FOR_UPDATE = `${LOOKUP_NODES} FOR UPDATE`;

/** Nodes of any kind by ids ($2) or externalIds ($3), with their kind and data set: $1 tenant. */
export const ANY_NODES = `
SELECT id, external_id, kind, data_set_id FROM nodes
 WHERE tenant = $1 AND (id = ANY($2::bigint[]) OR external_id = ANY($3::text[]))`;
