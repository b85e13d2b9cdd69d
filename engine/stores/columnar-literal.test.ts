// Goal: the chdb driver's rendering of {name:Type} placeholders (columnar-literal.ts) keeps
// every value a value: any string comes back byte for byte, integers at the 64-bit limits
// stay exact, arrays keep their element type, and wrong or missing values are refused before
// anything runs. Method: render, then evaluate in a real chdb engine and compare.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { renderParams, stringLiteral } from './columnar-literal.ts';
import { openColumnarStore } from './columnar.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'columnar-literal-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openColumnarStore({ engine: 'chdb', path: dir });
t.teardown(() => store.close());

async function roundTrip(value: string): Promise<string | undefined> {
  const [row] = await store.query<{ s: string; hex: string }>('SELECT {s:String} AS s, hex({s:String}) AS hex', { s: value });
  return row && Buffer.from(row.hex, 'hex').toString('utf8');
}

t.test('strings come back exactly, hostile or not', async (t) => {
  const every = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join('');
  const cases = [every, "'", "\\'", "\\", "'; DROP TABLE x; --", "a' OR '1'='1", 'é☃𝄞', '{s:String}', '', "\\\\'\\x27"];
  for (const value of cases) t.equal(await roundTrip(value), value, JSON.stringify(value));
  let seed = 7;
  for (let i = 0; i < 20; i++) {
    const chars = Array.from({ length: 40 }, () => String.fromCodePoint(((seed = (seed * 48271) % 2147483647) % 0x2fff) + 1));
    const value = chars.join('');
    t.equal(await roundTrip(value), value);
  }
});

t.test('integers, floats and arrays keep their type and every digit', async (t) => {
  const [row] = await store.query<Record<string, string>>(`SELECT toString({a:UInt64}) AS a, toString({b:Int64}) AS b, toString({c:Int64}) AS c,
    toTypeName({d:Array(UInt64)}) AS d, toString({e:Array(String)}) AS e, toString({f:Float64}) AS f, toString({g:Array(Int64)}) AS g`, {
    a: 18446744073709551615n, b: -9223372036854775808n, c: 9007199254740991, d: [], e: ["x'", 'y'], f: 0.1, g: [-1n, 2n],
  });
  t.same(row, { a: '18446744073709551615', b: '-9223372036854775808', c: '9007199254740991', d: 'Array(UInt64)', e: "['x\\'','y']", f: '0.1', g: '[-1,2]' });
});

t.test('wrong or missing values are refused before anything runs', async (t) => {
  t.throws(() => renderParams('SELECT {a:UInt64}', { a: 1.5 }), /not a UInt64/);
  t.throws(() => renderParams('SELECT {a:UInt64}', { a: 2 ** 60 }), /not a UInt64/);
  t.throws(() => renderParams('SELECT {a:UInt64}', { a: '1 OR 1' }), /not a UInt64/);
  t.throws(() => renderParams('SELECT {a:String}', { a: 1 }), /not a String/);
  t.throws(() => renderParams('SELECT {a:Float64}', { a: Number.NaN }), /not a Float64/);
  t.throws(() => renderParams('SELECT {a:Array(UInt64)}', { a: 'x' }), /not a Array\(UInt64\)/);
  t.throws(() => renderParams('SELECT {a:Map(String, String)}', { a: 'x' }), /not supported/);
  t.throws(() => renderParams('SELECT {a:String}', {}), /has no value/);
  t.equal(renderParams('SELECT {a:String}', { a: "it's" }), "SELECT CAST('it\\'s' AS String)");
  t.equal(stringLiteral('\n\u0000'), "'\\x0a\\x00'");
});
