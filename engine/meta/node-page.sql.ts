// SQL of node filter pages and search, shared by the node families (time series, resources).
// WHERE clauses come from node-filter.sql.ts builders with every value bound; the sort column
// from an allow-list (node-page.ts NODE_SORT_COLUMNS); the record JSON from the family.

/**
 * One filter page: the page's rows are chosen first and only they are turned into the
 * family's record JSON (PostgreSQL would otherwise build the JSON of every matching row
 * before sorting).
 */
export function filterPageSql(where: string, sortColumn: string, orderBy: string, limitParam: string, recordJson: string): string {
  return `
SELECT id, ${sortColumn} AS sort_value, ${recordJson} AS j
  FROM (SELECT * FROM nodes WHERE ${where} ORDER BY ${orderBy} LIMIT ${limitParam}) AS page
 ORDER BY ${orderBy}`;
}

/**
 * The same page by way of the matching rows (for a filter whose matches are few but scattered
 * through the sort order): at most `candidatesMax` matches are taken in any order (the planner
 * is free to read them from the metadata or labels index), the page is sorted from their
 * sort keys, and its rows are fetched by ctid. Each row says how many candidates there were:
 * more than `candidatesMax - 1` and the page may be wrong, so the caller asks filterPageSql.
 */
export function candidatePageSql(where: string, sortColumn: string, orderBy: string, limitParam: string, candidatesMax: number, recordJson: string): string {
  const keys = sortColumn === 'id' ? 'id' : `id, ${sortColumn}`;
  return `
WITH candidates AS MATERIALIZED (SELECT ctid AS row_ctid, ${keys} FROM nodes WHERE ${where} LIMIT ${Math.trunc(candidatesMax)}),
page AS (SELECT row_ctid FROM candidates ORDER BY ${orderBy} LIMIT ${limitParam})
SELECT id, ${sortColumn} AS sort_value, ${recordJson} AS j, (SELECT count(*) FROM candidates) AS candidates
  FROM nodes WHERE ctid = ANY(ARRAY(SELECT row_ctid FROM page))
 ORDER BY ${orderBy}`;
}

/** The searched document: name, externalId and description (indexed by nodes_search, migration 001). */
const SEARCH_DOCUMENT = `(coalesce(name, '') || ' ' || external_id || ' ' || coalesce(description, ''))`;

/**
 * Fuzzy search (SPEC search): `queryParam` is the bound lower-cased phrase. Trigram word
 * similarity over name (weighted up), externalId and description (weighted down), a
 * containment bonus, and a bonus for a name or externalId equal to the phrase.
 */
export function searchSql(where: string, queryParam: string, limitParam: string, columns: string): string {
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
