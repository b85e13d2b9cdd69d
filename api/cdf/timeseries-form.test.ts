// Goal: CDF's time series form maps to ours and back exactly: isString to TEXT or FLOAT and
// back, isStep carried, absent fields left absent, SPEC-only fields never shown, the fields our
// model cannot carry refused by name, CDF's filter and update verbs in the engine's terms.
// Method: the pure functions, one line per case.
import t from 'tap';
import { refusal } from './testing/refusal.ts';
import { cdfTimeSeriesOfJson, fromCdfCreate, fromCdfFilter, fromCdfUpdate, searchPhraseOf, toCdfTimeSeries } from './timeseries-form.ts';

const refused = refusal;

t.test('create', async (t) => {
  t.strictSame(fromCdfCreate({ externalId: 'a' }, 0), { externalId: 'a', valueType: 'FLOAT', isStep: false });
  t.strictSame(fromCdfCreate({ externalId: 'a', isString: true, isStep: true, name: 'n', unit: 'm', metadata: { k: 'v' }, dataSetId: 3, legacyName: 'old' }, 0),
    { externalId: 'a', valueType: 'TEXT', isStep: true, name: 'n', unit: 'm', dataSetId: 3, metadata: { k: 'v' } }, 'legacyName is ignored');
  t.match(refused(() => fromCdfCreate({ name: 'n' }, 2)), /^BadRequestError: items\[2\]\.externalId/);
  t.match(refused(() => fromCdfCreate({ externalId: 'a', assetId: 1 }, 0)), /items\[0\]\.assetId/);
  t.match(refused(() => fromCdfCreate({ externalId: 'a', securityCategories: [1] }, 0)), /items\[0\]\.securityCategories/);
  t.equal(refused(() => fromCdfCreate({ externalId: 'a', securityCategories: [] }, 0)), 'accepted', 'no categories asked for');
});

t.test('record', async (t) => {
  const record = { id: 1, externalId: 'a', valueType: 'TEXT' as const, isStep: true, labels: ['x'], source: 's', metadata: {}, createdTime: 5, lastUpdatedTime: 6 };
  t.strictSame(toCdfTimeSeries(record), { id: 1, externalId: 'a', isString: true, isStep: true, metadata: {}, createdTime: 5, lastUpdatedTime: 6 });
  t.strictSame(cdfTimeSeriesOfJson(JSON.stringify({ ...record, valueType: 'BIGINT', name: 'n', unit: 'm', dataSetId: 2 })),
    { id: 1, externalId: 'a', isString: false, isStep: true, metadata: {}, createdTime: 5, lastUpdatedTime: 6, name: 'n', unit: 'm', dataSetId: 2 }, 'every numeric type is isString false');
});

t.test('filter', async (t) => {
  t.equal(fromCdfFilter(undefined), undefined);
  t.strictSame(fromCdfFilter({ name: 'n', isString: false, isStep: true, externalIdPrefix: 'p', dataSetIds: [{ id: 1 }], metadata: { k: 'v' }, createdTime: { min: 1 } }),
    { nameEquals: 'n', textValued: false, isStep: true, metadata: { k: 'v' }, dataSetId: [{ id: 1 }], externalIdPrefix: 'p', createdTime: { min: 1 } });
  for (const field of ['assetIds', 'rootAssetIds', 'assetSubtreeIds', 'assetExternalIds']) {
    t.match(refused(() => fromCdfFilter({ [field]: field === 'assetExternalIds' ? ['a'] : field === 'assetSubtreeIds' ? [{ id: 1 }] : [1] })), new RegExp(`filter\\.${field}`));
  }
});

t.test('update', async (t) => {
  t.strictSame(fromCdfUpdate({ id: 1, update: { name: { set: 'n' }, unit: { setNull: true }, isStep: { set: true }, metadata: { add: { a: 'b' }, remove: ['c'] } } }, 0),
    { id: 1, update: { name: { set: 'n' }, unit: { setNull: true }, metadata: { add: { a: 'b' }, remove: ['c'] }, isStep: { set: true } } });
  t.strictSame(fromCdfUpdate({ externalId: 'e', update: { assetId: { setNull: true }, securityCategories: { set: [] } } }, 0), { externalId: 'e', update: {} }, 'clearing what is never stored changes nothing');
  t.match(refused(() => fromCdfUpdate({ id: 1, update: { assetId: { set: 4 } } }, 3)), /items\[3\]\.update\.assetId/);
  t.match(refused(() => fromCdfUpdate({ id: 1, update: { securityCategories: { add: [4] } } }, 0)), /securityCategories/);
});

t.test('search phrase', async (t) => {
  t.equal(searchPhraseOf(undefined), undefined);
  t.equal(searchPhraseOf({ name: ' ' }), undefined);
  t.equal(searchPhraseOf({ name: 'pump', description: 'outlet', query: 'north' }), 'north pump outlet');
});
