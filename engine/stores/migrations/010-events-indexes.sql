-- The event log's reads at the bench's size (1,000,000 events in a tenant; bench/events.ts).
--
-- Rows stay whole in the heap up to the largest target PostgreSQL allows (by default a row
-- past about 2 KB has its largest values moved to the TOAST table): an event with a 100-word
-- description is about 2.4 KB, and search ranks every match by its `search` tsvector, which
-- was then read from TOAST, three more buffers a match (1,700 matches ranked: 67 -> 14 ms).
-- A longer description is still compressed and moved out past the target.
ALTER TABLE events SET (toast_tuple_target = 8160);

-- Filter by type and an eventTime window: SPEC's type pattern compiles to
-- lower(type) LIKE lower(pattern) (engine/records/patterns.ts). A literal type then becomes
-- an index equality on this index (text_pattern_ops also serves a wildcard's literal prefix),
-- so the window is a range scan of that type instead of every event of the window filtered.
CREATE INDEX events_type_lower_time ON events (tenant, lower(type) text_pattern_ops, event_time, id);

-- Distinct-value lists (GET /events/list/*, /events/search/*): answered by a loose index scan
-- (one probe per distinct value, event-read.sql.ts) in the byte order SPEC's alphabetical
-- answer uses, so a list stops at its limit instead of reading every event of the tenant.
CREATE INDEX events_type_c ON events (tenant, type COLLATE "C") WHERE type IS NOT NULL;
CREATE INDEX events_sub_type_c ON events (tenant, sub_type COLLATE "C") WHERE sub_type IS NOT NULL;
CREATE INDEX events_status_c ON events (tenant, status COLLATE "C") WHERE status IS NOT NULL;
CREATE INDEX events_source_c ON events (tenant, source COLLATE "C") WHERE source IS NOT NULL;

-- GET /events/count: events per data set (NULL: none) as signed deltas, one row per write
-- statement, written in the transaction that adds, removes or moves events (event-append,
-- event-write). Counting a tenant sums its rows (filtered by the readable data sets) instead
-- of scanning its events. Deltas are only ever inserted, so concurrent writers take no lock
-- on a shared counter row; a count that finds many rows folds them into one per data set.
CREATE TABLE event_counts (
  tenant text NOT NULL,
  data_set_id bigint,
  n bigint NOT NULL
);
CREATE INDEX event_counts_tenant ON event_counts (tenant);
INSERT INTO event_counts (tenant, data_set_id, n) SELECT tenant, data_set_id, count(*) FROM events GROUP BY tenant, data_set_id;
