// Goal: CDF's data set and label forms map to ours and back: absent fields stay absent,
// writeProtected false accepted and shown, true refused by name (or matching nothing in a
// filter), a label's dataSetId refused by name. Method: the pure functions, one line per case.
import t from 'tap';
import { refusal } from './testing/refusal.ts';
import { fromCdfDataSetCreate, fromCdfDataSetFilter, fromCdfDataSetUpdate, fromCdfLabelCreate, toCdfDataSet } from './datasets-form.ts';

const refused = refusal;

t.test('data sets', async (t) => {
  t.strictSame(fromCdfDataSetCreate({ externalId: 'a', writeProtected: false, metadata: { k: 'v' } }, 0), { externalId: 'a', metadata: { k: 'v' } });
  t.match(refused(() => fromCdfDataSetCreate({ name: 'n' }, 1)), /^BadRequestError: items\[1\]\.externalId/);
  t.match(refused(() => fromCdfDataSetCreate({ externalId: 'a', writeProtected: true }, 0)), /items\[0\]\.writeProtected/);
  t.strictSame(fromCdfDataSetFilter(undefined), {});
  t.equal(fromCdfDataSetFilter({ writeProtected: true }), null, 'matches nothing');
  t.strictSame(fromCdfDataSetFilter({ writeProtected: false, externalIdPrefix: 'p', metadata: { k: 'v' }, lastUpdatedTime: { max: 9 } }), { externalIdPrefix: 'p', metadata: { k: 'v' }, lastUpdatedTime: { max: 9 } });
  t.strictSame(fromCdfDataSetUpdate({ id: 1, update: { name: { setNull: true }, description: { set: 'd' }, writeProtected: { set: false } } }, 0), { id: 1, update: { name: { set: '' }, description: { set: 'd' } } });
  t.match(refused(() => fromCdfDataSetUpdate({ externalId: 'e', update: { externalId: { setNull: true } } }, 0)), /items\[0\]\.update\.externalId/);
  t.match(refused(() => fromCdfDataSetUpdate({ externalId: 'e', update: { writeProtected: { set: true } } }, 0)), /writeProtected/);
  t.strictSame(toCdfDataSet({ id: 1, externalId: 'a', name: '', metadata: {}, parentId: 2, parentExternalId: 'p', createdTime: 3, lastUpdatedTime: 4 }),
    { id: 1, externalId: 'a', metadata: {}, writeProtected: false, createdTime: 3, lastUpdatedTime: 4 }, 'no name shown as absent; the parent is ours only');
});

t.test('labels', async (t) => {
  t.strictSame(fromCdfLabelCreate({ externalId: 'l', name: 'L' }, 0), { externalId: 'l', name: 'L' });
  t.match(refused(() => fromCdfLabelCreate({ externalId: 'l', name: 'L', dataSetId: 1 }, 4)), /items\[4\]\.dataSetId/);
});
