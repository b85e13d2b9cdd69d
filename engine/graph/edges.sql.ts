// SQL of edge reads and writes (edge-read.ts, edge-write.ts). An edge's readability and
// writability follow the data sets of its two ends: a resource's or time series' data set, or
// the data set node itself.
import { jsonObjectText } from '../records/json-text.sql.ts';

/**
 * The data set that governs an end of edge `e`: its own id for a data set, else its
 * data_set_id. A scalar subquery, so each end is one primary-key probe: with joins the
 * planner hashed the whole node table for a 1,000-edge byids (40 ms instead of a few).
 */
const governing = (end: 'start_id' | 'end_id') =>
  `(SELECT CASE WHEN x.kind = 'dataset' THEN x.id ELSE x.data_set_id END FROM nodes x WHERE x.tenant = e.tenant AND x.id = e.${end})`;

const EDGE_COLUMNS = `e.id, e.start_id, e.end_id, e.type_id,
       (SELECT rt.name FROM relationship_types rt WHERE rt.tenant = e.tenant AND rt.id = e.type_id) AS type,
       e.description, e.metadata, e.created_time, e.last_updated_time,
       ${governing('start_id')} AS start_data_set, ${governing('end_id')} AS end_data_set`;

const EDGE_FROM = 'edges e';

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

/** An edge of the byids answer as JSON text (the Edge record). */
const EDGE_JSON = jsonObjectText([
  { key: 'id', sql: 'id', as: 'number' },
  { key: 'start', sql: 'start_id', as: 'number' },
  { key: 'end', sql: 'end_id', as: 'number' },
  { key: 'type', sql: 'type', as: 'string' },
  { key: 'relationshipTypeId', sql: 'type_id', as: 'number' },
  { key: 'description', sql: 'description', as: 'string', optional: true },
  { key: 'metadata', sql: 'metadata', as: 'json' },
  { key: 'createdTime', sql: 'created_time', as: 'number' },
  { key: 'lastUpdatedTime', sql: 'last_updated_time', as: 'number' },
]);

/** An end node of the byids answer as JSON text: a resource, time series or data set, each with its own fields. */
const END_NODE_JSON = jsonObjectText([
  { key: 'id', sql: 'n.id', as: 'number' },
  { key: 'kind', sql: 'n.kind', as: 'string' },
  { key: 'externalId', sql: 'n.external_id', as: 'string' },
  { key: 'name', sql: "coalesce(n.name, '')", as: 'string' },
  { key: 'description', sql: 'n.description', as: 'string', optional: true },
  { key: 'isRoot', sql: "CASE WHEN n.kind = 'resource' THEN n.is_root END", as: 'boolean', optional: true },
  { key: 'dataSetId', sql: 'n.data_set_id', as: 'number', optional: true },
  { key: 'labels', sql: "CASE WHEN n.kind <> 'dataset' THEN to_json(n.labels) END", as: 'json', optional: true },
  { key: 'metadata', sql: 'n.metadata', as: 'json' },
  { key: 'createdTime', sql: 'n.created_time', as: 'number' },
  { key: 'lastUpdatedTime', sql: 'n.last_updated_time', as: 'number' },
]);

/**
 * The whole byids answer in one statement, as JSON text `{"relations":[...],"nodes":[...]}`:
 * the edges asked for in request order, each once, those with an end the caller may not read
 * left out, and their end nodes once each by id. $1 tenant, $2 ids (request order), $3
 * readable data set ids (null: all). Built here, so a thousand edges and their nodes cross
 * from PostgreSQL as one text instead of rows parsed and serialised again in JavaScript.
 * Edges are fetched by LATERAL primary-key probes and nodes by one primary-key scan of the
 * ends' ids (= ANY): with joins, statistics taken before a bulk load made the planner hash
 * whole tables (90-180 ms at 100,000 resources instead of 20). The records are JSON text
 * concatenated field by field (json-text.sql.ts).
 */
export const EDGE_GRAPH_JSON = `
WITH asked AS (
  SELECT id, min(k) AS k FROM unnest($2::bigint[]) WITH ORDINALITY AS a(id, k) GROUP BY id),
found AS (
  SELECT e.id, e.start_id, e.end_id, e.type_id, e.description, e.metadata, e.created_time, e.last_updated_time, asked.k,
         (SELECT rt.name FROM relationship_types rt WHERE rt.tenant = e.tenant AND rt.id = e.type_id) AS type,
         -- Only a caller with limited grants needs the ends' data sets (two probes per edge).
         CASE WHEN $3::bigint[] IS NOT NULL THEN ${governing('start_id')} END AS start_data_set,
         CASE WHEN $3::bigint[] IS NOT NULL THEN ${governing('end_id')} END AS end_data_set
    FROM asked CROSS JOIN LATERAL (SELECT * FROM edges x WHERE x.tenant = $1 AND x.id = asked.id) AS e),
readable AS (
  SELECT * FROM found
   WHERE $3::bigint[] IS NULL
      OR ((start_data_set IS NULL OR start_data_set = ANY($3::bigint[])) AND (end_data_set IS NULL OR end_data_set = ANY($3::bigint[])))),
ends AS (
  SELECT array_agg(DISTINCT id) AS ids FROM (SELECT start_id AS id FROM readable UNION ALL SELECT end_id FROM readable) AS both_ends)
SELECT '{"relations":[' || coalesce((SELECT string_agg(${EDGE_JSON}, ',' ORDER BY k) FROM readable), '')
  || '],"nodes":[' || coalesce((SELECT string_agg(${END_NODE_JSON}, ',' ORDER BY n.id)
    FROM nodes n WHERE n.tenant = $1 AND n.id = ANY((SELECT ids FROM ends)::bigint[])), '') || ']}' AS j`;

/**
 * A page of the readable edges matching a filter, by id, as JSON text
 * `{"items":[...],"nodes":[...]` (left open for the cursor), with the page's edge count and
 * last edge id. $1 tenant, $2 start id, $3 end id, $4 type name (upper-cased), each null for any;
 * $5 edges after this id; $6 page size; $7 readable data set ids (null: all). Unreadable
 * edges are left out before the limit, so a page is short only at the end.
 */
export const EDGE_FILTER_JSON = `
WITH page AS (
  SELECT e.id, e.start_id, e.end_id, e.type_id, e.description, e.metadata, e.created_time, e.last_updated_time,
         (SELECT rt.name FROM relationship_types rt WHERE rt.tenant = e.tenant AND rt.id = e.type_id) AS type
    FROM edges e
   WHERE e.tenant = $1 AND e.id > $5
     AND ($2::bigint IS NULL OR e.start_id = $2) AND ($3::bigint IS NULL OR e.end_id = $3)
     AND ($4::text IS NULL OR e.type_id = (SELECT rt.id FROM relationship_types rt WHERE rt.tenant = $1 AND rt.name = $4))
     -- An end without a data set is readable: its NULL = ANY(...) is NULL, taken as true,
     -- so each end's data set is probed once.
     AND ($7::bigint[] IS NULL
          OR (coalesce(${governing('start_id')} = ANY($7::bigint[]), true)
              AND coalesce(${governing('end_id')} = ANY($7::bigint[]), true)))
   ORDER BY e.id LIMIT $6),
ends AS (
  SELECT array_agg(DISTINCT id) AS ids FROM (SELECT start_id AS id FROM page UNION ALL SELECT end_id FROM page) AS both_ends)
SELECT '{"items":[' || coalesce((SELECT string_agg(${EDGE_JSON}, ',' ORDER BY id) FROM page), '')
  || '],"nodes":[' || coalesce((SELECT string_agg(${END_NODE_JSON}, ',' ORDER BY n.id)
    FROM nodes n WHERE n.tenant = $1 AND n.id = ANY((SELECT ids FROM ends)::bigint[])), '') || ']' AS j,
  (SELECT count(*) FROM page)::int AS n, (SELECT max(id) FROM page)::float8 AS last`;
