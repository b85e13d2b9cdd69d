-- Function records: a named expression over time series, and optionally the time series it
-- keeps up to date (its target). A table of its own rather than a kind of `nodes`: edges,
-- event relations, the asset graph and the objects ceiling read every row of `nodes`, and a
-- function is none of those. Ids come from the node sequence, so one id never names both a
-- series and a function; externalIds are a space of their own among the tenant's functions.
CREATE TABLE functions (
  tenant text NOT NULL,
  id bigint NOT NULL,
  external_id text NOT NULL,
  name text NOT NULL,
  description text,
  data_set_id bigint,
  metadata jsonb NOT NULL DEFAULT '{}',
  expression text NOT NULL,
  -- The target as the writer named it (what the record shows) and the series it resolved to
  -- when the writer's grant on it was checked. The id is what the function writes to: another
  -- series that later takes the externalId (the first one renamed, or deleted and created
  -- again) is not taken over without a new write that checks the grant on it.
  target_external_id text,
  target_series_id bigint,
  -- Why keeping the target up to date stopped (a revoked grant, a deleted series); null
  -- while it runs or before it ever ran. Written by evaluation, never by a request.
  target_status jsonb,
  created_time bigint NOT NULL,
  last_updated_time bigint NOT NULL,
  PRIMARY KEY (tenant, id),
  -- Both unique keys are checked at the end of each statement rather than row by row, so one
  -- update statement can hand a key from one function to another (the writes check the batch's
  -- final state first; the keys stay the last word when two requests race).
  CONSTRAINT functions_external_id UNIQUE (tenant, external_id) DEFERRABLE INITIALLY IMMEDIATE,
  -- Two functions never keep one series: each would overwrite the other's points. Functions
  -- without a target hold null, which a unique key lets repeat.
  CONSTRAINT functions_target UNIQUE (tenant, target_series_id) DEFERRABLE INITIALLY IMMEDIATE,
  CHECK ((target_external_id IS NULL) = (target_series_id IS NULL))
);
-- GET /functions: newest created first, paged by (created_time, id).
CREATE INDEX functions_created ON functions (tenant, created_time DESC, id DESC);
CREATE INDEX functions_data_set ON functions (tenant, data_set_id);
