import { EVENT_COLUMNS } from './event-rows.ts';

/** One page: $-parameters bound by the caller's SqlParams. */
export function eventPageSql(where: string, orderBy: string, limitParam: string): string {
  return `SELECT ${EVENT_COLUMNS} FROM events WHERE ${where} ORDER BY ${orderBy} LIMIT ${limitParam}`;
}

/**
 * One page as the union of branch pages (event-filter.ts advancedBranches): each branch's
 * first page in the sort, read by whatever index serves it, merged in the sort order (a
 * Merge Append, which pulls from each branch only as far as the page needs), an event in two
 * branches kept once (DISTINCT ON the sort value and id: its copies arrive side by side).
 * `base` holds tenant, grants, filter and cursor.
 */
export function eventUnionPageSql(base: string, branches: string[], sortColumn: string, orderBy: string, limitParam: string): string {
  const branchPages = branches.map((b) => `(SELECT ${EVENT_COLUMNS} FROM events WHERE ${base} AND ${b} ORDER BY ${orderBy} LIMIT ${limitParam})`);
  return `SELECT DISTINCT ON (${sortColumn}, id) ${EVENT_COLUMNS}
 FROM (${branchPages.join('\n UNION ALL ')}) AS branch
 ORDER BY ${orderBy} LIMIT ${limitParam}`;
}

/** Events by ids or externalIds: $1 tenant, $2 ids, $3 externalIds. */
export const EVENTS_BY_KEYS = `
SELECT ${EVENT_COLUMNS} FROM events
 WHERE tenant = $1 AND (id = ANY($2::uuid[]) OR external_id = ANY($3::text[]))
 ORDER BY event_time, id`;

/** Ranked full-text search over descriptions: the tsquery parameter is bound by the caller. */
export function eventSearchSql(where: string, queryParam: string, limitParam: string): string {
  return `SELECT ${EVENT_COLUMNS}, ts_rank_cd(search, ${queryParam}) AS rank FROM events
 WHERE ${where} AND search @@ ${queryParam}
 ORDER BY rank DESC, id ASC LIMIT ${limitParam}`;
}

/**
 * The tenant's events from its counts per data set (migration 010), `where` restricting
 * tenant and data sets; `rows` tells whether the deltas are worth folding (FOLD_EVENT_COUNTS).
 */
export function eventCountSql(where: string): string {
  return `SELECT coalesce(sum(n), 0)::bigint AS count, count(*)::bigint AS rows FROM event_counts WHERE ${where}`;
}

/**
 * Folds a tenant's count deltas into one row per data set ($1 tenant). Deltas a concurrent
 * writer commits meanwhile are outside the statement's snapshot and stay beside the sums;
 * a concurrent fold waits on the deleted rows and then finds them gone.
 */
export const FOLD_EVENT_COUNTS = `
WITH gone AS (DELETE FROM event_counts WHERE tenant = $1 RETURNING data_set_id, n)
INSERT INTO event_counts (tenant, data_set_id, n) SELECT $1, data_set_id, sum(n) FROM gone GROUP BY data_set_id HAVING sum(n) <> 0`;

/**
 * Distinct non-null values of an allow-listed column in byte order ("C"), by a loose index
 * scan over the column's "C" index (migration 010): each step is one probe for the first
 * value past the last (among the rows `where` admits), so the cost is one probe per value
 * returned, not a read of every event. `where` binds the tenant and readable data sets and
 * is used in both steps; `keep` filters the values (the distinct search), `limitParam` stops
 * the walk.
 */
export function distinctSql(column: string, where: string, keep: string | undefined, limitParam: string): string {
  const first = (after: string | undefined) => `SELECT ${column} COLLATE "C" FROM events
     WHERE ${where} AND ${column} IS NOT NULL${after ? ` AND ${column} COLLATE "C" > ${after}` : ''}
     ORDER BY ${column} COLLATE "C" LIMIT 1`;
  return `WITH RECURSIVE d(value) AS (
  (${first(undefined)})
  UNION ALL
  SELECT (${first('d.value')}) FROM d WHERE d.value IS NOT NULL
)
SELECT value FROM d WHERE value IS NOT NULL${keep ? ` AND ${keep}` : ''} LIMIT ${limitParam}`;
}
