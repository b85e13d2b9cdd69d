// SQL of the embedded broker (subscription-broker.ts). Values are always bound.

/** Channel an append notifies (payload: tenant), so listening sockets on every process look at once. */
export const MESSAGES_APPENDED_CHANNEL = 'subscription_messages_appended';

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

/** Nacked messages are visible again at once: $1 tenant, $2 subscription ids, $3 sequences. */
export const NACK_MESSAGES = `
UPDATE subscription_messages m SET visible_at = 0, lease_owner = NULL FROM unnest($2::bigint[], $3::bigint[]) AS a(s, q)
 WHERE m.tenant = $1 AND m.subscription_id = a.s AND m.seq = a.q
RETURNING m.subscription_id::float8 AS subscription_id`;

/** A closing socket's leases are given back: $1 tenant, $2 subscription ids, $3 lease owner. */
export const RELEASE_LEASES = `
UPDATE subscription_messages SET visible_at = 0, lease_owner = NULL
 WHERE tenant = $1 AND subscription_id = ANY($2::bigint[]) AND lease_owner = $3`;

/**
 * Leases, in one statement for every attached socket of the process that is due: up to $6
 * visible messages ($5 now) of each (tenant $1, subscription $2) to owner $3 until $4. Two
 * sockets on one subscription in one statement never get the same message (each row is
 * updated once, for one of them).
 */
export const LEASE_MANY = `
WITH want AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) AS w(tenant, sub, owner, until)),
picked AS (
  SELECT w.tenant, w.sub, w.owner, w.until, p.seq FROM want w
  CROSS JOIN LATERAL (
    SELECT m.seq FROM subscription_messages m
     WHERE m.tenant = w.tenant AND m.subscription_id = w.sub AND m.visible_at <= $5
     ORDER BY m.seq LIMIT $6 FOR UPDATE SKIP LOCKED) p)
UPDATE subscription_messages m SET visible_at = p.until, lease_owner = p.owner
  FROM picked p WHERE m.tenant = p.tenant AND m.subscription_id = p.sub AND m.seq = p.seq
RETURNING m.subscription_id::float8 AS subscription_id, m.seq::text AS seq, m.items, m.data_set_ids::float8[] AS data_set_ids, m.lease_owner AS owner`;

/** Acks of many sockets in one statement: $1 tenants, $2 subscription ids, $3 sequences. */
export const ACK_MANY = `
DELETE FROM subscription_messages m USING unnest($1::text[], $2::bigint[], $3::bigint[]) AS a(t, s, q)
 WHERE m.tenant = a.t AND m.subscription_id = a.s AND m.seq = a.q`;
