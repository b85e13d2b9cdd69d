import { RESOURCE_COLUMNS } from './resource-rows.sql.ts';

/** Readable resources by ids or externalIds: $1 tenant, $2 readable data set ids (null: all), $3 ids, $4 externalIds. */
export const RESOURCES_BY_KEYS = `
SELECT ${RESOURCE_COLUMNS} FROM nodes
 WHERE tenant = $1 AND kind = 'resource'
   AND ($2::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($2::bigint[]))
   AND (id = ANY($3::bigint[]) OR external_id = ANY($4::text[]))`;

/** The number of nodes a WHERE part admits (tenant, kind, grants and filter bound by the caller). */
export function resourceCountSql(where: string): string {
  return `SELECT count(*)::bigint AS count FROM nodes WHERE ${where}`;
}
