// SQL of the CDF rollup columns (families.ts CDF_ROLLUP_COLUMNS): a minute's or an hour's
// points as one piece (read/cdf-pieces.ts), computed by the fold beside the other rollup
// columns, from raw points (a sorted array of the group's points) or, for hours, from the
// minute rows (a sorted array of minute pieces, joined by the segments between them). The
// squared deviations are summed around the group's own mean (segment by segment: each
// segment's own spread plus its length times its mean's distance from the group's), never as a
// difference of large sums. `WITH` names the arrays once per group; the columns read them.
// Only series listed in CDF_SERIES_TABLE get them (families.ts: their cost on disk); the others'
// arrays stay empty, their columns 0 and cdf_complete 0.
import { CDF_ROLLUP_COLUMNS, CDF_SERIES_TABLE, type FamilyShape } from '../tables/families.ts';

/** The WITH items and one expression per CDF_ROLLUP_COLUMNS entry. */
export interface CdfRollupSql { withItems: string[]; exprs: string[] }

const sq = (x: string) => `(${x}) * (${x})`;

/** Whether the row's series keeps the CDF columns (the statement binds {tenants}, as every fold statement). */
const LISTED = `(tenant, series_id) IN (SELECT tenant, series_id FROM ${CDF_SERIES_TABLE} WHERE tenant IN {tenants:Array(String)})`;

/**
 * Over raw rows grouped by bucket: the group's live points sorted by time, the segments between
 * consecutive ones (length d, values a then b), and the piece they make.
 */
export function cdfFromPointsSql(shape: FamilyShape): CdfRollupSql {
  const withItems = [
    `arraySort(p -> p.1, groupArrayIf((ts, ${shape.asFloat('value')}), ${LISTED})) AS cdf_points`,
    'arrayMap(p -> p.1, cdf_points) AS cdf_t',
    'arrayMap(p -> p.2, cdf_points) AS cdf_v',
    'arrayPopFront(arrayDifference(cdf_t)) AS cdf_d',
    'arrayPopBack(cdf_v) AS cdf_a',
    'arrayPopFront(cdf_v) AS cdf_b',
    'cdf_t[-1] - cdf_t[1] AS cdf_span',
    'arraySum((d, a, b) -> d * (a + b) / 2, cdf_d, cdf_a, cdf_b) AS cdf_lin',
    'arraySum((d, a) -> d * a, cdf_d, cdf_a) AS cdf_step',
    'if(cdf_span > 0, cdf_lin / cdf_span, 0) AS cdf_lin_mean',
    'if(cdf_span > 0, cdf_step / cdf_span, 0) AS cdf_step_mean',
    'arraySum(cdf_v) / length(cdf_v) AS cdf_mean',
  ];
  const exprs: Record<(typeof CDF_ROLLUP_COLUMNS)[number], string> = {
    cdf_complete: 'toUInt8(notEmpty(cdf_points))',
    first_ts: 'cdf_t[1]',
    first_value: 'cdf_v[1]',
    lin_integral: 'cdf_lin',
    lin_m2: `arraySum((d, a, b) -> d * (${sq('b - a')} / 12 + ${sq('(a + b) / 2 - cdf_lin_mean')}), cdf_d, cdf_a, cdf_b)`,
    step_integral: 'cdf_step',
    step_m2: `arraySum((d, a) -> d * ${sq('a - cdf_step_mean')}, cdf_d, cdf_a)`,
    total_variation: 'arraySum((a, b) -> abs(b - a), cdf_a, cdf_b)',
    value_m2: `arraySum(v -> ${sq('v - cdf_mean')}, cdf_v)`,
  };
  return { withItems, exprs: CDF_ROLLUP_COLUMNS.map((name) => exprs[name]) };
}

/**
 * Over minute rows (point_count > 0) grouped by hour: the minutes as pieces sorted by time
 * (p.1 first_ts, p.2 last_ts, p.3 first value, p.4 last value, p.5 points, p.6 their sum,
 * p.7 value_m2, p.8/p.9 linear integral and m2, p.10/p.11 stepwise, p.12 total variation), the
 * gaps between consecutive minutes (x before, y after), and the hour's piece.
 */
export function cdfFromPiecesSql(shape: FamilyShape): CdfRollupSql {
  const withItems = [
    `arraySort(p -> p.1, groupArrayIf((first_ts, last_ts, first_value, ${shape.asFloat('last_value')}, value_count, ${shape.asFloat('value_sum')},
      value_m2, lin_integral, lin_m2, step_integral, step_m2, total_variation), ${LISTED})) AS cdf_pieces`,
    'arrayPopBack(cdf_pieces) AS cdf_x',
    'arrayPopFront(cdf_pieces) AS cdf_y',
    'cdf_pieces[-1].2 - cdf_pieces[1].1 AS cdf_span',
    'arraySum(p -> p.8, cdf_pieces) + arraySum((x, y) -> (y.1 - x.2) * (x.4 + y.3) / 2, cdf_x, cdf_y) AS cdf_lin',
    'arraySum(p -> p.10, cdf_pieces) + arraySum((x, y) -> (y.1 - x.2) * x.4, cdf_x, cdf_y) AS cdf_step',
    'if(cdf_span > 0, cdf_lin / cdf_span, 0) AS cdf_lin_mean',
    'if(cdf_span > 0, cdf_step / cdf_span, 0) AS cdf_step_mean',
    'arraySum(p -> p.6, cdf_pieces) / arraySum(p -> p.5, cdf_pieces) AS cdf_mean',
  ];
  // A piece's own mean's distance from the hour's, weighted by its length (none for a single point).
  const spread = (integral: string, mean: string) => `if(p.2 > p.1, (p.2 - p.1) * ${sq(`${integral} / (p.2 - p.1) - ${mean}`)}, 0)`;
  const exprs: Record<(typeof CDF_ROLLUP_COLUMNS)[number], string> = {
    // Complete when every minute was (a minute folded before its series was listed was not).
    cdf_complete: `toUInt8(notEmpty(cdf_pieces) AND minIf(cdf_complete, ${LISTED}) = 1)`,
    first_ts: 'cdf_pieces[1].1',
    first_value: 'cdf_pieces[1].3',
    lin_integral: 'cdf_lin',
    lin_m2: `arraySum(p -> p.9 + ${spread('p.8', 'cdf_lin_mean')}, cdf_pieces)
      + arraySum((x, y) -> (y.1 - x.2) * (${sq('y.3 - x.4')} / 12 + ${sq('(x.4 + y.3) / 2 - cdf_lin_mean')}), cdf_x, cdf_y)`,
    step_integral: 'cdf_step',
    step_m2: `arraySum(p -> p.11 + ${spread('p.10', 'cdf_step_mean')}, cdf_pieces) + arraySum((x, y) -> (y.1 - x.2) * ${sq('x.4 - cdf_step_mean')}, cdf_x, cdf_y)`,
    total_variation: 'arraySum(p -> p.12, cdf_pieces) + arraySum((x, y) -> abs(y.3 - x.4), cdf_x, cdf_y)',
    value_m2: `arraySum(p -> p.7 + p.5 * ${sq('p.6 / p.5 - cdf_mean')}, cdf_pieces)`,
  };
  return { withItems, exprs: CDF_ROLLUP_COLUMNS.map((name) => exprs[name]) };
}
