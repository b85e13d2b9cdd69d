// SQL of the subscription records (subscription-records.ts). Values are always bound.

/** Channel a subscription write notifies (payload: tenant), so every process's coverage is reloaded. */
export const SUBSCRIPTIONS_CHANGED_CHANNEL = 'subscriptions_changed';

const COLUMNS = `s.id::float8 AS id, s.external_id, s.name, s.description, s.data_set_id::float8 AS data_set_id, s.created_time::float8 AS created_time,
       s.last_updated_time::float8 AS last_updated_time,
       (SELECT count(*) FROM subscription_series ss WHERE ss.tenant = s.tenant AND ss.subscription_id = s.id)::int AS timeseries_count`;

/** $1 tenant, $2 ids, $3 externalIds. */
export const SUBSCRIPTIONS_BY_KEYS = `
SELECT ${COLUMNS} FROM subscriptions s
 WHERE s.tenant = $1 AND (s.id = ANY($2::bigint[]) OR s.external_id = ANY($3::text[]))`;

/** One page by id: $1 tenant, $2 after this id, $3 rows. */
export const LIST_SUBSCRIPTIONS = `
SELECT ${COLUMNS} FROM subscriptions s WHERE s.tenant = $1 AND s.id > $2 ORDER BY s.id LIMIT $3`;

/** $1 tenant, $2 externalIds: those taken. */
export const TAKEN_SUBSCRIPTION_EXTERNAL_IDS = 'SELECT external_id FROM subscriptions WHERE tenant = $1 AND external_id = ANY($2::text[])';

/** $1 tenant, $2 externalId, $3 name, $4 description, $5 dataSetId, $6 now (ms). */
export const INSERT_SUBSCRIPTION = `
INSERT INTO subscriptions (tenant, id, external_id, name, description, data_set_id, created_time, last_updated_time)
VALUES ($1, nextval('subscription_id_seq'), $2, $3, $4, $5, $6, $6) RETURNING id::float8 AS id`;

/** $1 tenant, $2 id, $3 name, $4 description, $5 dataSetId, $6 now (ms). */
export const UPDATE_SUBSCRIPTION = `
UPDATE subscriptions SET name = $3, description = $4, data_set_id = $5, last_updated_time = $6 WHERE tenant = $1 AND id = $2`;

/** $1 tenant, $2 subscription id, $3 series ids. */
export const BIND_SERIES = `
INSERT INTO subscription_series (tenant, subscription_id, series_id)
SELECT $1, $2, unnest($3::bigint[]) ON CONFLICT DO NOTHING`;

/** $1 tenant, $2 subscription id, $3 series ids. */
export const UNBIND_SERIES = 'DELETE FROM subscription_series WHERE tenant = $1 AND subscription_id = $2 AND series_id = ANY($3::bigint[])';

/** $1 tenant, $2 subscription id. */
export const COUNT_BOUND_SERIES = 'SELECT count(*)::int AS n FROM subscription_series WHERE tenant = $1 AND subscription_id = $2';

/** $1 tenant, $2 ids. */
export const DELETE_SUBSCRIPTIONS = 'DELETE FROM subscriptions WHERE tenant = $1 AND id = ANY($2::bigint[])';

/** Time series of the tenant by ids ($2) or externalIds ($3), with their data set. */
export const SERIES_BY_KEYS = `
SELECT id::float8 AS id, external_id, data_set_id::float8 AS data_set_id FROM nodes
 WHERE tenant = $1 AND kind = 'timeseries' AND (id = ANY($2::bigint[]) OR external_id = ANY($3::text[]))`;

/** $1 tenant, $2 data set id: a row when it is a data set of the tenant. */
export const DATA_SET_EXISTS = `SELECT 1 FROM nodes WHERE tenant = $1 AND kind = 'dataset' AND id = $2`;

export const NOTIFY_SUBSCRIPTIONS_CHANGED = `SELECT pg_notify('${SUBSCRIPTIONS_CHANGED_CHANNEL}', $1)`;
