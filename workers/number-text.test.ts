// Goal: the byte-level number grammars agree with the references bit for bit (JSON number
// tokens with JSON.parse, numeric strings with Number()) and BIGINT / decimals are exact at
// their limits and one past. Method: seeded random tokens against the references, then one
// line per edge case.
import t from 'tap';
import { jsonNumberValue, parseBigintText, parseDecimalText, parseNumericText, scanJsonNumber } from './number-text.ts';
import { mulberry32 as prng } from '../engine/testing/prng.ts';


const bytes = (text: string) => new TextEncoder().encode(text);

function randomDigits(next: () => number, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) s += String(Math.floor(next() * 10));
  return s;
}

/** A random JSON number token: sizes from 1 to 30 digits, exponents up to ±400. */
function randomJsonNumber(next: () => number): string {
  const int = next() < 0.2 ? '0' : String(1 + Math.floor(next() * 9)) + randomDigits(next, Math.floor(next() * (next() < 0.5 ? 6 : 25)));
  const fraction = next() < 0.5 ? '.' + randomDigits(next, 1 + Math.floor(next() * (next() < 0.5 ? 4 : 20))) : '';
  const exponent = next() < 0.3 ? (next() < 0.5 ? 'e' : 'E') + (['', '+', '-'][Math.floor(next() * 3)] ?? '') + String(Math.floor(next() * (next() < 0.5 ? 25 : 400))) : '';
  return (next() < 0.3 ? '-' : '') + int + fraction + exponent;
}

t.test('scanJsonNumber matches JSON.parse on random tokens', async (t) => {
  const next = prng(1);
  let mismatches = 0;
  for (let i = 0; i < 20_000; i++) {
    const token = randomJsonNumber(next);
    const end = scanJsonNumber(bytes(token), 0, token.length);
    if (end !== token.length || !Object.is(jsonNumberValue, JSON.parse(token))) {
      mismatches++;
      t.fail(`token ${token}: end ${end}, value ${jsonNumberValue}, JSON.parse ${JSON.parse(token)}`);
      if (mismatches > 5) break;
    }
  }
  t.equal(mismatches, 0);
});

t.test('parseNumericText matches Number() on random numeric strings', async (t) => {
  const next = prng(2);
  for (let i = 0; i < 20_000; i++) {
    let text = randomJsonNumber(next);
    if (next() < 0.2) text = '+' + text.replace(/^-/, '');
    if (next() < 0.1) text = text.replace(/^(-?)0\./, '$1.');
    if (next() < 0.1) text = '00' + text.replace(/^-/, '');
    const value = parseNumericText(bytes(text), 0, text.length);
    if (!Object.is(value, Number(text))) return t.fail(`text ${text}: ${value} vs Number() ${Number(text)}`);
  }
  t.pass('20000 strings agree');
});

t.test('scanJsonNumber rejects what JSON rejects', async (t) => {
  const check = (token: string, end: number) => t.equal(scanJsonNumber(bytes(token), 0, token.length), end, token);
  check('01', 1); // the token is "0"; the caller sees a stray 1
  check('-', -1);
  check('1.', -1);
  check('.5', -1);
  check('1e', -1);
  check('1e+', -1);
  check('+1', -1);
  check('-0', 2);
  check('1.5e3x', 5);
});

t.test('parseNumericText grammar', async (t) => {
  const check = (text: string, expected: number) => t.ok(Object.is(parseNumericText(bytes(text), 0, text.length), expected), `${JSON.stringify(text)} -> ${expected}`);
  check('1.5', 1.5);
  check('-2e-3', -0.002);
  check('.5', 0.5);
  check('5.', 5);
  check('+7', 7);
  check('-0', -0);
  check('1e400', Infinity);
  check('-1e400', -Infinity);
  check('', NaN);
  check(' 1', NaN);
  check('1 ', NaN);
  check('NaN', NaN);
  check('Infinity', NaN);
  check('0x10', NaN);
  check('1_000', NaN);
  check('.', NaN);
  check('e5', NaN);
  check('1e', NaN);
  check('--1', NaN);
});

t.test('parseBigintText: exact signed 64-bit', async (t) => {
  const check = (text: string, expected: bigint | string) => t.equal(parseBigintText(bytes(text), 0, text.length), expected, text);
  check('9223372036854775807', 9223372036854775807n);
  check('-9223372036854775808', -9223372036854775808n);
  check('9223372036854775808', 'value-out-of-range');
  check('-9223372036854775809', 'value-out-of-range');
  check('9007199254740993', 9007199254740993n); // 2^53 + 1: a double would say ...992
  check('-9007199254740993', -9007199254740993n);
  check('00000000000000000000009', 9n);
  check('+42', 42n);
  check('-0', 0n);
  check('123456789012345678901234567890', 'value-out-of-range');
  check('1.0', 'value-type-mismatch');
  check('1e3', 'value-type-mismatch');
  check('', 'value-type-mismatch');
  check('-', 'value-type-mismatch');
  check(' 1', 'value-type-mismatch');
  check('abc', 'value-type-mismatch');
});

t.test('parseDecimalText: NUMERIC(18,6) and DECIMAL32(9,3), rounded half to even', async (t) => {
  const numeric = (text: string, expected: bigint | string) => t.equal(parseDecimalText(bytes(text), 0, text.length, 18, 6), expected, `NUMERIC ${text}`);
  const decimal32 = (text: string, expected: bigint | string) => t.equal(parseDecimalText(bytes(text), 0, text.length, 9, 3), expected, `DECIMAL32 ${text}`);
  numeric('999999999999.999999', 999999999999999999n);
  numeric('-999999999999.999999', -999999999999999999n);
  numeric('1000000000000', 'value-out-of-range');
  numeric('999999999999.9999995', 'value-out-of-range'); // rounds up to 10^12
  numeric('999999999999.9999994', 999999999999999999n);
  numeric('0.0000005', 0n); // half to even: 0
  numeric('0.0000015', 2n);
  numeric('0.0000025', 2n);
  numeric('0.00000251', 3n);
  numeric('1.2345675', 1234568n);
  numeric('1.2345665', 1234566n);
  numeric('-1.5e-6', -2n);
  numeric('1e3', 1000000000n);
  numeric('1E-7', 0n);
  numeric('1e-999999999', 0n);
  numeric('1e999999999', 'value-out-of-range');
  numeric('0e999999999', 0n);
  numeric('12345678901234567890e-8', 123456789012345679n);
  numeric('0.1', 100000n);
  numeric('.5', 500000n);
  numeric('5.', 5000000n);
  numeric('+3', 3000000n);
  numeric('000000000000000000001.5', 1500000n);
  numeric('abc', 'value-type-mismatch');
  numeric('1.2.3', 'value-type-mismatch');
  numeric('', 'value-type-mismatch');
  numeric('.', 'value-type-mismatch');
  numeric('1e', 'value-type-mismatch');
  numeric('1 ', 'value-type-mismatch');
  decimal32('999999.999', 999999999n);
  decimal32('-999999.999', -999999999n);
  decimal32('1000000', 'value-out-of-range');
  decimal32('999999.9995', 'value-out-of-range');
  decimal32('999999.9994', 999999999n);
  decimal32('0.0005', 0n);
  decimal32('0.0015', 2n);
  decimal32('12.3456', 12346n);
});

t.test('parseDecimalText matches a BigInt reference on random decimals', async (t) => {
  const next = prng(3);
  const reference = (text: string, scale: number): bigint => {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
    const digits = (m[2] ?? '') + (m[3] ?? '');
    const shift = Number(m[4] ?? 0) - (m[3] ?? '').length + scale;
    const d = BigInt(digits || '0');
    let q: bigint;
    if (shift >= 0) q = d * 10n ** BigInt(shift);
    else {
      const p = 10n ** BigInt(-shift);
      q = d / p;
      const r = d % p;
      if (r * 2n > p || (r * 2n === p && q % 2n === 1n)) q += 1n;
    }
    return m[1] === '-' ? -q : q;
  };
  for (let i = 0; i < 10_000; i++) {
    const text = (next() < 0.3 ? '-' : '') + randomDigits(next, 1 + Math.floor(next() * 10)) + (next() < 0.7 ? '.' + randomDigits(next, Math.floor(next() * 10)) : '') + (next() < 0.2 ? 'e' + String(Math.floor(next() * 12) - 6) : '');
    const expected = reference(text, 6);
    const actual = parseDecimalText(bytes(text), 0, text.length, 18, 6);
    const within = expected < 10n ** 18n && expected > -(10n ** 18n);
    if (actual !== (within ? expected : 'value-out-of-range')) return t.fail(`${text}: ${actual} vs ${expected}`);
  }
  t.pass('10000 decimals agree');
});
