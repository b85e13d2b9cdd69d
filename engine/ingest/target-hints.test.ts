// Goal: a tenant's hints are one snapshot object for as long as they do not change (the
// parser keeps its shared copy of a snapshot by identity), and a new one with the new
// targets as soon as a request teaches something different: a new series, another
// valueType, a series gone. Method: TargetHints fed resolved targets as the insert feeds it.
import t from 'tap';
import type { SeriesTarget } from '../meta/series-targets.ts';
import { TargetHints } from './target-hints.ts';

/** The workers' key (engine/ never imports workers/; api/server.ts hands theirs in). */
const hintKey = (item: { id?: number; externalId?: string }) => (item.id !== undefined ? `i:${item.id}` : `x:${item.externalId ?? ''}`);
const target = (seriesId: number, valueType: SeriesTarget['valueType'] = 'FLOAT'): SeriesTarget => ({ seriesId, externalId: `s${seriesId}`, valueType, dataSetId: null });
const items = [{ externalId: 'a' }, { externalId: 'b' }];

t.test('one snapshot while nothing changes, a new one on every change', async (t) => {
  const hints = new TargetHints(hintKey);
  t.equal(hints.hintsFor('acme'), undefined, 'nothing learned yet');
  hints.learn('acme', items, [target(1), target(2)]);
  const first = hints.hintsFor('acme');
  t.same(first, { keys: ['x:a', 'x:b'], seriesIds: [1, 2], valueTypes: ['FLOAT', 'FLOAT'] });
  hints.learn('acme', items, [target(1), target(2)]);
  t.equal(hints.hintsFor('acme'), first, 'the same targets again: the same snapshot');
  hints.learn('globex', items, [target(7), target(8)]);
  t.equal(hints.hintsFor('acme'), first, 'another tenant learning leaves it alone');

  hints.learn('acme', [{ externalId: 'b' }], [target(2, 'BIGINT')]);
  const retyped = hints.hintsFor('acme');
  t.not(retyped, first, 'a valueType changed: a new snapshot');
  t.same(retyped?.valueTypes, ['FLOAT', 'BIGINT']);

  hints.learn('acme', [{ externalId: 'c' }], [target(3)]);
  t.same(hints.hintsFor('acme')?.keys, ['x:a', 'x:b', 'x:c'], 'a new series');

  hints.learn('acme', [{ externalId: 'a' }], [null]);
  t.same(hints.hintsFor('acme')?.keys, ['x:b', 'x:c'], 'a series gone');
  t.same(first?.keys, ['x:a', 'x:b'], 'a snapshot given out is never changed');
});
