import { BELONGS_TO } from '../graph/relationship-types.ts';

/**
 * Data sets with their parent (the end of their BELONGS_TO edge); $1 tenant. Callers append
 * `AND ...` conditions on n (the data set) and p (its parent).
 */
export const SELECT_DATA_SETS = `
SELECT n.id, n.external_id, n.name, n.description, n.metadata, n.created_time, n.last_updated_time,
       p.id AS parent_id, p.external_id AS parent_external_id
  FROM nodes n
  LEFT JOIN LATERAL (
    SELECT pn.id, pn.external_id FROM edges e
      JOIN relationship_types rt ON rt.tenant = e.tenant AND rt.id = e.type_id AND rt.name = '${BELONGS_TO}'
      JOIN nodes pn ON pn.tenant = e.tenant AND pn.id = e.end_id AND pn.kind = 'dataset'
     WHERE e.tenant = n.tenant AND e.start_id = n.id LIMIT 1) p ON true
 WHERE n.tenant = $1 AND n.kind = 'dataset'`;

/** $1 tenant, $2 ids. */
export const DATA_SETS_BY_IDS = `${SELECT_DATA_SETS} AND n.id = ANY($2::bigint[])`;

/**
 * The list's conditions on n: $3 readable ids (null: all), $5 externalId prefix (null: any),
 * $7 metadata entries all present (JSON; null: any), $8 / $9 createdTime min / max, $10 / $11
 * lastUpdatedTime min / max (inclusive; null: open).
 */
const DATA_SET_FILTER = `
   AND ($3::bigint[] IS NULL OR n.id = ANY($3::bigint[]))
   AND ($5::text IS NULL OR starts_with(n.external_id, $5))
   AND ($7::jsonb IS NULL OR n.metadata @> $7::jsonb)
   AND ($8::bigint IS NULL OR n.created_time >= $8) AND ($9::bigint IS NULL OR n.created_time <= $9)
   AND ($10::bigint IS NULL OR n.last_updated_time >= $10) AND ($11::bigint IS NULL OR n.last_updated_time <= $11)`;

/**
 * One page of data sets by id: $1 tenant, $2 after this id, $4 parent ids (null: any), $6 rows,
 * and the conditions of DATA_SET_FILTER.
 */
export const LIST_DATA_SETS = `${SELECT_DATA_SETS} AND n.id > $2${DATA_SET_FILTER}
   AND ($4::bigint[] IS NULL OR p.id = ANY($4::bigint[]))
 ORDER BY n.id LIMIT $6`;

/** How many data sets match: LIST_DATA_SETS's parameters, with $2 0, $4 and $6 null (LIMIT NULL is none). */
export const COUNT_DATA_SETS = `SELECT count(*)::float8 AS count FROM (${LIST_DATA_SETS}) matched`;

/** Removes a data set's parent link: $1 tenant, $2 child id, $3 BELONGS_TO type id. */
export const DELETE_PARENT_EDGE = `
DELETE FROM edges e USING nodes p
 WHERE e.tenant = $1 AND e.start_id = $2 AND e.type_id = $3 AND p.tenant = e.tenant AND p.id = e.end_id AND p.kind = 'dataset'`;

/** $1 tenant, $2 child id, $3 parent id, $4 BELONGS_TO type id, $5 now (ms). */
export const INSERT_PARENT_EDGE = `
INSERT INTO edges (tenant, id, start_id, end_id, type_id, created_time, last_updated_time)
VALUES ($1, nextval('edge_id_seq'), $2, $3, $4, $5, $5)`;

/** Which of these externalIds are taken by any node of the tenant: $1 tenant, $2 externalIds. */
export const TAKEN_EXTERNAL_IDS = 'SELECT external_id FROM nodes WHERE tenant = $1 AND external_id = ANY($2::text[])';

/** $1 tenant, $2 externalId, $3 name, $4 description, $5 metadata (JSON), $6 now (ms). */
export const INSERT_DATA_SET = `
INSERT INTO nodes (tenant, id, kind, external_id, name, description, metadata, created_time, last_updated_time)
VALUES ($1, nextval('node_id_seq'), 'dataset', $2, $3, $4, $5::jsonb, $6, $6) RETURNING id`;

/** $1 tenant, $2 id, $3 externalId, $4 name, $5 description, $6 metadata (JSON), $7 now (ms). */
export const UPDATE_DATA_SET = `
UPDATE nodes SET external_id = $3, name = $4, description = $5, metadata = $6::jsonb, last_updated_time = $7
 WHERE tenant = $1 AND id = $2`;

/** A row when $3 is $2 or one of its descendants through BELONGS_TO ($1 tenant): a cycle. */
export const DATA_SET_BELOW = `
WITH RECURSIVE tree(id) AS (
  SELECT $2::bigint
  UNION
  SELECT e.start_id FROM tree t
    JOIN edges e ON e.tenant = $1 AND e.end_id = t.id
    JOIN relationship_types rt ON rt.tenant = $1 AND rt.id = e.type_id AND rt.name = '${BELONGS_TO}')
SELECT id FROM tree WHERE id = $3`;

/** Which of the ids ($2) are data sets of the tenant ($1). */
export const EXISTING_DATA_SETS = `SELECT id FROM nodes WHERE tenant = $1 AND kind = 'dataset' AND id = ANY($2::bigint[])`;
