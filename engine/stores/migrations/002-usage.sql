-- Daily ingest quotas (per UTC day) and lifetime ceilings (cumulative), SPEC "Limits".
CREATE TABLE tenant_daily_usage (
  tenant text NOT NULL,
  day date NOT NULL,
  metric text NOT NULL,
  amount bigint NOT NULL,
  PRIMARY KEY (tenant, day, metric)
);

CREATE TABLE tenant_lifetime_usage (
  tenant text NOT NULL,
  metric text NOT NULL,
  amount bigint NOT NULL,
  PRIMARY KEY (tenant, metric)
);
