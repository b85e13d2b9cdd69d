// Goal: daily quotas charged in leases (quota-lease.ts) are never passed, charge PostgreSQL
// once per slice instead of once per request, and fall back to exact charges near the limit,
// also under concurrent charges. Method: Quotas against a real embedded PostgreSQL (temp
// DATA_DIR, migrated); the statements that reach it are counted through a wrapper of the pool.
import t from 'tap';
import { openTestRelational } from '../testing/relational-fixture.ts';
import type { Queryable } from '../stores/queryable.ts';
import { IngestQuotaError } from '../errors.ts';
import { Quotas } from './quotas.ts';
import { LEASE_FRACTION } from './quota-lease.ts';

const store = await openTestRelational(t, 'quotas-test');

let statements = 0;
const counted: Queryable = { query: ((...args: Parameters<Queryable['query']>) => { statements++; return store.pool.query(...args); }) as Queryable['query'] };
const LIMIT = 100_000;
const quotas = new Quotas(counted, { policy: { dailyQuotas: { datapoints: LIMIT, ingestedBytes: LIMIT, nodes: 50 } } } as never);

async function usage(tenant: string, metric: string): Promise<number> {
  const { rows } = await store.pool.query<{ amount: string }>('SELECT amount::text FROM tenant_daily_usage WHERE tenant = $1 AND metric = $2', [tenant, metric]);
  return Number(rows[0]?.amount ?? 0);
}

t.test('a leased metric charges PostgreSQL once per slice and stops exactly at the limit', async (t) => {
  statements = 0;
  let accepted = 0;
  let refused: unknown;
  for (let i = 0; i < 2_000; i++) {
    try {
      await quotas.chargeDaily('lease-a', 'datapoints', 100);
      accepted++;
    } catch (error) {
      refused = error;
      break;
    }
  }
  t.equal(accepted, LIMIT / 100, 'every point up to the limit is accepted');
  t.type(refused, IngestQuotaError, 'the next one is a quota error');
  // A slice is 1,000 points: ten charges; the last slices near the limit are exact charges.
  t.ok(statements < accepted / 5, `about one statement per ${LIMIT * LEASE_FRACTION}-point slice, not per charge (${statements} for ${accepted})`);
  t.equal(await usage('lease-a', 'datapoints'), LIMIT, 'usage never passes the limit');
});

t.test('concurrent charges never spend a unit twice nor pass the limit', async (t) => {
  const results = await Promise.allSettled(Array.from({ length: 300 }, (_, i) => quotas.chargeDaily('lease-b', 'ingestedBytes', 500 + (i % 7))));
  const accepted = results.map((r, i) => (r.status === 'fulfilled' ? 500 + (i % 7) : 0)).reduce((a, b) => a + b, 0);
  t.ok(results.some((r) => r.status === 'rejected'), 'some charges are refused: 300 x ~503 passes the limit');
  t.ok(accepted <= LIMIT, `accepted ${accepted} <= ${LIMIT}`);
  t.ok(accepted > LIMIT - 1_000, `the limit is used up to the last charge that fits (${accepted})`);
  t.ok(await usage('lease-b', 'ingestedBytes') <= LIMIT, 'PostgreSQL never passes it either');
});

t.test('a metric that is not leased charges exactly', async (t) => {
  statements = 0;
  await quotas.chargeDaily('lease-c', 'nodes', 3);
  await quotas.chargeDaily('lease-c', 'nodes', 4);
  t.equal(statements, 2);
  t.equal(await usage('lease-c', 'nodes'), 7);
});

t.test('tenants lease apart', async (t) => {
  await quotas.chargeDaily('lease-d', 'datapoints', 10);
  await quotas.chargeDaily('lease-e', 'datapoints', 10);
  t.equal(await usage('lease-d', 'datapoints'), 10 + LIMIT * LEASE_FRACTION);
  t.equal(await usage('lease-e', 'datapoints'), 10 + LIMIT * LEASE_FRACTION);
});

t.test('the first charge of a day cannot pass the limit with its slice on top', async (t) => {
  // 99,500 points plus a 1,000-point slice pass the limit: the charge falls back to exactly
  // what is asked, also when the day's row does not exist yet.
  await quotas.chargeDaily('lease-f', 'datapoints', LIMIT - 500);
  t.equal(await usage('lease-f', 'datapoints'), LIMIT - 500, 'exactly the charge, no slice past the limit');
  await quotas.chargeDaily('lease-f', 'datapoints', 500);
  t.type(await quotas.chargeDaily('lease-f', 'datapoints', 1).catch((error: unknown) => error), IngestQuotaError, 'then the limit holds');
});
