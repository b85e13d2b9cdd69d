// Goal: CDF's data point requests become the engine's as CDF documents them: relative times
// (`now`, `<n><s|m|h|d|w>-ago`, `-ahead`) against the given clock, start 0 / end now / limit 100
// when omitted, item fields over top-level ones, a delete without exclusiveEnd as the one
// millisecond at inclusiveBegin; fields this service cannot carry are a 400 naming them.
// Method: the pure translation functions with a fixed clock; one line per case.
import t from 'tap';
import { BadRequestError } from '../../engine/errors.ts';
import { cdfTimeMs, deleteRequestFromCdf, latestRequestFromCdf, listRequestFromCdf } from './datapoints-form.ts';

const NOW = 1_700_000_000_000;

t.test('CDF times', async (t) => {
  const check = (input: number | string | undefined, expected: number | undefined) => t.equal(cdfTimeMs(input, NOW, 'start'), expected, String(input));
  check(undefined, undefined);
  check(0, 0);
  check(-86_400_000, -86_400_000);
  check('now', NOW);
  check('30s-ago', NOW - 30_000);
  check('15m-ago', NOW - 900_000);
  check('2h-ago', NOW - 7_200_000);
  check('2d-ago', NOW - 172_800_000);
  check('1w-ago', NOW - 604_800_000);
  check('3d-ahead', NOW + 259_200_000);
  for (const bad of ['yesterday', '2 d-ago', '2y-ago', '-2d-ago', '2d', '', 'NOW', '1700000000000', '999999999999w-ago']) {
    let thrown: unknown;
    try {
      cdfTimeMs(bad, NOW, 'items.0.start');
    } catch (error) {
      thrown = error;
    }
    t.ok(thrown instanceof BadRequestError, `refused: ${JSON.stringify(bad)}`);
  }
});

t.test('retrieve: defaults, top-level fields under item fields', async (t) => {
  const request = listRequestFromCdf({
    items: [{ externalId: 'a' }, { id: 7, start: '1h-ago', limit: 5, includeOutsidePoints: false, cursor: 'c' }],
    end: 'now', limit: 50, includeOutsidePoints: true, ignoreUnknownIds: true,
  }, NOW);
  t.strictSame(request, {
    items: [
      { externalId: 'a', start: 0, end: NOW, limit: 50, includeOutsidePoints: true },
      { id: 7, start: NOW - 3_600_000, end: NOW, limit: 5, cursor: 'c', includeOutsidePoints: false },
    ],
    ignoreUnknownIds: true,
  });
  t.strictSame(listRequestFromCdf({ items: [{ externalId: 'a' }] }, NOW), { items: [{ externalId: 'a', start: 0, end: NOW, limit: 100, includeOutsidePoints: false }], ignoreUnknownIds: false });
});

t.test('retrieve: what is not served is a 400 naming it', async (t) => {
  const refused = (body: Parameters<typeof listRequestFromCdf>[0], field: string) => {
    try {
      listRequestFromCdf(body, NOW);
      t.fail(`${field}: accepted`);
    } catch (error) {
      t.ok(error instanceof BadRequestError, field);
      t.strictSame((error as BadRequestError).fields.map((f) => f.field), [field], field);
    }
  };
  refused({ items: [{ externalId: 'a', aggregates: ['average'], granularity: '1h' }] }, 'items.0.aggregates');
  refused({ items: [{ externalId: 'a' }, { externalId: 'b' }], aggregates: ['count'] }, 'items.0.aggregates');
  refused({ items: [{ instanceId: { space: 's', externalId: 'x' } }] }, 'items.0.instanceId');
  refused({ items: [{ externalId: 'a', targetUnit: 'temperature:deg_f' }] }, 'items.0.targetUnit');
  refused({ items: [{ externalId: 'a' }], targetUnitSystem: 'Imperial' }, 'targetUnitSystem');
});

t.test('latest and delete', async (t) => {
  t.strictSame(latestRequestFromCdf({ items: [{ externalId: 'a' }, { id: 3, before: '1d-ago' }, { id: 4, before: 5 }] }, NOW), {
    items: [{ externalId: 'a', before: NOW }, { id: 3, before: NOW - 86_400_000 }, { id: 4, before: 5 }], ignoreUnknownIds: false,
  });
  t.strictSame(deleteRequestFromCdf({ items: [{ externalId: 'a', inclusiveBegin: 10 }, { id: 2, inclusiveBegin: 10, exclusiveEnd: '1d-ago' }] }, NOW), {
    items: [{ externalId: 'a', inclusiveBegin: 10, exclusiveEnd: 11 }, { id: 2, inclusiveBegin: 10, exclusiveEnd: NOW - 86_400_000 }],
  });
});
