// SQL of time series reads (timeseries-read.ts). WHERE clauses come from node-filter.sql.ts
// builders with every value bound; the sort column from SORT_COLUMNS (an allow-list).
import { NODE_COLUMNS, TIMESERIES_JSON } from './timeseries-rows.sql.ts';

/**
 * Time series by ids or externalIds as JSON texts: $1 tenant, $2 readable data set ids
 * (null: every data set), $3 ids, $4 externalIds.
 */
export const TIMESERIES_BY_IDS_JSON = `
SELECT id, external_id, ${TIMESERIES_JSON} AS j FROM nodes
 WHERE tenant = $1 AND kind = 'timeseries'
   AND ($2::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($2::bigint[]))
   AND (id = ANY($3::bigint[]) OR external_id = ANY($4::text[]))`;

/**
 * One filter page (time series; resources pass their own record JSON): the page's rows are chosen first and only they are turned into JSON
 * (PostgreSQL would otherwise build the JSON of every matching row before sorting).
 */
export function filterPageSql(where: string, sortColumn: string, orderBy: string, limitParam: string, recordJson = TIMESERIES_JSON): string {
  return `
SELECT id, ${sortColumn} AS sort_value, ${recordJson} AS j
  FROM (SELECT * FROM nodes WHERE ${where} ORDER BY ${orderBy} LIMIT ${limitParam}) AS page
 ORDER BY ${orderBy}`;
}

/** The searched document: name, externalId and description (indexed by nodes_search, migration 001). */
const SEARCH_DOCUMENT = `(coalesce(name, '') || ' ' || external_id || ' ' || coalesce(description, ''))`;

/**
 * Fuzzy search (SPEC search): `queryParam` is the bound lower-cased phrase. Trigram word
 * similarity over name (weighted up), externalId and description (weighted down), a
 * containment bonus, and a bonus for a name or externalId equal to the phrase.
 */
export function searchSql(where: string, queryParam: string, limitParam: string, columns = NODE_COLUMNS): string {
  const q = queryParam;
  const score = `GREATEST(
      word_similarity(${q}, lower(coalesce(name, ''))) * 1.2,
      word_similarity(${q}, lower(external_id)),
      word_similarity(${q}, lower(coalesce(description, ''))) * 0.8,
      CASE WHEN strpos(lower${SEARCH_DOCUMENT}, ${q}) > 0 THEN 1.0 ELSE 0 END)
    + CASE WHEN lower(coalesce(name, '')) = ${q} OR lower(external_id) = ${q} THEN 1.0 ELSE 0 END`;
  return `
SELECT ${columns}, ${score} AS score FROM nodes
 WHERE ${where} AND ${q} <% ${SEARCH_DOCUMENT}
 ORDER BY score DESC, id ASC LIMIT ${limitParam}`;
}
