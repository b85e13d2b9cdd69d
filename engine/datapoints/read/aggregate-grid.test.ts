// Goal: granularity strings parse as CDF accepts them, and bucket grids align and follow time
// zones as CDF's aggregation and calendar pages document. Method: pure calls with the worked
// examples of CDF's calendar page and hand-computed daylight-saving days in Europe/Oslo.
import t from 'tap';
import { bucketEndOf, bucketReach, bucketStartOf, parseGranularity, requestGrid } from './aggregate-grid.ts';
import fc from 'fast-check';
import { instantOf, parseTimeZone } from './time-zone.ts';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const utc = (iso: string) => Date.parse(iso);

t.test('granularity strings: short and long forms, counts within the limits', async (t) => {
  t.same(parseGranularity('30s'), { count: 30, unit: 'second' });
  t.same(parseGranularity('15m'), { count: 15, unit: 'minute' });
  t.same(parseGranularity('2h'), { count: 2, unit: 'hour' });
  t.same(parseGranularity('1d'), { count: 1, unit: 'day' });
  t.same(parseGranularity('1w'), { count: 7, unit: 'day' });
  t.same(parseGranularity('2weeks'), { count: 14, unit: 'day' });
  t.same(parseGranularity('1mo'), { count: 1, unit: 'month' });
  t.same(parseGranularity('1q'), { count: 3, unit: 'month' });
  t.same(parseGranularity('1y'), { count: 12, unit: 'month' });
  t.same(parseGranularity('hour'), { count: 1, unit: 'hour' });
  t.same(parseGranularity('3months'), { count: 3, unit: 'month' });
  t.same(parseGranularity('120minutes'), { count: 120, unit: 'minute' });
  t.same(parseGranularity('1m'), { count: 1, unit: 'minute' });
  for (const bad of ['0m', '121s', '121m', '100001h', '15x', '', 'm5', '1.5h', '-1d']) {
    t.throws(() => parseGranularity(bad), { code: 'BadRequestError' }, bad);
  }
});

t.test('time zones: IANA names and fixed offsets, 15-minute multiples only', async (t) => {
  t.equal(parseTimeZone('UTC').fixedOffsetMs, 0);
  t.equal(parseTimeZone('+05:30').fixedOffsetMs, 5.5 * HOUR);
  t.equal(parseTimeZone('UTC+02:00').fixedOffsetMs, 2 * HOUR);
  t.equal(parseTimeZone('UTC-02').fixedOffsetMs, -2 * HOUR);
  t.equal(parseTimeZone('+0400').fixedOffsetMs, 4 * HOUR);
  t.equal(parseTimeZone('Europe/Oslo').offsetAt(utc('2024-07-01T00:00:00Z')), 2 * HOUR);
  t.equal(parseTimeZone('Europe/Oslo').offsetAt(utc('2024-01-01T00:00:00Z')), HOUR);
  for (const bad of ['Mars/Base', 'UTC+05:21', 'UTC+19:00', '+5:61']) t.throws(() => parseTimeZone(bad), { code: 'BadRequestError' }, bad);
  // 2024-03-31 02:00 local does not exist in Oslo: the day's 02:xx starts at the transition.
  t.equal(instantOf(parseTimeZone('Europe/Oslo'), utc('2024-03-31T02:30:00Z')), utc('2024-03-31T01:00:00Z'));
  // 2024-10-27 02:30 local happens twice: the first.
  t.equal(instantOf(parseTimeZone('Europe/Oslo'), utc('2024-10-27T02:30:00Z')), utc('2024-10-27T00:30:00Z'));
});

t.test('alignment: to the unit, not the multiple; end in the bucket holding it', async (t) => {
  const start = utc('2024-05-01T03:43:25Z');
  t.match(requestGrid('1h', undefined, start, start + HOUR), { start: utc('2024-05-01T03:00:00Z'), end: utc('2024-05-01T05:00:00Z'), stepMs: HOUR });
  t.match(requestGrid('60m', undefined, start, start + HOUR), { start: utc('2024-05-01T03:43:00Z') });
  t.match(requestGrid('15m', undefined, start, start + HOUR), { start: utc('2024-05-01T03:43:00Z'), end: utc('2024-05-01T04:58:00Z') });
  t.match(requestGrid('30s', undefined, start, start + 1000), { start: utc('2024-05-01T03:43:25Z'), end: utc('2024-05-01T03:43:55Z') });
  t.match(requestGrid('2d', undefined, start, start + 3 * DAY), { start: utc('2024-05-01T00:00:00Z'), end: utc('2024-05-05T00:00:00Z') });
  t.equal(requestGrid('1h', undefined, utc('2024-05-01T03:00:00Z'), utc('2024-05-01T03:00:00Z')), undefined, 'an empty range on an edge has no bucket');
  // CDF's calendar page: 3mo in Australia/Adelaide from 1580500000000.
  const months = requestGrid('3mo', 'Australia/Adelaide', 1580500000000, 1604151000000 + 1);
  t.same(months?.edges?.slice(0, 4), [1580477400000, 1588257000000, 1596205800000, 1604151000000]);
  // And UTC+01:00 from 1582144200000: 1day starts 1582066800000, 6h starts 1582142400000.
  t.equal(requestGrid('1day', 'UTC+01:00', 1582144200000, 1582144200001)?.start, 1582066800000);
  t.equal(requestGrid('6h', 'UTC+01:00', 1582144200000, 1582144200001)?.start, 1582142400000);
  // +05:30 hours start on the half hour (minute rollups then).
  t.match(requestGrid('1h', '+05:30', start, start + 1), { start: utc('2024-05-01T03:30:00Z'), cellMs: HOUR, origin: utc('2024-05-01T03:30:00Z') });
});

t.test('days and months follow the zone across daylight-saving changes', async (t) => {
  const days = requestGrid('1d', 'Europe/Oslo', utc('2024-03-30T12:00:00Z'), utc('2024-04-01T12:00:00Z'));
  t.same(days?.edges, [utc('2024-03-29T23:00:00Z'), utc('2024-03-30T23:00:00Z'), utc('2024-03-31T22:00:00Z'), utc('2024-04-01T22:00:00Z')]);
  t.equal(days?.cellMs, HOUR, 'whole-hour edges read hourly rollups');
  const fall = requestGrid('1d', 'Europe/Oslo', utc('2024-10-27T00:00:00Z'), utc('2024-10-27T12:00:00Z'));
  t.equal((fall?.end ?? 0) - (fall?.start ?? 0), 25 * HOUR, 'the autumn day lasts 25 hours');
  const weeks = requestGrid('1w', 'Europe/Oslo', utc('2024-03-28T12:00:00Z'), utc('2024-04-05T00:00:00Z'));
  t.same(weeks?.edges, [utc('2024-03-27T23:00:00Z'), utc('2024-04-03T22:00:00Z'), utc('2024-04-10T22:00:00Z')]);
  const quarter = requestGrid('1q', 'Europe/Oslo', utc('2024-02-10T00:00:00Z'), utc('2024-06-01T00:00:00Z'));
  t.same(quarter?.edges, [utc('2024-01-31T23:00:00Z'), utc('2024-04-30T22:00:00Z'), utc('2024-07-31T22:00:00Z')]);
  const year = requestGrid('1y', 'UTC', utc('2024-02-10T00:00:00Z'), utc('2024-03-01T00:00:00Z'));
  t.same(year?.edges, [utc('2024-02-01T00:00:00Z'), utc('2025-02-01T00:00:00Z')]);
  const kolkata = requestGrid('1d', '+05:30', utc('2024-05-01T20:00:00Z'), utc('2024-05-02T20:00:00Z'));
  t.match(kolkata, { start: utc('2024-05-01T18:30:00Z'), stepMs: DAY, cellMs: DAY, origin: utc('2024-05-01T18:30:00Z') });
  if (days) {
    t.equal(bucketStartOf(days, utc('2024-03-31T21:59:59Z')), utc('2024-03-30T23:00:00Z'));
    t.equal(bucketEndOf(days, utc('2024-03-30T23:00:00Z')), utc('2024-03-31T22:00:00Z'));
  }
  t.same(requestGrid('1d', 'Europe/Oslo', utc('2024-03-30T12:00:00Z'), utc('2024-04-01T12:00:00Z'), utc('2024-03-31T22:00:00Z'))?.edges,
    [utc('2024-03-31T22:00:00Z'), utc('2024-04-01T22:00:00Z')], 'a cursor drops the buckets before it');
});

t.test('bucketReach holds every bucket a read lays, for any granularity, zone and window', async (t) => {
  const granularities = ['1s', '30s', '1m', '15m', '120m', '1h', '6h', '1d', '2d', '1w', '1mo', '3mo', '1q', '1y', '2y'];
  const zones = [undefined, 'UTC', 'Europe/Oslo', 'Australia/Adelaide', 'America/St_Johns', '+05:30', 'UTC-11', 'Pacific/Kiritimati'];
  fc.assert(fc.property(
    fc.constantFrom(...granularities), fc.constantFrom(...zones), fc.integer({ min: utc('1990-01-01T00:00:00Z'), max: utc('2090-01-01T00:00:00Z') }), fc.integer({ min: 1, max: 400 * DAY }),
    (granularity, zone, start, span) => {
      const grid = requestGrid(granularity, zone, start, start + span);
      if (!grid) return true;
      const reach = bucketReach(parseGranularity(granularity), start, start + span);
      return grid.start >= reach.start && grid.end <= reach.end;
    },
  ), { numRuns: 2000, seed: 4242 });
  t.pass('every grid within its reach');
});
