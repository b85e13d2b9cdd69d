-- Naming policies and governance templates (docs/api.md "Policies"). A policy is not a node of
-- the graph; it has its own id space and its own externalId namespace within the tenant.
CREATE SEQUENCE policy_id_seq AS bigint START 1 MAXVALUE 9007199254740991;

CREATE TABLE policies (
  tenant text NOT NULL,
  id bigint NOT NULL,
  external_id text NOT NULL,
  name text NOT NULL,
  description text,
  target text NOT NULL CHECK (target IN ('resource', 'timeseries')),
  field text NOT NULL CHECK (field IN ('name', 'externalId', 'description')),
  pattern text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('advisory', 'enforce')),
  data_set_id bigint,
  -- The template this policy was applied from, if any (templates/apply is idempotent on it).
  template_external_id text,
  created_time bigint NOT NULL,
  last_updated_time bigint NOT NULL,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, external_id)
);
-- Evaluation reads a tenant's policies of one target on every create and update.
CREATE INDEX policies_target ON policies (tenant, target);

CREATE TABLE governance_templates (
  tenant text NOT NULL,
  external_id text NOT NULL,
  name text NOT NULL,
  description text,
  -- [{ key, name, description?, target, field, pattern, mode }]
  policies jsonb NOT NULL,
  created_time bigint NOT NULL,
  last_updated_time bigint NOT NULL,
  PRIMARY KEY (tenant, external_id)
);
