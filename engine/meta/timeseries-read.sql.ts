// SQL of time series reads (timeseries-read.ts) of their own; filter pages and search are
// node-page.sql.ts's, shared with resources.
import { TIMESERIES_JSON, TIMESERIES_RECORD_JSON } from './timeseries-rows.sql.ts';

/**
 * Time series by ids or externalIds as JSON texts: $1 tenant, $2 readable data set ids
 * (null: every data set), $3 ids, $4 externalIds.
 */
export const TIMESERIES_BY_IDS_JSON = `
SELECT id, external_id, ${TIMESERIES_JSON} AS j FROM nodes
 WHERE tenant = $1 AND kind = 'timeseries'
   AND ($2::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($2::bigint[]))
   AND (id = ANY($3::bigint[]) OR external_id = ANY($4::text[]))`;

/** As TIMESERIES_BY_IDS_JSON, each record with every stored field (TIMESERIES_RECORD_JSON). */
export const TIMESERIES_RECORDS_BY_IDS_JSON = TIMESERIES_BY_IDS_JSON.replace(TIMESERIES_JSON, TIMESERIES_RECORD_JSON);

/** How many nodes the filter's WHERE clause matches (its values bound by the caller). */
export const timeSeriesCountSql = (where: string): string => `SELECT count(*)::float8 AS count FROM nodes WHERE ${where}`;
