/**
 * Adds `$6` requests to a budget's window unless that passes the limit `$7`; no row back
 * means refused (the first charge of a window is checked too).
 */
export const CHARGE_WINDOW = `
INSERT INTO rate_windows AS w (tenant, scope, subject, budget, window_start, used)
SELECT $1, $2, $3, $4, $5::bigint, $6::integer WHERE $6::integer <= $7::integer
ON CONFLICT (tenant, scope, subject, budget, window_start) DO UPDATE SET used = w.used + EXCLUDED.used
 WHERE w.used + EXCLUDED.used <= $7::integer
RETURNING used`;

/** Windows before `$1` are over for every instance (fixed windows, one clock per machine or NTP). */
export const FORGET_WINDOWS_BEFORE = 'DELETE FROM rate_windows WHERE window_start < $1::bigint';
