// Goal: the data point store micro benchmark keeps running (STYLE §12: a small size runs in
// make test so it cannot rot). Method: 3 series x 5 000 points, two timed rounds; the
// checksum is checked against what the data must give; timings are printed by the full
// run (`npx tsx engine/datapoints/datapoint-store.bench.ts`), never asserted.
import t from 'tap';
import { runDatapointStoreBench } from './datapoint-store.bench.ts';

t.test('the bench runs tiny and its answers add up', async (t) => {
  const result = await runDatapointStoreBench({ seriesCount: 3, pointsPerSeries: 5_000, rounds: 2, appenders: 2 });
  t.equal(result.points, 15_000);
  const [hourCount, rawCount] = result.checksum.split(':');
  t.equal(hourCount, '5000', 'the hourly COUNTs of one series add up to its points');
  t.equal(rawCount, '5000', 'the raw read returns every point of one series');
  t.ok(result.insertPointsPerSecond > 0 && result.bytesPerPoint > 0);
  for (const timing of Object.values(result.queries)) t.ok(timing.medianMs > 0);
});
