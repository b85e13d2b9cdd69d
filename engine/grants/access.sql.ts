/** Data sets named by id or externalId, and every data set below them through BELONGS_TO. */
export const DESCENDANT_DATA_SETS = `
WITH RECURSIVE tree(id) AS (
  SELECT n.id FROM nodes n
   WHERE n.tenant = $1 AND n.kind = 'dataset' AND (n.id = ANY($2::bigint[]) OR n.external_id = ANY($3::text[]))
  UNION
  SELECT e.start_id
    FROM tree t
    JOIN edges e ON e.tenant = $1 AND e.end_id = t.id
    JOIN relationship_types rt ON rt.tenant = $1 AND rt.id = e.type_id AND rt.name = 'BELONGS_TO'
    JOIN nodes c ON c.tenant = $1 AND c.id = e.start_id AND c.kind = 'dataset'
)
SELECT id FROM tree`;
