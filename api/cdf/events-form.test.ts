// Goal: the translation between CDF's event form and our event log's is exact where the two
// agree and refuses by name what the log cannot carry, never dropping a field.
// Method: pure functions; one line per case through a small check helper.
import t from 'tap';
import { refusedFields } from './testing/refusal.ts';
import { fromCdfEventCreates, fromCdfEventFilter, fromCdfEventList, fromCdfEventSearch, fromCdfEventUpdates, toCdfEvent, uniqueValuesField } from './events-form.ts';

const refusal = refusedFields;

t.test('create: fields mapped, what the log cannot carry refused by name', async (t) => {
  t.strictSame(fromCdfEventCreates([{ externalId: 'wo-1', startTime: 5, endTime: 5, type: 'work', subtype: 'plan', assetIds: [7], dataSetId: 3, metadata: { a: 'b' }, source: 'SAP', description: 'd' }]), [{
    externalId: 'wo-1', eventTime: 5, type: 'work', subType: 'plan', description: 'd', metadata: { a: 'b' }, source: 'SAP', dataSetId: 3, relatedResources: [{ id: 7 }],
  }]);
  const check = (item: Record<string, unknown>, expected: string) => t.equal(refusal(() => fromCdfEventCreates([item as never])), expected, JSON.stringify(item));
  check({ externalId: 'wo-1', startTime: 1, endTime: 2 }, 'items.0.endTime');
  check({ startTime: 1 }, 'items.0.externalId');
  check({ externalId: 'wo-1' }, 'items.0.startTime');
  check({ externalId: 'wo', startTime: 1 }, 'items.0.externalId');
  check({ externalId: 'wo-1', startTime: 1, type: 'ab' }, 'items.0.type');
  check({ externalId: 'wo-1', startTime: 1, metadata: Object.fromEntries(Array.from({ length: 257 }, (_, k) => [`k${k}`, 'v'])) }, 'items.0.metadata');
});

t.test('filter and list: CDF ranges inclusive, exact matches as advanced leaves, refusals by name', async (t) => {
  t.strictSame(fromCdfEventFilter({ startTime: { min: 1, max: 10 }, activeAtTime: { min: 4 }, type: 'a', externalIdPrefix: 'wo' }), {
    filter: { eventTime: { min: 4, max: 11 } },
    advancedFilter: { and: [{ equals: { property: ['type'], value: 'a' } }, { prefix: { property: ['externalId'], value: 'wo' } }] },
  });
  t.strictSame(fromCdfEventFilter({ endTime: { min: 1 } }), { filter: { dataSetId: [] } }, 'no event has an endTime: nothing matches');
  t.strictSame(fromCdfEventFilter({ endTime: { isNull: true } }), { filter: {} });
  t.equal(refusal(() => fromCdfEventFilter({ assetSubtreeIds: [{ id: 1 }] })), 'filter.assetSubtreeIds');
  t.equal(refusal(() => fromCdfEventFilter({ assetIds: [1, 2] })), 'filter.assetIds');
  t.strictSame(fromCdfEventList({ sort: ['startTime:desc'], limit: 5 }), { limit: 5, sort: { property: ['eventTime'], order: 'desc' } });
  t.strictSame(fromCdfEventList({ sort: [] }), { limit: 100 });
  t.equal(refusal(() => fromCdfEventList({ sort: ['endTime:asc'] })), 'sort.0');
  t.equal(refusal(() => fromCdfEventList({ sort: ['startTime:asc', 'createdTime:asc'] })), 'sort');
});

t.test('search, update, unique values, and the record', async (t) => {
  t.equal(fromCdfEventSearch({ search: { description: 'high-pressure, inlet!' } }), 'high pressure inlet');
  t.equal(refusal(() => fromCdfEventSearch({ search: { description: '!!' } })), 'search.description');
  t.equal(refusal(() => fromCdfEventSearch({ filter: { type: 'a' }, search: { description: 'abc' } })), 'filter');
  t.strictSame(fromCdfEventUpdates([{ id: 4, update: { startTime: { set: 0 }, subtype: { setNull: true }, assetIds: { add: [1], remove: [2] }, endTime: { setNull: true } } }]), [{
    id: 4, update: { eventTime: { set: '1970-01-01T00:00:00.000Z' }, subType: { setNull: true }, relatedResources: { add: [{ id: 1 }], remove: [{ id: 2 }] } },
  }]);
  t.equal(refusal(() => fromCdfEventUpdates([{ externalId: 'x', update: { endTime: { set: 1 } } }])), 'items.0.update.endTime');
  t.equal(uniqueValuesField(['subtype']), 'subType');
  t.equal(refusal(() => uniqueValuesField(undefined)), 'fields');
  t.strictSame(toCdfEvent({ number: 9, event: { id: 'u', externalId: 'e-1', eventTime: 3, subType: 's', status: 'OPEN', metadata: {}, relatedResources: [{ id: '12', externalId: 'r' }], dataSetId: '4', createdTime: 1, lastUpdatedTime: 2 } }), {
    id: 9, externalId: 'e-1', startTime: 3, subtype: 's', metadata: {}, assetIds: [12], dataSetId: 4, createdTime: 1, lastUpdatedTime: 2,
  });
});
