-- Tenants, the shared node space (time series, data sets, resources), edges, relationship
-- types and labels. The tenant leads every key (STYLE §2).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE tenants (
  tenant text PRIMARY KEY,
  created_time bigint NOT NULL
);

-- One id space for every node of every tenant, capped at 2^53-1 so JavaScript clients hold
-- ids exactly. Ids are never reused, so a deleted series' points stay orphaned
-- until purged and can never be read through a new series.
CREATE SEQUENCE node_id_seq AS bigint START 1 MAXVALUE 9007199254740991;

CREATE TABLE nodes (
  tenant text NOT NULL,
  id bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('timeseries', 'dataset', 'resource')),
  external_id text NOT NULL,
  name text,
  description text,
  data_set_id bigint,
  labels text[] NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  source text,
  -- time series only
  value_type text,
  unit text,
  unit_external_id text,
  created_time bigint NOT NULL,
  last_updated_time bigint NOT NULL,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, external_id)
);
CREATE INDEX nodes_kind_created ON nodes (tenant, kind, created_time DESC, id DESC);
CREATE INDEX nodes_data_set ON nodes (tenant, data_set_id);
CREATE INDEX nodes_labels ON nodes USING gin (labels);
CREATE INDEX nodes_metadata ON nodes USING gin (metadata jsonb_path_ops);
CREATE INDEX nodes_search ON nodes USING gin ((coalesce(name, '') || ' ' || external_id || ' ' || coalesce(description, '')) gin_trgm_ops);

CREATE SEQUENCE edge_id_seq AS bigint START 1 MAXVALUE 9007199254740991;
CREATE SEQUENCE relationship_type_id_seq AS bigint START 1 MAXVALUE 9007199254740991;

CREATE TABLE relationship_types (
  tenant text NOT NULL,
  id bigint NOT NULL,
  name text NOT NULL,
  description text,
  i18n_code text,
  PRIMARY KEY (tenant, id)
);
CREATE UNIQUE INDEX relationship_types_name ON relationship_types (tenant, lower(name));

CREATE TABLE edges (
  tenant text NOT NULL,
  id bigint NOT NULL,
  start_id bigint NOT NULL,
  end_id bigint NOT NULL,
  type_id bigint NOT NULL,
  description text,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_time bigint NOT NULL,
  last_updated_time bigint NOT NULL,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, start_id, end_id, type_id)
);
CREATE INDEX edges_end ON edges (tenant, end_id);

CREATE TABLE labels (
  tenant text NOT NULL,
  external_id text NOT NULL,
  name text NOT NULL,
  description text,
  created_time bigint NOT NULL,
  PRIMARY KEY (tenant, external_id)
);
