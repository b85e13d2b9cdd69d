// SQL of edge reads and writes (edge-read.ts, edge-write.ts). An edge's readability and
// writability follow the data sets of its two ends: a resource's or time series' data set, or
// the data set node itself.

/** The data set that governs a node: its own id for a data set, else its data_set_id. */
const GOVERNING = (alias: string) => `CASE WHEN ${alias}.kind = 'dataset' THEN ${alias}.id ELSE ${alias}.data_set_id END`;

const EDGE_COLUMNS = `e.id, e.start_id, e.end_id, e.type_id, rt.name AS type, e.description, e.metadata, e.created_time, e.last_updated_time,
       ${GOVERNING('s')} AS start_data_set, ${GOVERNING('n')} AS end_data_set`;

const EDGE_FROM = `edges e
  JOIN relationship_types rt ON rt.tenant = e.tenant AND rt.id = e.type_id
  JOIN nodes s ON s.tenant = e.tenant AND s.id = e.start_id
  JOIN nodes n ON n.tenant = e.tenant AND n.id = e.end_id`;

/** Edges by id with their ends' governing data sets: $1 tenant, $2 ids. */
export const EDGES_BY_IDS = `SELECT ${EDGE_COLUMNS} FROM ${EDGE_FROM} WHERE e.tenant = $1 AND e.id = ANY($2::bigint[])`;

/** The same, locked for a delete. */
export const EDGES_BY_IDS_FOR_UPDATE = `${EDGES_BY_IDS} ORDER BY e.id FOR UPDATE OF e`;

/** Edges starting or ending at nodes $2 ($1 tenant), at most $3. */
export const EDGES_OF_NODES = `SELECT ${EDGE_COLUMNS} FROM ${EDGE_FROM}
 WHERE e.tenant = $1 AND (e.start_id = ANY($2::bigint[]) OR e.end_id = ANY($2::bigint[])) ORDER BY e.id LIMIT $3`;

/** Which of the (start, end, type) triples exist: $1 tenant, $2 starts, $3 ends, $4 types. */
export const EXISTING_EDGES = `
SELECT e.start_id, e.end_id, e.type_id FROM edges e
  JOIN unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS x(s, n, t) ON e.start_id = x.s AND e.end_id = x.n AND e.type_id = x.t
 WHERE e.tenant = $1`;

/** Parallel arrays: $1 tenant, $2 starts, $3 ends, $4 type ids, $5 descriptions, $6 metadata (JSON), $7 now. Rows come back in input order. */
export const INSERT_EDGES = `
INSERT INTO edges (tenant, id, start_id, end_id, type_id, description, metadata, created_time, last_updated_time)
SELECT $1, nextval('edge_id_seq'), s, n, t, d, m, $7, $7
  FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::jsonb[]) WITH ORDINALITY AS x(s, n, t, d, m, k)
 ORDER BY k
RETURNING id, start_id, end_id, type_id, description, metadata, created_time, last_updated_time`;

/** $1 tenant, $2 ids. */
export const DELETE_EDGES = 'DELETE FROM edges WHERE tenant = $1 AND id = ANY($2::bigint[])';

/** Rule 3: a time series joined to a data set takes that data set: $1 tenant, $2 series ids, $3 data set ids, $4 now. */
export const ASSIGN_SERIES_DATA_SETS = `
UPDATE nodes n SET data_set_id = x.ds, last_updated_time = $4
  FROM unnest($2::bigint[], $3::bigint[]) AS x(ts, ds)
 WHERE n.tenant = $1 AND n.id = x.ts AND n.kind = 'timeseries' AND n.data_set_id IS NULL`;

/** End nodes for a graph answer: $1 tenant, $2 ids. */
export const GRAPH_NODES = `
SELECT id, kind, external_id, name, description, is_root, data_set_id, labels, metadata, created_time, last_updated_time
  FROM nodes WHERE tenant = $1 AND id = ANY($2::bigint[])`;
