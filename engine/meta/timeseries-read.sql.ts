// SQL of time series reads (timeseries-read.ts) of their own; filter pages and search are
// node-page.sql.ts's, shared with resources.
import { TIMESERIES_JSON } from './timeseries-rows.sql.ts';

/**
 * Time series by ids or externalIds as JSON texts: $1 tenant, $2 readable data set ids
 * (null: every data set), $3 ids, $4 externalIds.
 */
export const TIMESERIES_BY_IDS_JSON = `
SELECT id, external_id, ${TIMESERIES_JSON} AS j FROM nodes
 WHERE tenant = $1 AND kind = 'timeseries'
   AND ($2::bigint[] IS NULL OR data_set_id IS NULL OR data_set_id = ANY($2::bigint[]))
   AND (id = ANY($3::bigint[]) OR external_id = ANY($4::text[]))`;
