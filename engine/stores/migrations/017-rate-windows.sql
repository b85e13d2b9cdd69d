-- Per-minute rate limits (SPEC "Limits") counted once for a tenant however many API
-- instances serve it: requests used per budget and fixed one-minute window, charged in
-- slices (engine/quotas/rate-windows.ts). UNLOGGED: a window lives a minute, so a crash of
-- PostgreSQL losing the counts costs at most one window's budget counted afresh, and the
-- counters skip the WAL on every charge. Windows older than the previous one are deleted
-- by the instances as the minute turns.
CREATE UNLOGGED TABLE rate_windows (
  tenant text NOT NULL,
  scope text NOT NULL,
  subject text NOT NULL,
  budget text NOT NULL,
  window_start bigint NOT NULL,
  used integer NOT NULL,
  PRIMARY KEY (tenant, scope, subject, budget, window_start)
);
