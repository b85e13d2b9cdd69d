import { FILE_COLUMNS } from './file-rows.ts';

/** $1 tenant, $2 path. */
export const FILE_BY_PATH = `SELECT ${FILE_COLUMNS} FROM files WHERE tenant = $1 AND path = $2`;

/** One folder by name: $1 tenant, $2 folder, $3 after this name ('' from the start), $4 limit. */
export const FOLDER_PAGE = `
SELECT ${FILE_COLUMNS} FROM files
 WHERE tenant = $1 AND folder = $2 AND name > $3
 ORDER BY name LIMIT $4`;

/**
 * Everything below a folder by path, a range of the primary key: $1 tenant, $2 after this
 * path, $3 below this path, $4 limit. Under folder f the range is (max(cursor, 'f/'), 'f0'):
 * '0' is the byte after '/', and paths compare as bytes.
 */
export const TREE_PAGE = `
SELECT ${FILE_COLUMNS} FROM files
 WHERE tenant = $1 AND path > $2 AND path < $3
 ORDER BY path LIMIT $4`;

/** Every file of the tenant by path: $1 tenant, $2 after this path, $3 limit. */
export const ALL_PAGE = `
SELECT ${FILE_COLUMNS} FROM files
 WHERE tenant = $1 AND path > $2
 ORDER BY path LIMIT $3`;
