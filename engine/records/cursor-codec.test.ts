// Goal: the one cursor codec round-trips every state it is given, and refuses anything else
// with a typed failure (never a throw): garbage, tampered envelopes, states of the wrong
// shape, cursors of another kind or version, and cursors of another context. Method: fixed
// cases plus fast-check properties over arbitrary strings and states.
import t from 'tap';
import fc from 'fast-check';
import { CURSOR_CHARS_MAX, cursorCodec } from './cursor-codec.ts';

interface Position { v: string | number | null; i: number }
const isPosition = (s: unknown): s is Position => {
  if (typeof s !== 'object' || s === null) return false;
  const { v, i } = s as Record<string, unknown>;
  return (v === null || typeof v === 'string' || typeof v === 'number') && Number.isSafeInteger(i);
};
const codec = cursorCodec('test-filter', 1, isPosition);
const other = cursorCodec('test-other', 1, isPosition);
const newer = cursorCodec('test-filter', 2, isPosition);
const envelope = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

t.test('round trip', async (t) => {
  const state = { v: 'a\u00e9\u{1F600}"\\', i: 42 };
  t.strictSame(codec.decode(codec.encode(state, 'name:asc'), 'name:asc'), { ok: true, state });
  t.strictSame(codec.decode(codec.encode(state)), { ok: true, state }, 'default context');
  t.match(codec.encode(state, 'x'), /^[A-Za-z0-9_-]+$/, 'URL-safe, no padding');
});

t.test('refusals are typed, never thrown', async (t) => {
  const check = (cursor: string, expected: object, name: string, context = 'name:asc') => t.strictSame(codec.decode(cursor, context), { ok: false, ...expected }, name);
  const good = codec.encode({ v: 1, i: 1 }, 'name:asc');
  check('', { reason: 'undecodable' }, 'empty');
  check('not-a-cursor', { reason: 'undecodable' }, 'garbage');
  check(`${good}=`, { reason: 'undecodable' }, 'a character outside base64url');
  check(`${good.slice(0, -3)}`, { reason: 'undecodable' }, 'truncated');
  check('A'.repeat(CURSOR_CHARS_MAX + 1), { reason: 'undecodable' }, 'too long');
  check(envelope(null), { reason: 'undecodable' }, 'JSON null');
  check(envelope([1, 2]), { reason: 'undecodable' }, 'an array');
  check(envelope({ s: 'name:asc', n: false, v: 1, i: 1 }), { reason: 'undecodable' }, 'an old unversioned state');
  check(envelope({ k: 'test-filter', v: 1, c: 'name:asc' }), { reason: 'undecodable' }, 'no state');
  check(envelope({ k: 'test-filter', v: 1, c: 'name:asc', s: { v: { a: 1 }, i: 1 } }), { reason: 'undecodable' }, 'a state of the wrong shape');
  check(envelope({ k: 'test-filter', v: 1, c: 'name:asc', s: { v: 1, i: 1e30 } }), { reason: 'undecodable' }, 'an id out of range');
  check(envelope({ k: 'test-filter', v: '1', c: 'name:asc', s: { v: 1, i: 1 } }), { reason: 'undecodable' }, 'a version of the wrong type');
  check(newer.encode({ v: 1, i: 1 }, 'name:asc'), { reason: 'undecodable' }, 'another version');
  check(other.encode({ v: 1, i: 1 }, 'name:asc'), { reason: 'foreign', kind: 'test-other' }, 'another kind');
  check(good, { reason: 'context', issuedFor: 'name:asc' }, 'another context', 'name:desc');
  check(good, { reason: 'context', issuedFor: 'name:asc' }, 'no context given', '');
});

t.test('property: every state and context round-trips', async () => {
  fc.assert(fc.property(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), fc.maxSafeInteger(), fc.string(), (v, i, context) => {
    const decoded = codec.decode(codec.encode({ v, i }, context), context);
    return decoded.ok && decoded.state.v === v && decoded.state.i === i;
  }));
});

t.test('property: any string decodes to a typed answer without throwing', async () => {
  fc.assert(fc.property(fc.oneof(fc.string(), fc.base64String(), fc.string().map((s) => Buffer.from(s).toString('base64url'))), (cursor) => {
    const decoded = codec.decode(cursor, 'ctx');
    return decoded.ok ? isPosition(decoded.state) : ['undecodable', 'foreign', 'context'].includes(decoded.reason);
  }));
});

t.test('property: a tampered cursor never decodes to another state silently', async () => {
  fc.assert(fc.property(fc.string(), fc.maxSafeInteger(), fc.nat(), fc.integer({ min: 1, max: 63 }), (v, i, at, flip) => {
    const cursor = codec.encode({ v, i }, 'c');
    const index = at % cursor.length;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const replaced = alphabet[(alphabet.indexOf(cursor[index] as string) + flip) % 64] as string;
    const decoded = codec.decode(cursor.slice(0, index) + replaced + cursor.slice(index + 1), 'c');
    // A flipped character either breaks the envelope or changes what it carries: never a throw,
    // and a decoded state is always of the right shape.
    return !decoded.ok || isPosition(decoded.state);
  }));
});
