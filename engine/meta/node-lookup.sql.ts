import { NODE_COLUMNS } from './timeseries-rows.sql.ts';

/** Nodes of one kind by ids or externalIds ($1 tenant, $2 kind, $3 ids, $4 externalIds). */
export const LOOKUP_NODES = `
SELECT ${NODE_COLUMNS} FROM nodes
 WHERE tenant = $1 AND kind = $2 AND (id = ANY($3::bigint[]) OR external_id = ANY($4::text[]))
 ORDER BY id`;

/** The same, locked; ordered by id so concurrent batches lock in one order (no deadlock). */
export const LOOKUP_NODES_FOR_UPDATE = `${LOOKUP_NODES} FOR UPDATE`;
