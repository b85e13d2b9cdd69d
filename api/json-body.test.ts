// Goal: strict JSON body reading: every malformed body is a 400 naming what is wrong
// (Content-Type, empty, invalid UTF-8 with its byte, nesting past JSON_DEPTH_MAX, a key named
// twice with its path, a lone surrogate escape with its field path), nothing recurses, and
// valid bodies parse exactly as JSON.parse does.
// Method: one line per case through a local check(); fast-check (seeded, seed printed)
// compares the scanner and the UTF-8 locator with JSON.parse and node:buffer's isUtf8.
import { isUtf8 } from 'node:buffer';
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import fc from 'fast-check';
import { BadRequestError } from '../engine/errors.ts';
import { JSON_DEPTH_MAX } from '../engine/limits.ts';
import { countObjectKeys } from '../workers/json-duplicate-keys.ts';
import { invalidUtf8Offset, loneSurrogatePath, mayHoldLoneSurrogate, mayHoldNul, parseJsonBody, scanJsonStructure } from './json-body.ts';

const SEED = Number(process.env['JSON_BODY_SEED'] ?? 20_261_123);
t.comment(`fast-check seed ${SEED} (JSON_BODY_SEED to choose another)`);

const JSON_TYPE = 'application/json';
const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

/** In pooled shared memory at an odd offset, as the ingest path holds bodies. */
function shared(bytes: Uint8Array): Uint8Array {
  const view = new Uint8Array(new SharedArrayBuffer(bytes.byteLength + 13), 7, bytes.byteLength);
  view.set(bytes);
  return view;
}

/** The 400's first field and message start, or the parsed value. */
function outcome(raw: Uint8Array, contentType = JSON_TYPE): { value: unknown } | { field: string; message: string } {
  try {
    return { value: parseJsonBody(raw, contentType) };
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    return { field: error.fields[0]?.field ?? '', message: error.fields[0]?.message ?? '' };
  }
}

function check(name: string, raw: Uint8Array | string, expected: { value: unknown } | { field: string; message: string }, contentType = JSON_TYPE): void {
  t.strictSame(outcome(typeof raw === 'string' ? bytesOf(raw) : raw, contentType), expected, name);
}

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const withBytes = (before: string, bytes: number[], after: string): Uint8Array => new Uint8Array(Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]));

t.test('valid bodies parse as JSON.parse does', async () => {
  check('object', '{"items":[{"id":1}]}', { value: { items: [{ id: 1 }] } });
  check('+json type', '{"a":"b"}', { value: { a: 'b' } }, 'application/merge-patch+json; charset=utf-8');
  check('structure characters inside strings', '{"a":"{[:,\\"]}","b":"\\\\"}', { value: { a: '{[:,"]}', b: '\\' } });
  check('multi-byte UTF-8', '{"name":"Trykk æøå 压力 🌡"}', { value: { name: 'Trykk æøå 压力 🌡' } });
  check('multi-byte UTF-8 in shared memory', shared(bytesOf('{"name":"æ🌡"}')), { value: { name: 'æ🌡' } });
  check('a scalar is JSON (the schema refuses it)', 'null', { value: null });
  check(`nested ${JSON_DEPTH_MAX} deep`, nested(JSON_DEPTH_MAX), { value: JSON.parse(nested(JSON_DEPTH_MAX)) });
  check('the same key in sibling objects', '{"items":[{"id":1},{"id":2}],"id":3}', { value: { items: [{ id: 1 }, { id: 2 }], id: 3 } });
});

t.test('malformed bodies are 400s naming what is wrong', async () => {
  check('text/plain', '{}', { field: 'Content-Type', message: 'expected application/json' }, 'text/plain');
  check('no Content-Type', '{}', { field: 'Content-Type', message: 'expected application/json' }, '');
  check('empty', '', { field: '(body)', message: 'empty' });
  check('not JSON', '{"a":', { field: '(body)', message: 'invalid JSON' });
  check('invalid UTF-8 in a string', withBytes('{"a":"x', [0xff, 0xfe], '"}'), { field: '(body)', message: 'invalid UTF-8 at byte 7' });
  check('an overlong encoding of "/"', withBytes('{"a":"', [0xc0, 0xaf], '"}'), { field: '(body)', message: 'invalid UTF-8 at byte 6' });
  check('a UTF-16 surrogate', withBytes('{"a":"', [0xed, 0xa0, 0x80], '"}'), { field: '(body)', message: 'invalid UTF-8 at byte 6' });
  check('a truncated sequence at the end', withBytes('{"a":1}', [0xe2, 0x82], ''), { field: '(body)', message: 'invalid UTF-8 at byte 7' });
  check('invalid UTF-8 in shared memory', shared(withBytes('{"a":"', [0x80], '"}')), { field: '(body)', message: 'invalid UTF-8 at byte 6' });
  check(`nested ${JSON_DEPTH_MAX + 1} deep`, nested(JSON_DEPTH_MAX + 1), { field: '(body)', message: `nested deeper than ${JSON_DEPTH_MAX}` });
  check('100 000 arrays deep', nested(100_000), { field: '(body)', message: `nested deeper than ${JSON_DEPTH_MAX}` });
  check('10 000 objects deep', nestedObjects(10_000), { field: '(body)', message: `nested deeper than ${JSON_DEPTH_MAX}` });
  check('100 000 unclosed arrays', '['.repeat(100_000), { field: '(body)', message: `nested deeper than ${JSON_DEPTH_MAX}` });
  check('a duplicate key at the top', '{"items":[],"items":[{"id":1}]}', { field: 'items', message: 'duplicate key' });
  check('a duplicate key in an item', '{"items":[{"id":1},{"id":2,"externalId":"a","id":3}]}', { field: 'items.1.id', message: 'duplicate key' });
  check('a duplicate key spelled with an escape', '{"a":1,"\\u0061":2}', { field: 'a', message: 'duplicate key' });
  check('a duplicate __proto__', '{"__proto__":1,"__proto__":2}', { field: '__proto__', message: 'duplicate key' });
  check('a duplicate key deep down', '{"filter":{"metadata":{"k":"x","k":"y"}}}', { field: 'filter.metadata.k', message: 'duplicate key' });
});

t.test('a lone surrogate escape is a 400 naming its field; pairs parse', async () => {
  const lone = 'a lone surrogate (not Unicode text)';
  check('a lone high surrogate in an item', '{"items":[{"name":"\\ud800"}]}', { field: 'items.0.name', message: lone });
  check('a lone low surrogate, upper case', '{"items":[{"id":1},{"externalId":"a\\uDC00b"}]}', { field: 'items.1.externalId', message: lone });
  check('a high surrogate followed by a non-surrogate', '{"a":"\\ud83d\\u0041"}', { field: 'a', message: lone });
  check('two high surrogates', '{"a":"\\ud83d\\ud83d"}', { field: 'a', message: lone });
  check('the low half first', '{"a":"\\ude00\\ud83d"}', { field: 'a', message: lone });
  check('in an array deep down', '{"filter":{"type":["ok","\\udfff"]}}', { field: 'filter.type.1', message: lone });
  check('in a key', '{"filter":{"metadata":{"\\ud800":"x"}}}', { field: 'filter.metadata', message: `a key: ${lone}` });
  check('a top-level string', '"\\ud800"', { field: '(body)', message: lone });
  check('a pair escaped', '{"a":"\\ud83d\\ude00"}', { value: { a: '\u{1F600}' } });
  check('a pair as UTF-8', '{"a":"😀"}', { value: { a: '\u{1F600}' } });
  check('an escaped backslash before ud800 is text', '{"a":"\\\\ud800"}', { value: { a: '\\ud800' } });
  t.equal(mayHoldLoneSurrogate(bytesOf('{"a":"x"}')), false, 'no escape: no walk');
  t.equal(mayHoldLoneSurrogate(shared(bytesOf('{"a":"\\uD800"}'))), true, 'an upper-case escape, in shared memory');
  t.strictSame(loneSurrogatePath({ items: [{ a: 'ok' }, { b: ['x', 'y\udbff'] }] }), { path: ['items', '1', 'b', '1'], inKey: false }, 'the path of the first one');
  t.equal(loneSurrogatePath({ a: '\u{10FFFF}', b: ['\ud800\udc00'] }), undefined, 'none in well-formed text');
});

t.test('the scanner counts what JSON.parse builds', async () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), fc.boolean(), (value, indent) => {
    const text = JSON.stringify(value, null, indent ? 2 : 0);
    const scanned = scanJsonStructure(bytesOf(text), 1_000);
    return scanned.tooDeepAt === -1 && scanned.memberCount === countObjectKeys(JSON.parse(text));
  }), { seed: SEED, numRuns: 300 });
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
    const text = JSON.stringify(value);
    return isDeepStrictEqual(parseJsonBody(bytesOf(text), JSON_TYPE), JSON.parse(text));
  }), { seed: SEED, numRuns: 100 });
  t.pass('scanner counts and parsed values agree');
});

t.test('the UTF-8 locator agrees with isUtf8', async () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => (invalidUtf8Offset(bytes) === -1) === isUtf8(bytes)), { seed: SEED, numRuns: 2_000 });
  t.pass('agrees on random bytes');
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (text) => invalidUtf8Offset(bytesOf(text)) === -1), { seed: SEED, numRuns: 500 });
  t.pass('accepts every encoded string');
});

t.test('mayHoldNul finds the only spelling of U+0000 in JSON', async () => {
  t.equal(mayHoldNul(bytesOf(JSON.stringify({ a: 'x\u0000y' }))), true, 'an escaped NUL');
  t.equal(mayHoldNul(bytesOf(JSON.stringify({ a: 'x\u0001y' }))), false, 'another control character');
  t.equal(mayHoldNul(shared(bytesOf(JSON.stringify({ '\u0000': 1 })))), true, 'a NUL in a key, in shared memory');
});

t.test('cost on a 4 MiB body (printed, not asserted)', async () => {
  const items = [];
  for (let i = 0; i < 26_000; i++) items.push({ externalId: `series-${i}`, name: `Pump ${i} "pressure"`, description: 'x'.repeat(40), metadata: { site: 'oslo', line: String(i % 7) } });
  const raw = shared(bytesOf(JSON.stringify({ items })));
  const median = (run: () => unknown): number => {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      run();
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[3] as number;
  };
  const parseMs = median(() => JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')));
  const strictMs = median(() => parseJsonBody(raw, JSON_TYPE));
  const scanMs = median(() => scanJsonStructure(raw));
  t.strictSame(parseJsonBody(raw, JSON_TYPE), JSON.parse(Buffer.from(raw).toString('utf8')), 'same value as JSON.parse');
  t.comment(`${(raw.byteLength / 2 ** 20).toFixed(1)} MiB, medians of 7: JSON.parse ${parseMs.toFixed(1)} ms; parseJsonBody (UTF-8, depth, duplicates, parse) ${strictMs.toFixed(1)} ms, of which the structure scan ${scanMs.toFixed(1)} ms`);
});
