/**
 * Adds to today's usage unless that passes the limit; no row back means refused. The first
 * charge of a day is checked too (a lease's slice on top of a large request can pass it).
 */
export const CHARGE_DAILY = `
INSERT INTO tenant_daily_usage AS u (tenant, day, metric, amount)
SELECT $1, $2::date, $3, $4::bigint WHERE $4::bigint <= $5::bigint
ON CONFLICT (tenant, day, metric) DO UPDATE SET amount = u.amount + EXCLUDED.amount
 WHERE u.amount + EXCLUDED.amount <= $5
RETURNING amount`;

/** Adds to cumulative usage unless that passes the ceiling. */
export const CHARGE_LIFETIME = `
INSERT INTO tenant_lifetime_usage AS u (tenant, metric, amount)
SELECT $1, $2, $3::bigint WHERE $3::bigint <= $4::bigint
ON CONFLICT (tenant, metric) DO UPDATE SET amount = u.amount + EXCLUDED.amount
 WHERE u.amount + EXCLUDED.amount <= $4
RETURNING amount`;

/** Live objects (SPEC: resources, time series, data sets, labels, policies), counted on live rows. */
export const LIVE_OBJECTS = `
SELECT (SELECT count(*) FROM nodes WHERE tenant = $1) + (SELECT count(*) FROM labels WHERE tenant = $1)
     + (SELECT count(*) FROM policies WHERE tenant = $1) AS objects`;
