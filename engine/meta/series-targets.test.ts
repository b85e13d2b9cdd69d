// Goal: resolving a data point request's series from the directory's memory (the fast path
// of resolveSeriesTargets) answers exactly as the identifier resolver does over PostgreSQL:
// the same targets, the same missing items, the same errors, for identifiers by id, by
// externalId, by both (agreeing or not), with neither, repeated, unknown, and series in data
// sets the caller may read, only read, or not see. Method: a real embedded PostgreSQL; the
// same random requests to a directory holding every series and to one that holds nothing
// (it serves nothing from memory), compared with fast-check.
import fc from 'fast-check';
import t from 'tap';
import type { Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { SeriesDirectory } from './series-directory.ts';
import { resolveSeriesTargets } from './series-targets.ts';

const relational = await openTestRelational(t, 'series-targets-test');
const TENANT = 'targets';
// Series 1-6: no data set, data set 10 (readable and writable), 11 (readable only), 12 (not readable).
const SERIES = [[1, null], [2, null], [3, 10], [4, 11], [5, 12], [6, 10]] as const;
for (const [id, dataSetId] of SERIES) {
  await relational.pool.query(
    `INSERT INTO nodes (tenant, id, kind, external_id, value_type, data_set_id, created_time, last_updated_time) VALUES ($1, $2, 'timeseries', $3, 'FLOAT', $4, 0, 0)`,
    [TENANT, id, `ts-${id}`, dataSetId],
  );
}
const warm = new SeriesDirectory(relational.pool, { listening: true });
await warm.fetch(TENANT, SERIES.map(([id]) => id), []);
const cold = new SeriesDirectory(relational.pool, { listening: false });

const accesses: Access[] = [
  { tenant: TENANT, readable: null, writable: null },
  { tenant: TENANT, readable: new Set([10, 11]), writable: new Set([10]) },
];

const identifier: fc.Arbitrary<Identifier> = fc.oneof(
  fc.record({ id: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ externalId: fc.integer({ min: 1, max: 8 }).map((n) => `ts-${n}`) }),
  fc.record({ id: fc.integer({ min: 1, max: 8 }), externalId: fc.integer({ min: 1, max: 8 }).map((n) => `ts-${n}`) }),
  fc.constant({}),
);

async function outcome(directory: SeriesDirectory, access: Access, identifiers: Identifier[], mode: 'read' | 'write'): Promise<unknown> {
  try {
    return await resolveSeriesTargets(directory, access, identifiers, mode);
  } catch (error) {
    return { error: (error as Error).constructor.name, message: (error as Error).message, problems: (error as { problems?: unknown }).problems };
  }
}

t.test('from memory as from PostgreSQL, on every request', async (t) => {
  let fromMemory = 0;
  await fc.assert(fc.asyncProperty(fc.array(identifier, { maxLength: 6 }), fc.constantFrom(0, 1), fc.constantFrom('read' as const, 'write' as const), async (identifiers, a, mode) => {
    const access = accesses[a] as Access;
    const want = await outcome(cold, access, identifiers, mode);
    const got = await outcome(warm, access, identifiers, mode);
    t.same(got, want, JSON.stringify({ identifiers, a, mode }));
    if (identifiers.length > 0 && identifiers.every((i) => (i.id ?? 0) <= 6 && i.externalId === undefined)) fromMemory++;
  }), { numRuns: 400 });
  t.ok(fromMemory > 20, `requests the memory could answer were among them (${fromMemory})`);
});
