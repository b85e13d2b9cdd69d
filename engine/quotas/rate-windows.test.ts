// Goal: per-minute rate limits count once for a tenant however many API instances serve it
// (rate-windows.ts): instances sharing PostgreSQL together never admit more than a budget's
// limit, are refused early by at most one slice per other instance, reach PostgreSQL once per
// slice rather than once per request, and count alone while PostgreSQL cannot be reached.
// Method: several sharedRateWindows, each an instance with its own leases, over one real
// embedded PostgreSQL (temp DATA_DIR, migrated), spending concurrently; the statements that
// reach PostgreSQL are counted through a wrapper of the pool. The unreachable case is a real
// pool pointed at a port nothing listens on.
import net from 'node:net';
import pg from 'pg';
import t from 'tap';
import { logger } from '../log.ts';
import type { Queryable } from '../stores/queryable.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { localRateWindows, RATE_LEASE_FRACTION, RATE_WINDOW_MS, sharedRateWindows, type RateBudget } from './rate-windows.ts';

const store = await openTestRelational(t, 'rate-windows-test');
const log = logger.child({ module: 'rate-windows-test' });
log.level = 'silent';

let statements = 0;
const counted: Queryable = { query: ((...args: Parameters<Queryable['query']>) => { statements++; return store.counterPool.query(...args); }) as Queryable['query'] };

const budget = (tenant: string, scope: RateBudget['scope'] = 'organization', subject = ''): RateBudget => ({ tenant, scope, subject, budget: 'write' });
const WINDOW = Math.floor(Date.now() / RATE_WINDOW_MS) * RATE_WINDOW_MS;

async function used(tenant: string, windowStart = WINDOW): Promise<number> {
  const { rows } = await store.pool.query<{ used: number }>('SELECT used FROM rate_windows WHERE tenant = $1 AND window_start = $2', [tenant, windowStart]);
  return rows[0]?.used ?? 0;
}

/** Sends `requests` spends round-robin over the instances, `concurrency` at a time; counts the admitted ones. */
async function load(instances: ReturnType<typeof sharedRateWindows>[], who: RateBudget, limit: number, requests: number, concurrency = 16): Promise<number> {
  let next = 0;
  let admitted = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests) {
      const i = next++;
      if (await (instances[i % instances.length] as ReturnType<typeof sharedRateWindows>).spend(who, WINDOW, limit)) admitted++;
    }
  }));
  return admitted;
}

t.test('two and three instances under load admit the limit, never more, at one statement per slice', async (t) => {
  for (const count of [2, 3]) {
    const limit = 1_000;
    const slice = Math.floor(limit * RATE_LEASE_FRACTION);
    const instances = Array.from({ length: count }, () => sharedRateWindows(counted, log));
    const tenant = `load-${count}`;
    statements = 0;
    const admitted = await load(instances, budget(tenant), limit, 2 * limit);
    t.ok(admitted <= limit, `${count} instances: ${admitted} admitted of 2x a limit of ${limit}: never more`);
    t.ok(admitted >= limit - slice * (count - 1), `${count} instances: at most one ${slice}-request slice per other instance refused early (${limit - admitted})`);
    t.ok(await used(tenant) <= limit, 'PostgreSQL\'s count never passes the limit');
    // Slices of 50 while they fit, then exact charges near the limit (at most one slice's
    // worth per instance); once PostgreSQL refused one request, the rest of the window is
    // refused without asking it.
    t.ok(statements <= limit / slice + 2 * slice * count, `${statements} statements for ${2 * limit} requests, ${admitted} admitted: about one per slice`);
  }
});

t.test('a load spread unevenly still stops at the limit; a new window starts afresh', async (t) => {
  const limit = 200;
  const [a, b] = [sharedRateWindows(counted, log), sharedRateWindows(counted, log)];
  const who = budget('uneven');
  let admitted = 0;
  for (let i = 0; i < 3 * limit; i++) if (await (i % 5 === 0 ? a : b).spend(who, WINDOW, limit)) admitted++;
  t.ok(admitted <= limit && admitted >= limit - Math.floor(limit * RATE_LEASE_FRACTION), `${admitted} of ${limit}`);
  t.equal(await a.spend(who, WINDOW + RATE_WINDOW_MS, limit), true, 'the next minute has its own budget');
  t.ok(await used('uneven', WINDOW + RATE_WINDOW_MS) >= 1, 'charged to the next window');
});

t.test('budgets are apart: per tenant, per scope, per subject and per read or write', async (t) => {
  const windows = sharedRateWindows(counted, log);
  const limit = 3;
  for (let i = 0; i < limit; i++) t.ok(await windows.spend(budget('apart', 'user', 'alice'), WINDOW, limit));
  t.notOk(await windows.spend(budget('apart', 'user', 'alice'), WINDOW, limit), 'alice is over');
  t.ok(await windows.spend(budget('apart', 'user', 'bob'), WINDOW, limit), 'bob is not');
  t.ok(await windows.spend(budget('apart'), WINDOW, limit), 'nor the organization');
  t.ok(await windows.spend({ ...budget('apart', 'user', 'alice'), budget: 'read' }, WINDOW, limit), 'nor alice\'s reads');
  t.ok(await windows.spend(budget('apart-2', 'user', 'alice'), WINDOW, limit), 'nor alice in another tenant');
});

t.test('a refund gives the request back to the same instance', async (t) => {
  const windows = sharedRateWindows(counted, log);
  const who = budget('refund', 'user', 'carol');
  t.ok(await windows.spend(who, WINDOW, 2));
  t.ok(await windows.spend(who, WINDOW, 2));
  windows.refund(who, WINDOW);
  t.ok(await windows.spend(who, WINDOW, 2), 'the refunded request can be spent again');
  t.notOk(await windows.spend(who, WINDOW, 2), 'and no more');
  t.equal(await used('refund'), 2, 'PostgreSQL counted two');
});

t.test('windows before the previous one are deleted as the minute turns', async (t) => {
  const windows = sharedRateWindows(counted, log);
  const old = WINDOW - 10 * RATE_WINDOW_MS;
  t.ok(await windows.spend(budget('forget'), old, 5));
  t.equal(await used('forget', old), 1);
  t.ok(await windows.spend(budget('forget'), WINDOW, 5));
  // The delete runs beside the spend; it has run once a statement after it has.
  await store.counterPool.query('SELECT 1');
  for (let i = 0; i < 50 && (await used('forget', old)) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(await used('forget', old), 0, 'the old window is gone');
});

t.test('while PostgreSQL cannot be reached an instance counts alone', async (t) => {
  const closed = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const unreachable = new pg.Pool({ connectionString: `postgres://nobody@127.0.0.1:${closed}/none`, connectionTimeoutMillis: 2_000 });
  t.teardown(() => unreachable.end());
  const windows = sharedRateWindows(unreachable, log);
  const limit = 5;
  const answers = [];
  for (let i = 0; i < limit + 2; i++) answers.push(await windows.spend(budget('away'), WINDOW, limit));
  t.same(answers, [true, true, true, true, true, false, false], 'the limit holds in this instance alone');
  const alone = localRateWindows();
  t.ok(await alone.spend(budget('away'), WINDOW, 1), 'a local count is its own');
});
