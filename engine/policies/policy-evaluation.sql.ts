import { BELONGS_TO } from '../graph/relationship-types.ts';

/**
 * Every data set at or above each of $2 (pairs: the data set asked for, one of its ancestors
 * or itself), following BELONGS_TO from child to parent; $1 tenant.
 */
export const DATA_SET_ANCESTORS = `
WITH RECURSIVE up(origin, id) AS (
  SELECT d, d FROM unnest($2::bigint[]) AS d
  UNION
  SELECT u.origin, e.end_id FROM up u
    JOIN edges e ON e.tenant = $1 AND e.start_id = u.id
    JOIN relationship_types rt ON rt.tenant = $1 AND rt.id = e.type_id AND rt.name = '${BELONGS_TO}'
    JOIN nodes p ON p.tenant = $1 AND p.id = e.end_id AND p.kind = 'dataset')
SELECT origin, id FROM up`;
