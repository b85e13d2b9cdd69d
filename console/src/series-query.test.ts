// Goal: the search box's terms become the search text and the filter SPEC's time series
// search applies: unit (symbol or catalogue externalId), data set, labels, metadata, quotes.
import t from 'tap';
import { hasFilter, parseSeriesQuery } from './series-query.ts';

t.test('free words only: the search text, no filter', async (t) => {
  t.same(parseSeriesQuery('  pump   inlet '), { text: 'pump inlet', filter: {} });
  t.notOk(hasFilter(parseSeriesQuery('pump').filter));
});

t.test('field terms become the filter; the rest is the text', async (t) => {
  t.same(parseSeriesQuery('pump unit:bar dataset:plant label:site-3 label:critical meta:area=north'), {
    text: 'pump',
    filter: { unit: 'bar', dataSetId: [{ externalId: 'plant' }], labels: ['site-3', 'critical'], metadata: { area: 'north' } },
  });
  t.same(parseSeriesQuery('unit:pressure:bar').filter, { unitExternalId: 'pressure:bar' }, 'a catalogue externalId');
  t.same(parseSeriesQuery('UNIT:m3/h').filter, { unit: 'm3/h' }, 'field names in any case');
  t.same(parseSeriesQuery('unit:"deg C" meta:loop=""').filter, { unit: 'deg C', metadata: { loop: '' } }, 'quoted values keep their spaces');
  t.same(parseSeriesQuery('"tank 4" level').text, 'tank 4 level', 'a quoted phrase is a word of the text');
  t.ok(hasFilter(parseSeriesQuery('label:x').filter));
});

t.test('what is not a term stays text', async (t) => {
  t.same(parseSeriesQuery('site:3 http://x').text, 'site:3 http://x', 'unknown fields and URLs are words');
  t.same(parseSeriesQuery('unit:').text, 'unit:', 'a field without a value is a word');
  t.same(parseSeriesQuery('<img src=x onerror=alert(1)>'), { text: '<img src=x onerror=alert(1)>', filter: {} }, 'a name holding = is words');
});
