// The containment tree of resources (asset-tree.ts): edges of one relationship type from a
// parent resource to its children. Walks are bounded by a depth (a tree deeper than that, or a
// cycle of containment edges, stops there).

/**
 * The ancestors of resources $2 ($1 tenant; $3 the containment type's name; $4 the depth
 * bound): for each, its chain upward (depth 0 is itself), each step the oldest containment
 * edge into the node from a resource, with each node's externalId and data set.
 */
export const ANCESTOR_CHAINS = `
WITH RECURSIVE up(id, node, depth) AS (
  SELECT x, x, 0 FROM unnest($2::bigint[]) AS x
  UNION ALL
  SELECT up.id, p.start_id, up.depth + 1 FROM up
   CROSS JOIN LATERAL (
     SELECT e.start_id FROM edges e
       JOIN relationship_types rt ON rt.tenant = e.tenant AND rt.id = e.type_id
       JOIN nodes n ON n.tenant = e.tenant AND n.id = e.start_id AND n.kind = 'resource'
      WHERE e.tenant = $1 AND e.end_id = up.node AND rt.name = $3
      ORDER BY e.id LIMIT 1) AS p
   WHERE up.depth < $4
)
SELECT up.id, up.depth, up.node, n.external_id, n.data_set_id
  FROM up JOIN nodes n ON n.tenant = $1 AND n.id = up.node
 ORDER BY up.id, up.depth`;

/**
 * The resources under resources $2 by containment, themselves included when $6 ($1 tenant,
 * $3 the type's name, $4 the depth bound, $5 at most this many rows), with their data sets.
 * $7: only the direct children.
 */
export const DESCENDANTS = `
WITH RECURSIVE down(node, depth) AS (
  SELECT x, 0 FROM unnest($2::bigint[]) AS x
  UNION
  SELECT e.end_id, down.depth + 1 FROM down
    JOIN edges e ON e.tenant = $1 AND e.start_id = down.node
    JOIN relationship_types rt ON rt.tenant = e.tenant AND rt.id = e.type_id AND rt.name = $3
    JOIN nodes n ON n.tenant = e.tenant AND n.id = e.end_id AND n.kind = 'resource'
   WHERE down.depth < $4 AND (NOT $7::boolean OR down.depth = 0)
)
SELECT DISTINCT d.node AS id, n.data_set_id FROM down d JOIN nodes n ON n.tenant = $1 AND n.id = d.node
 WHERE $6::boolean OR d.depth > 0
 LIMIT $5`;
