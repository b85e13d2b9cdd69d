// Goal: the data point engine's post-commit hook (what subscriptions stand on) seen
// from the API: a listener registered on the engine hears each acknowledged insert exactly
// once, with its tenant, series ids and exact values, by the time the 204 is read; a refused
// request (422, nothing written) is never heard; after unsubscribing nothing is.
// Method: one real server (embedded PostgreSQL, chdb, group commit with its write-ahead log)
// in this process; the listener is registered through RunningServer.datapoints.
import t from 'tap';
import type { CommittedBatch } from '../engine/ingest/ingest-log.ts';
import { copyCommitted } from '../engine/ingest/commit-listeners.ts';
import { createSeries, startDatapointServer } from './testing/datapoints-fixture.ts';

const srv = await startDatapointServer();
t.teardown(() => srv.close());
const T0 = Date.UTC(2024, 0, 1);

function heard(batches: CommittedBatch[], tenant: string) {
  return batches.filter((b) => b.tenant === tenant).flatMap((b) => b.series.map((s) => ({
    seriesId: s.seriesId, valueType: s.valueType, timestampMs: [...s.timestampMs],
    values: s.bigint ? [...s.bigint].map(String) : s.float ? [...s.float] : [...(s.text ?? [])],
  })));
}

t.test('an acknowledged insert is heard once, exactly; a refused one never', async (t) => {
  const org = srv.newTenant();
  const token = srv.token({ org });
  const ids = await createSeries(srv, token, [{ externalId: 'big', valueType: 'BIGINT' }, { externalId: 'f', valueType: 'FLOAT' }]);
  const batches: CommittedBatch[] = [];
  const unsubscribe = srv.server.datapoints.onCommitted((batch) => { batches.push(copyCommitted(batch)); }); // lent for the call only
  t.teardown(unsubscribe);

  const ok = await srv.request('POST', '/timeseries/data', { token, body: { items: [
    { externalId: 'big', datapoints: [{ timestamp: T0, value: '9223372036854775807' }, { timestamp: T0 + 1, value: '-9007199254740993' }] },
    { externalId: 'f', datapoints: [{ timestamp: T0, value: '1.5' }] },
  ] } });
  t.equal(ok.status, 204);
  // Heard at the acknowledgement: by the time the 204 is read, the listener has run.
  t.strictSame(heard(batches, org).sort((a, b) => a.seriesId - b.seriesId), [
    { seriesId: ids['big'], valueType: 'BIGINT', timestampMs: [T0, T0 + 1], values: ['9223372036854775807', '-9007199254740993'] },
    { seriesId: ids['f'], valueType: 'FLOAT', timestampMs: [T0], values: [1.5] },
  ].sort((a, b) => (a.seriesId as number) - (b.seriesId as number)), 'exact values, BIGINT past 2^53 included');

  const refused = await srv.request('POST', '/timeseries/data', { token, body: { items: [{ externalId: 'big', datapoints: [{ timestamp: T0 + 5, value: 'not a number' }] }] } });
  t.equal(refused.status, 422);
  t.equal(heard(batches, org).length, 2, 'a refused request is never heard');

  unsubscribe();
  const after = await srv.request('POST', '/timeseries/data', { token, body: { items: [{ externalId: 'f', datapoints: [{ timestamp: T0 + 9, value: '2' }] }] } });
  t.equal(after.status, 204);
  t.equal(heard(batches, org).length, 2, 'nothing is heard after unsubscribing');
});
