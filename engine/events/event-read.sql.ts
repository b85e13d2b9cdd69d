import { EVENT_COLUMNS } from './event-rows.ts';

/** One page: $-parameters bound by the caller's SqlParams. */
export function eventPageSql(where: string, orderBy: string, limitParam: string): string {
  return `SELECT ${EVENT_COLUMNS} FROM events WHERE ${where} ORDER BY ${orderBy} LIMIT ${limitParam}`;
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

export function eventCountSql(where: string): string {
  return `SELECT count(*)::bigint AS count FROM events WHERE ${where}`;
}

/** Distinct non-null values of an allow-listed column, alphabetical. */
export function distinctSql(column: string, where: string, limitParam: string): string {
  return `SELECT value FROM (SELECT DISTINCT ${column} AS value FROM events WHERE ${where} AND ${column} IS NOT NULL) AS d
 ORDER BY value COLLATE "C" LIMIT ${limitParam}`;
}
