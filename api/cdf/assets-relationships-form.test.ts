// Goal: the translations between CDF's asset and relationship forms and our resources and
// edges are exact where they agree and refuse by name what resources and edges cannot carry.
// Method: pure functions; one line per case.
import t from 'tap';
import { refusedFields } from './testing/refusal.ts';
import { fromCdfAssetCreates, fromCdfAssetFilter, fromCdfAssetList, fromCdfAssetSearch, fromCdfAssetUpdates, toCdfAsset } from './assets-form.ts';
import { fromCdfRelationshipCreates, fromCdfRelationshipFilter, fromCdfRelationshipList, toCdfRelationship } from './relationships-form.ts';

const refusal = refusedFields;

t.test('assets', async (t) => {
  t.strictSame(fromCdfAssetCreates([{ externalId: 'p', name: 'P', parentExternalId: 's', labels: [{ externalId: 'l' }], metadata: { a: 'b' }, dataSetId: 2, description: 'd' }]), [{
    node: { externalId: 'p', name: 'P', description: 'd', dataSetId: 2, metadata: { a: 'b' }, labels: ['l'] }, parent: { externalId: 's' },
  }]);
  t.strictSame(fromCdfAssetCreates([{ externalId: 'r', name: 'R' }]), [{ node: { externalId: 'r', name: 'R' } }], 'no parent: a root');
  t.equal(refusal(() => fromCdfAssetCreates([{ name: 'P' }])), 'items.0.externalId');
  t.equal(refusal(() => fromCdfAssetCreates([{ externalId: 'p', name: 'P', source: 'x' }])), 'items.0.source');
  t.equal(refusal(() => fromCdfAssetCreates([{ externalId: 'p', name: 'P', parentId: 1, parentExternalId: 'q' }])), 'items.0.parentId');
  t.strictSame(fromCdfAssetFilter({ parentIds: [1], parentExternalIds: ['a'], rootIds: [{ id: 2 }], assetSubtreeIds: [{ externalId: 'b' }], root: false, externalIdPrefix: 'pu', name: 'Pump' }), {
    filter: { name: 'Pump', externalId: 'pu*', isRoot: false }, parents: [{ id: 1 }, { externalId: 'a' }], subtrees: [{ externalId: 'b' }, { id: 2 }],
  });
  t.equal(refusal(() => fromCdfAssetFilter({ externalIdPrefix: 'a*' })), 'filter.externalIdPrefix');
  t.equal(refusal(() => fromCdfAssetFilter({ source: 'x' })), 'filter.source');
  t.equal(refusal(() => fromCdfAssetFilter({ labels: { containsAny: [{ externalId: 'a' }, { externalId: 'b' }] } })), 'filter.labels.containsAny');
  t.equal(refusal(() => fromCdfAssetList({ aggregatedProperties: ['childCount'] })), 'aggregatedProperties');
  t.equal(fromCdfAssetSearch({ search: { name: 'pump', description: 'feed' } }), 'pump feed');
  t.equal(refusal(() => fromCdfAssetSearch({})), 'search');
  t.strictSame(fromCdfAssetUpdates([{ id: 3, update: { labels: { add: [{ externalId: 'x' }] }, name: { set: 'N' } } }]), [{ id: 3, update: { name: { set: 'N' }, labels: { add: ['x'] } } }]);
  t.equal(refusal(() => fromCdfAssetUpdates([{ id: 3, update: { parentId: { set: 4 } } }])), 'items.0.update.parentId');
  t.strictSame(toCdfAsset({ resource: { id: 5, externalId: 'p', name: 'P', isRoot: false, labels: ['l'], metadata: {}, createdTime: 1, lastUpdatedTime: 2 }, parentId: 4, parentExternalId: 's', rootId: 4 }), {
    id: 5, externalId: 'p', name: 'P', parentId: 4, parentExternalId: 's', rootId: 4, metadata: {}, labels: [{ externalId: 'l' }], createdTime: 1, lastUpdatedTime: 2,
  });
});

t.test('relationships', async (t) => {
  const base = { externalId: 'r', sourceExternalId: 'a', sourceType: 'asset', targetExternalId: 't', targetType: 'timeSeries' } as const;
  t.strictSame(fromCdfRelationshipCreates([{ ...base, labels: [{ externalId: 'flowsTo' }] }]), [{ externalId: 'r', source: { externalId: 'a', kind: 'resource' }, target: { externalId: 't', kind: 'timeseries' }, type: 'FLOWSTO' }]);
  t.equal(fromCdfRelationshipCreates([base])[0]?.type, 'RELATED_TO');
  t.equal(refusal(() => fromCdfRelationshipCreates([{ ...base, targetType: 'event' }])), 'items.0.targetType');
  t.equal(refusal(() => fromCdfRelationshipCreates([{ ...base, confidence: 0.3, dataSetId: 1 }])), 'items.0.confidence,items.0.dataSetId');
  t.strictSame(fromCdfRelationshipFilter({ sourceTypes: ['asset', 'file'], labels: { containsAny: [{ externalId: 'a' }, { externalId: 'b' }] } }), { sourceKinds: ['resource'], types: ['A', 'B'] });
  t.equal(refusal(() => fromCdfRelationshipFilter({ confidence: { min: 0.5 } })), 'filter.confidence');
  t.equal(refusal(() => fromCdfRelationshipList({ fetchResources: true })), 'fetchResources');
  t.strictSame(toCdfRelationship({ externalId: 'r', edge: { id: 1, start: 2, end: 3, type: 'RELATED_TO', relationshipTypeId: 4, metadata: {}, createdTime: 5, lastUpdatedTime: 6 }, source: { externalId: 'a', kind: 'resource' }, target: { externalId: 't', kind: 'timeseries' } }), {
    externalId: 'r', sourceExternalId: 'a', sourceType: 'asset', targetExternalId: 't', targetType: 'timeSeries', labels: [], createdTime: 5, lastUpdatedTime: 6,
  });
});
