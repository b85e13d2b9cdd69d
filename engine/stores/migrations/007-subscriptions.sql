-- Subscriptions (SPEC "Subscription stream"): a named stream of data points of the
-- series it names, and of every series in its data set and that set's descendants. Tenant
-- first in every key. The subscription's own external ids are a space of their own.
CREATE SEQUENCE subscription_id_seq AS bigint START 1 MAXVALUE 9007199254740991;

CREATE TABLE subscriptions (
  tenant text NOT NULL,
  id bigint NOT NULL,
  external_id text NOT NULL,
  name text NOT NULL,
  description text,
  data_set_id bigint,
  created_time bigint NOT NULL,
  last_updated_time bigint NOT NULL,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, external_id)
);

-- The series a subscription names. The foreign key to nodes backs SPEC's rule that a bound
-- series cannot be deleted (the delete checks first, under the graph lock, for its 400).
CREATE TABLE subscription_series (
  tenant text NOT NULL,
  subscription_id bigint NOT NULL,
  series_id bigint NOT NULL,
  PRIMARY KEY (tenant, subscription_id, series_id),
  FOREIGN KEY (tenant, subscription_id) REFERENCES subscriptions (tenant, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant, series_id) REFERENCES nodes (tenant, id)
);
CREATE INDEX subscription_series_series ON subscription_series (tenant, series_id);

-- The embedded broker's durable log: one row per committed ingest batch per subscription it
-- touches, kept until acked. `items` is the frame's payload.items as JSON text; `data_set_ids`
-- the data set of each item (null for none), so a listener's grants filter without parsing.
-- `visible_at` (epoch ms) is when the message may be handed out: 0 for new, nacked and
-- released ones, now + ackTimeoutMs while leased to `lease_owner` (one socket).
CREATE SEQUENCE subscription_message_seq AS bigint;
CREATE TABLE subscription_messages (
  tenant text NOT NULL,
  subscription_id bigint NOT NULL,
  seq bigint NOT NULL DEFAULT nextval('subscription_message_seq'),
  write_version bigint NOT NULL,
  items text NOT NULL,
  data_set_ids bigint[] NOT NULL,
  visible_at bigint NOT NULL DEFAULT 0,
  lease_owner text,
  PRIMARY KEY (tenant, subscription_id, seq),
  FOREIGN KEY (tenant, subscription_id) REFERENCES subscriptions (tenant, id) ON DELETE CASCADE
);

-- How far each feeder has appended: every committed batch with a write version at or below
-- `write_version` is in subscription_messages (or touched no subscription). At start the
-- embedded feeder re-reads the points above its mark from the store (crash window).
CREATE TABLE subscription_feed_marks (
  feeder text PRIMARY KEY,
  write_version bigint NOT NULL
);
