// SQL of the relationships (relationship-engine.ts): edges carrying an externalId, read with
// their ends' externalIds and kinds and the data sets that govern the ends.

const governing = (alias: 's' | 't') => `CASE WHEN ${alias}.kind = 'dataset' THEN ${alias}.id ELSE ${alias}.data_set_id END`;

export const RELATIONSHIP_COLUMNS = `e.id, e.external_id, e.start_id, e.end_id, e.type_id, rt.name AS type, e.description, e.metadata, e.created_time, e.last_updated_time,
       s.external_id AS source_external_id, s.kind AS source_kind, ${governing('s')} AS start_data_set,
       t.external_id AS target_external_id, t.kind AS target_kind, ${governing('t')} AS end_data_set`;

export const RELATIONSHIP_FROM = `edges e
  JOIN relationship_types rt ON rt.tenant = e.tenant AND rt.id = e.type_id
  JOIN nodes s ON s.tenant = e.tenant AND s.id = e.start_id
  JOIN nodes t ON t.tenant = e.tenant AND t.id = e.end_id`;

/** Relationships by externalId: $1 tenant, $2 externalIds. */
export const RELATIONSHIPS_BY_EXTERNAL_IDS = `SELECT ${RELATIONSHIP_COLUMNS} FROM ${RELATIONSHIP_FROM}
 WHERE e.tenant = $1 AND e.external_id = ANY($2::text[])`;

/** Which of externalIds $2 edges hold already: $1 tenant. */
export const TAKEN_EDGE_EXTERNAL_IDS = 'SELECT external_id FROM edges WHERE tenant = $1 AND external_id = ANY($2::text[])';

/** Names edges $2 with externalIds $3: $1 tenant. */
export const NAME_EDGES = `
UPDATE edges e SET external_id = x.external_id
  FROM unnest($2::bigint[], $3::text[]) AS x(id, external_id)
 WHERE e.tenant = $1 AND e.id = x.id`;

/** A page of relationships in id order; `where` and the limit are bound by the caller. */
export function relationshipPageSql(where: string, limitParam: string): string {
  return `SELECT ${RELATIONSHIP_COLUMNS} FROM ${RELATIONSHIP_FROM} WHERE ${where} ORDER BY e.id LIMIT ${limitParam}`;
}

/** The readable-ends predicate of a page: both ends' governing data sets readable ($n: the readable ids). */
export function readableEndsSql(readableParam: string): string {
  return `(${governing('s')} IS NULL OR ${governing('s')} = ANY(${readableParam}::bigint[])) AND (${governing('t')} IS NULL OR ${governing('t')} = ANY(${readableParam}::bigint[]))`;
}
