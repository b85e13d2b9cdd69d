// Goal: an integer query parameter is read strictly: plain decimal within the
// declared bounds, the default when absent, a 400 naming the parameter otherwise (never a
// clamp or a silent default). Method: one line per case through check().
import t from 'tap';
import { BadRequestError } from '../engine/errors.ts';
import { integerQueryParam } from './query-params.ts';

const SPEC = { minimum: 1, maximum: 1000, default: 100 };

function check(query: string, expected: number | 'bad'): void {
  let got: number | 'bad';
  try {
    got = integerQueryParam(new URLSearchParams(query), 'limit', SPEC);
  } catch (error) {
    if (!(error instanceof BadRequestError) || error.fields[0]?.field !== 'limit') throw error;
    got = 'bad';
  }
  t.equal(got, expected, `?${query}`);
}

check('', 100);
check('limit=1', 1);
check('limit=1000', 1000);
check('limit=5&limit=abc', 5);
for (const bad of ['0', '1001', '-1', 'A', '', ' 5', '+5', '1e3', '0x10', '1.0', '05', 'NaN', 'Infinity', '9'.repeat(40)]) check(`limit=${encodeURIComponent(bad)}`, 'bad');
