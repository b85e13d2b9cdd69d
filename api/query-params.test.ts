// Goal: an integer query parameter is read strictly: plain decimal within the
// declared bounds, the default when absent, a 400 naming the parameter otherwise (never a
// clamp or a silent default); a NUL (%00) in any text parameter is a 422 naming it, numeric
// ones left to their own parser. Method: one line per case through check().
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { BadRequestError, UnprocessableError } from '../engine/errors.ts';
import { assertQueryText, integerQueryParam } from './query-params.ts';

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

const DECLARED = Type.Object({ limit: Type.Optional(Type.Integer()), q: Type.Optional(Type.String()) });

function checkText(query: string, expected: string | 'ok'): void {
  let got: string;
  try {
    assertQueryText(new URLSearchParams(query), DECLARED);
    got = 'ok';
  } catch (error) {
    if (!(error instanceof UnprocessableError)) throw error;
    got = error.fields[0]?.field ?? '';
  }
  t.equal(got, expected, `text ?${query}`);
}

checkText('', 'ok');
checkText('q=abc&x=%C3%A6', 'ok');
checkText('q=%00', 'q');
checkText('q=a%00b', 'q');
checkText('q=ok&cursor=%00', 'cursor');
checkText('a%00b=1', 'a\\u0000b');
checkText('limit=%00', 'ok'); // an integer parameter: its own parser refuses it
checkText('q=%ED%A0%80', 'ok'); // a lone surrogate decodes as U+FFFD: storable text
