-- An advanced filter's `prefix` on externalId (starts_with, engine/events/event-filter.ts):
-- a btree serves a prefix as a range only when it compares bytes, which the default
-- collation's index (events_external_id, by externalId and eventTime, kept for equality and
-- the externalId sort) does not promise. text_pattern_ops compares bytes under any collation.
-- With it a branch `externalId prefix p` of an advanced filter reads the events under p
-- instead of walking the eventTime index past every other event.
CREATE INDEX events_external_id_pattern ON events (tenant, external_id text_pattern_ops);
