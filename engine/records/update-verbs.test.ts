// Goal: the one update-verb applier: every verb on scalar, map and list fields, and each 400
// (set with setNull, setNull on a required field, set with add/remove, add/remove on a
// scalar). Method: pure cases, one line each, plus a fast-check property for add then remove.
import t from 'tap';
import fc from 'fast-check';
import { LABELS_MAX, METADATA_ENTRIES_MAX } from '../limits.ts';
import { applyListVerb, applyMapVerb, applyScalarVerb, capProblemsAfterUpdate, updateVerbProblems, type UpdateRules } from './update-verbs.ts';

const RULES: UpdateRules = {
  name: { shape: 'scalar', required: true },
  description: { shape: 'scalar' },
  metadata: { shape: 'map' },
  labels: { shape: 'list' },
};

t.test('scalar verbs', async (t) => {
  t.equal(applyScalarVerb('a', undefined), 'a', 'no verb keeps');
  t.equal(applyScalarVerb('a', {}), 'a', 'an empty verb keeps');
  t.equal(applyScalarVerb('a', { set: 'b' }), 'b', 'set replaces');
  t.equal(applyScalarVerb<string>(null, { set: '' }), '', 'set to an empty string');
  t.equal(applyScalarVerb('a', { setNull: true }), null, 'setNull clears');
  t.equal(applyScalarVerb('a', { setNull: false }), 'a', 'setNull false keeps');
  t.equal(applyScalarVerb(1, { set: 0 }), 0, 'set to zero');
});

t.test('map verbs', async (t) => {
  const current = { a: '1', b: '2' };
  const check = (verb: Parameters<typeof applyMapVerb>[1], expected: Record<string, string>, name: string) => t.strictSame(applyMapVerb(current, verb), expected, name);
  check(undefined, { a: '1', b: '2' }, 'no verb keeps');
  check({ set: { c: '3' } }, { c: '3' }, 'set replaces');
  check({ setNull: true }, {}, 'setNull clears');
  check({ add: { b: 'x', c: '3' } }, { a: '1', b: 'x', c: '3' }, 'add sets keys, overwriting');
  check({ remove: ['a', 'nope'] }, { b: '2' }, 'remove deletes keys, unknown ones ignored');
  check({ add: { c: '3' }, remove: ['c', 'a'] }, { b: '2' }, 'add then remove');
  t.strictSame(current, { a: '1', b: '2' }, 'the current map is not changed');
});

t.test('list verbs', async (t) => {
  const current = ['a', 'b'];
  const check = (verb: Parameters<typeof applyListVerb<string>>[1], expected: string[], name: string) => t.strictSame(applyListVerb(current, verb), expected, name);
  check(undefined, ['a', 'b'], 'no verb keeps');
  check({ set: ['c', 'c', 'd'] }, ['c', 'd'], 'set replaces, without repeats');
  check({ setNull: true }, [], 'setNull clears');
  check({ add: ['b', 'c', 'c'] }, ['a', 'b', 'c'], 'add appends what is missing');
  check({ remove: ['a', 'nope'] }, ['b'], 'remove drops, unknown ones ignored');
  check({ add: ['c'], remove: ['c'] }, ['a', 'b'], 'add then remove');
  type Ref = { id?: number; externalId?: string };
  const refs: Ref[] = [{ id: 1, externalId: 'x' }, { id: 2, externalId: 'y' }, { id: 3, externalId: 'z' }];
  const same = (a: Ref, b: Ref) => a.id === b.id;
  const matches = (entry: Ref, removal: Ref) => (removal.id !== undefined && removal.id === entry.id) || (removal.externalId !== undefined && removal.externalId === entry.externalId);
  t.strictSame(applyListVerb(refs, { remove: [{ id: 1 }, { externalId: 'z' }] }, same, matches), [{ id: 2, externalId: 'y' }], 'relatedResources: remove by id or externalId');
  t.strictSame(applyListVerb(refs, { add: [{ id: 2, externalId: 'y' }, { id: 4 }] }, same, matches).map((r) => r.id), [1, 2, 3, 4], 'relatedResources: add without repeats');
});

t.test('problems (400)', async (t) => {
  const check = (update: object, expected: string[], name: string) => t.strictSame(updateVerbProblems(update, RULES, 'items.3.update', 3).map((p) => `${p.field}: ${p.message}`), expected, name);
  check({ name: { set: 'x' }, description: { setNull: true }, metadata: { add: { a: '1' }, remove: ['b'] }, labels: { set: ['a'] } }, [], 'every good verb');
  check({ description: { set: 'd', setNull: true } }, ['items.3.update.description: `set` and `setNull` cannot be combined'], 'set with setNull');
  check({ name: { setNull: true } }, ['items.3.update.name: name cannot be cleared'], 'setNull on a required field');
  check({ name: { setNull: false } }, [], 'setNull false on a required field');
  check({ metadata: { set: {}, add: { a: '1' } } }, ['items.3.update.metadata: `set` cannot be combined with `add` or `remove`'], 'map set with add');
  check({ labels: { set: [], remove: ['a'] } }, ['items.3.update.labels: `set` cannot be combined with `add` or `remove`'], 'list set with remove');
  check({ labels: { setNull: true, add: ['a'] } }, ['items.3.update.labels: `setNull` cannot be combined with `add` or `remove`'], 'list setNull with add');
  check({ description: { add: 'x' } }, ['items.3.update.description: `add` and `remove` do not apply to description'], 'add on a scalar');
  check({ name: { set: 'x', setNull: true } }, ['items.3.update.name: `set` and `setNull` cannot be combined', 'items.3.update.name: name cannot be cleared'], 'both problems of one field');
  check({ unknown: { set: 1, setNull: true }, name: undefined }, [], 'fields without a rule and absent verbs are left to the caller');
  t.equal(updateVerbProblems({ name: { setNull: true } }, RULES, 'p', 3)[0]?.index, 3, 'problems carry the item index');
});

t.test('caps on the result of an update: at the limit and one past', async (t) => {
  const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
  const labels = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`);
  const fields = (result: Parameters<typeof capProblemsAfterUpdate>[0]) => capProblemsAfterUpdate(result, 'nodes.2.update', 2).map((p) => `${p.field}@${p.index}`);
  t.strictSame(fields({ metadata: entries(METADATA_ENTRIES_MAX), labels: labels(LABELS_MAX) }), [], 'at both limits');
  t.strictSame(fields({ metadata: entries(METADATA_ENTRIES_MAX + 1) }), ['nodes.2.update.metadata@2'], 'one entry past');
  t.strictSame(fields({ labels: labels(LABELS_MAX + 1) }), ['nodes.2.update.labels@2'], 'one label past');
  t.strictSame(fields({ metadata: entries(METADATA_ENTRIES_MAX + 1), labels: labels(LABELS_MAX + 1) }), ['nodes.2.update.metadata@2', 'nodes.2.update.labels@2'], 'both named');
  t.strictSame(fields({}), [], 'a family without the fields');
});

t.test('property: add then remove of the same keys leaves only the untouched ones', async () => {
  fc.assert(fc.property(fc.dictionary(fc.string(), fc.string()), fc.array(fc.string()), (current, keys) => {
    const add = Object.fromEntries(keys.map((k) => [k, 'v']));
    const out = applyMapVerb(current, { add, remove: keys });
    return Object.keys(out).every((k) => !keys.includes(k) && out[k] === current[k]) && Object.keys(current).filter((k) => !keys.includes(k)).every((k) => k in out);
  }));
});
