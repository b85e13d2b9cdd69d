// SQL of the embedded broker (subscription-broker.ts). Values are always bound.

/** Channel an append notifies (payload: tenant), so listening sockets on every process look at once. */
export const MESSAGES_APPENDED_CHANNEL = 'subscription_messages_appended';

/** The series a tenant's subscriptions name: $1 tenant. */
export const COVERAGE_SERIES = 'SELECT subscription_id::float8 AS subscription_id, series_id::float8 AS series_id FROM subscription_series WHERE tenant = $1';
/** The tenant's subscriptions over a data set: $1 tenant. */
export const COVERAGE_DATA_SETS = 'SELECT id::float8 AS id, data_set_id::float8 AS data_set_id FROM subscriptions WHERE tenant = $1 AND data_set_id IS NOT NULL';

/**
 * One statement, one commit: appends messages ($1 tenants, $2 subscription ids, $3 write
 * versions, $4 items JSON, $5 data set ids per item as `{...}` array literals; rows in array
 * order, so a subscription's sequence numbers follow commit order), moves the feeder's mark
 * ($6 feeder or null, $7 write version) forward only, and notifies $8 (payloads).
 */
export const APPEND_MESSAGES = `
WITH appended AS (
  INSERT INTO subscription_messages (tenant, subscription_id, write_version, items, data_set_ids)
  SELECT t, s, v, i, d::bigint[] FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[]) WITH ORDINALITY AS m(t, s, v, i, d, o)
   ORDER BY o),
marked AS (
  INSERT INTO subscription_feed_marks (feeder, write_version) SELECT $6::text, $7::bigint WHERE $6::text IS NOT NULL
  ON CONFLICT (feeder) DO UPDATE SET write_version = GREATEST(subscription_feed_marks.write_version, EXCLUDED.write_version))
SELECT pg_notify('${MESSAGES_APPENDED_CHANNEL}', n) FROM unnest($8::text[]) AS n`;

/**
 * Delivery state changes (lease, ack, nack, release) commit without waiting for the WAL
 * flush: one lost in a crash only makes a message visible again, which at-least-once allows.
 */
export const ASYNC_COMMIT = 'SET LOCAL synchronous_commit = off';

export const LOAD_FEED_MARK = 'SELECT write_version::text AS write_version FROM subscription_feed_marks WHERE feeder = $1';

/**
 * Leases up to $4 visible messages of one subscription to $6 until $5: $1 tenant, $2
 * subscription id, $3 now (ms). Two sockets on one subscription share its messages.
 */
export const LEASE_MESSAGES = `
WITH picked AS (
  SELECT seq FROM subscription_messages
   WHERE tenant = $1 AND subscription_id = $2 AND visible_at <= $3
   ORDER BY seq LIMIT $4 FOR UPDATE SKIP LOCKED)
UPDATE subscription_messages m SET visible_at = $5, lease_owner = $6
  FROM picked WHERE m.tenant = $1 AND m.subscription_id = $2 AND m.seq = picked.seq
RETURNING m.seq::text AS seq, m.items, m.data_set_ids::float8[] AS data_set_ids`;

/** Acked messages are forgotten: $1 tenant, $2 subscription ids, $3 sequences (pairwise). */
export const ACK_MESSAGES = `
DELETE FROM subscription_messages m USING unnest($2::bigint[], $3::bigint[]) AS a(s, q)
 WHERE m.tenant = $1 AND m.subscription_id = a.s AND m.seq = a.q`;

/** Nacked messages are visible again at once: $1 tenant, $2 subscription ids, $3 sequences. */
export const NACK_MESSAGES = `
UPDATE subscription_messages m SET visible_at = 0, lease_owner = NULL FROM unnest($2::bigint[], $3::bigint[]) AS a(s, q)
 WHERE m.tenant = $1 AND m.subscription_id = a.s AND m.seq = a.q
RETURNING m.subscription_id::float8 AS subscription_id`;

/** A closing socket's leases are given back: $1 tenant, $2 subscription ids, $3 lease owner. */
export const RELEASE_LEASES = `
UPDATE subscription_messages SET visible_at = 0, lease_owner = NULL
 WHERE tenant = $1 AND subscription_id = ANY($2::bigint[]) AND lease_owner = $3`;
