import { EVENT_COLUMNS } from './event-rows.ts';

/** The numbers of events by UUID: $1 tenant, $2 ids. */
export const NUMBERS_OF_EVENTS = 'SELECT id, number FROM events WHERE tenant = $1 AND id = ANY($2::uuid[])';

/** Events by number ($2) or externalId ($3), with their numbers: $1 tenant; an externalId's events by eventTime. */
export const NUMBERED_EVENTS_BY_KEYS = `
SELECT ${EVENT_COLUMNS}, number FROM events
 WHERE tenant = $1 AND (number = ANY($2::bigint[]) OR external_id = ANY($3::text[]))
 ORDER BY event_time, id`;

/** The events a WHERE part admits (tenant, grants and filter bound by the caller). */
export function eventFilteredCountSql(where: string): string {
  return `SELECT count(*)::bigint AS count FROM events WHERE ${where}`;
}

/**
 * The distinct values of an allow-listed column among the events `where` admits, each with
 * its number of events, most frequent first (then by value); nulls are not a value.
 */
export function eventValueCountsSql(column: string, where: string, limitParam: string): string {
  return `SELECT ${column} AS value, count(*)::bigint AS count FROM events
 WHERE ${where} AND ${column} IS NOT NULL
 GROUP BY ${column} ORDER BY count DESC, ${column} LIMIT ${limitParam}`;
}
