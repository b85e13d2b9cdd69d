// SQL of a tenant's subscription coverage (subscription-coverage.ts). Values are always bound.

/** The series a tenant's subscriptions name: $1 tenant. */
export const COVERAGE_SERIES = 'SELECT subscription_id::float8 AS subscription_id, series_id::float8 AS series_id FROM subscription_series WHERE tenant = $1';
/** The tenant's subscriptions over a data set: $1 tenant. */
export const COVERAGE_DATA_SETS = 'SELECT id::float8 AS id, data_set_id::float8 AS data_set_id FROM subscriptions WHERE tenant = $1 AND data_set_id IS NOT NULL';
