-- The asset graph: resources are nodes of kind 'resource' with a root flag and a
-- raw GeoJSON location; edges already join any two nodes of a tenant.
ALTER TABLE nodes ADD COLUMN is_root boolean NOT NULL DEFAULT false;
ALTER TABLE nodes ADD COLUMN geo_location jsonb;
CREATE INDEX nodes_roots ON nodes (tenant, id) WHERE is_root;
CREATE INDEX edges_type ON edges (tenant, type_id);

-- The version of each tenant's graph structure (which resources exist, which are roots, which
-- edges join what). Every process holds the structure of the graphs it guards in memory
-- (engine/graph/graph-guard.ts) and trusts it only while this number is unchanged. A graph
-- write locks the row first, so writes of one tenant's graph are serialised; the triggers
-- below bump it on every structural change, whichever path made it (data set parents and
-- time series deletes write edges too).
CREATE TABLE graph_versions (
  tenant text PRIMARY KEY,
  version bigint NOT NULL
);

CREATE FUNCTION bump_graph_version_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions AS g (tenant, version)
    SELECT DISTINCT tenant, 1 FROM new_rows
  ON CONFLICT (tenant) DO UPDATE SET version = g.version + 1;
  RETURN NULL;
END $$;

CREATE FUNCTION bump_graph_version_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions AS g (tenant, version)
    SELECT DISTINCT tenant, 1 FROM old_rows
  ON CONFLICT (tenant) DO UPDATE SET version = g.version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER edges_inserted AFTER INSERT ON edges
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_graph_version_new();
CREATE TRIGGER edges_deleted AFTER DELETE ON edges
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_graph_version_old();
CREATE TRIGGER edges_updated AFTER UPDATE ON edges
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_graph_version_old();

-- Resource rows only: time series and data sets are ends of edges but never stranded, and an
-- insert or delete of them alone changes no reachability. (A node's edges are deleted with it,
-- which the edge triggers see.)
CREATE FUNCTION bump_graph_version_resources_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions AS g (tenant, version)
    SELECT DISTINCT tenant, 1 FROM new_rows WHERE kind = 'resource'
  ON CONFLICT (tenant) DO UPDATE SET version = g.version + 1;
  RETURN NULL;
END $$;

CREATE FUNCTION bump_graph_version_resources_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions AS g (tenant, version)
    SELECT DISTINCT tenant, 1 FROM old_rows WHERE kind = 'resource'
  ON CONFLICT (tenant) DO UPDATE SET version = g.version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER nodes_resources_inserted AFTER INSERT ON nodes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_graph_version_resources_new();
CREATE TRIGGER nodes_resources_deleted AFTER DELETE ON nodes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_graph_version_resources_old();
-- Only a change of the root flag matters; statement-level UPDATE triggers cannot name columns
-- with transition tables, so the function compares old and new rows.
CREATE FUNCTION bump_graph_version_roots() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO graph_versions AS g (tenant, version)
    SELECT DISTINCT n.tenant, 1 FROM new_rows n JOIN old_rows o ON o.tenant = n.tenant AND o.id = n.id
     WHERE n.is_root IS DISTINCT FROM o.is_root
  ON CONFLICT (tenant) DO UPDATE SET version = g.version + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_roots_updated AFTER UPDATE ON nodes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_graph_version_roots();
