-- The event log (SPEC "Event"): an append-style operational history keyed by a
-- correlation key (externalId) many events share. Tenant first in every key. `id` is a UUID
-- (v7 when the server assigns it); rows with one id collapse, so a retried create is
-- idempotent.
CREATE TABLE events (
  tenant text NOT NULL,
  id uuid NOT NULL,
  external_id text NOT NULL,
  event_time bigint NOT NULL,
  type text,
  sub_type text,
  status text,
  source text,
  description text,
  data_set_id bigint,
  -- [{ "id": <node id>, "externalId": "..." }], both sides resolved at write time
  related_resources jsonb NOT NULL DEFAULT '[]',
  -- the node ids of related_resources, for the relatedResources filter
  related_ids bigint[] NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  created_time bigint NOT NULL,
  last_updated_time bigint NOT NULL,
  -- full-text search over the description (ranked); 'simple' keeps plant tags intact
  search tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(description, ''))) STORED,
  PRIMARY KEY (tenant, id)
);
-- One correlation key's stream, and the policy findings fold (group by externalId, last by eventTime).
CREATE INDEX events_external_id ON events (tenant, external_id, event_time, id);
-- The default sort and eventTime windows.
CREATE INDEX events_event_time ON events (tenant, event_time, id);
-- Filter by type and an eventTime window.
CREATE INDEX events_type_time ON events (tenant, type, event_time, id);
CREATE INDEX events_related ON events USING gin (related_ids);
CREATE INDEX events_metadata ON events USING gin (metadata jsonb_path_ops);
CREATE INDEX events_search ON events USING gin (search);
