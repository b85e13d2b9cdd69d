// Goal: a tenant's hints are one snapshot object for as long as they do not change (the
// parser keeps its shared copy of a snapshot by identity), and a new one with the new
// targets as soon as a request teaches something different: a new series, another
// valueType, a series gone. Hints carry the series directory's epoch they were all learned
// in (the insert takes them as resolved only in that epoch): a newer epoch starts them over,
// a resolution of an older one teaches nothing, and one learned without an epoch makes them
// guesses. Method: TargetHints fed resolved targets as the insert feeds it.
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
  hints.learn('acme', items, [target(1), target(2)], 0);
  const first = hints.hintsFor('acme');
  t.same(first?.hints, { keys: ['x:a', 'x:b'], seriesIds: [1, 2], valueTypes: ['FLOAT', 'FLOAT'] });
  t.equal(first?.epoch, 0);
  hints.learn('acme', items, [target(1), target(2)], 0);
  t.equal(hints.hintsFor('acme'), first, 'the same targets again: the same snapshot');
  hints.learn('globex', items, [target(7), target(8)], 0);
  t.equal(hints.hintsFor('acme'), first, 'another tenant learning leaves it alone');

  hints.learn('acme', [{ externalId: 'b' }], [target(2, 'BIGINT')], 0);
  const retyped = hints.hintsFor('acme');
  t.not(retyped, first, 'a valueType changed: a new snapshot');
  t.same(retyped?.hints.valueTypes, ['FLOAT', 'BIGINT']);

  const moved = hints.hintsFor('acme');
  hints.learn('acme', [{ externalId: 'b' }], [{ ...target(2, 'BIGINT'), dataSetId: 5 }], 0);
  t.not(hints.hintsFor('acme'), moved, 'a data set changed: a new snapshot');
  t.equal(hints.hintsFor('acme')?.targets[1]?.dataSetId, 5, 'with the target as resolved');

  hints.learn('acme', [{ externalId: 'c' }], [target(3)], 0);
  t.same(hints.hintsFor('acme')?.hints.keys, ['x:a', 'x:b', 'x:c'], 'a new series');

  hints.learn('acme', [{ externalId: 'a' }], [null], 0);
  t.same(hints.hintsFor('acme')?.hints.keys, ['x:b', 'x:c'], 'a series gone');
  t.same(first?.hints.keys, ['x:a', 'x:b'], 'a snapshot given out is never changed');
});

t.test('hints hold one epoch of the series directory', async (t) => {
  const hints = new TargetHints(hintKey);
  hints.learn('acme', items, [target(1), target(2)], 3);
  const third = hints.hintsFor('acme');

  hints.learn('acme', [{ externalId: 'a' }], [target(9)], 2);
  t.equal(hints.hintsFor('acme'), third, 'a resolution that began before the last forget teaches nothing');

  hints.learn('acme', [{ externalId: 'c' }], [target(3)], 4);
  t.same(hints.hintsFor('acme'), { hints: { keys: ['x:c'], seriesIds: [3], valueTypes: ['FLOAT'] }, targets: [target(3)], epoch: 4 }, 'a newer epoch starts the hints over');

  hints.learn('acme', [{ externalId: 'd' }], [target(4)], undefined);
  t.same(hints.hintsFor('acme'), { hints: { keys: ['x:c', 'x:d'], seriesIds: [3, 4], valueTypes: ['FLOAT', 'FLOAT'] }, targets: [target(3), target(4)], epoch: undefined },
    'learned while the directory held nothing: kept, as guesses only');
  hints.learn('acme', [{ externalId: 'd' }], [target(4)], 4);
  t.same(hints.hintsFor('acme'), { hints: { keys: ['x:d'], seriesIds: [4], valueTypes: ['FLOAT'] }, targets: [target(4)], epoch: 4 }, 'guesses give way to an epoch');
});
