// Goal: an advanced filter read as the union of its branches (advancedBranches, each an
// ordered index scan) answers exactly what the single walk answers: the same events in the
// same order on every page of every sort, cursors included, and both what the advanced
// filter's rules select. Method: random event logs with ties, nulls and shared prefixes, and
// random filters of and/or/not/in/prefix/equals, on a real embedded PostgreSQL; every page
// walked under both plans and compared with each other and with an evaluation in JS.
import fc from 'fast-check';
import t from 'tap';
import { v7 as uuidv7 } from 'uuid';
import { fullAccess } from '../grants/access.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { ADVANCED_BRANCHES_MAX, advancedBranches } from './event-filter.ts';
import { filterEvents } from './event-read.ts';
import { createEvents } from './event-write.ts';

const store = await openTestRelational(t, 'event-filter-split');
const db = store.pool;

const TYPES = ['alarm', 'work', 'shift', null] as const;
const SOURCES = ['sap', 'opc', 'mes', null] as const;
const KEYS = ['k-1', 'k-10', 'k-11', 'k-2', 'kx-1', 'kx-2', 'w-1', 'w-22'];
const PREFIXES = ['k', 'k-1', 'kx', 'w-2', 'z'];
const SITES = ['oslo', 'bergen'];

interface Stored { id: string; externalId: string; eventTime: number; type?: string; subType?: string; source?: string; metadata: Record<string, string>; lastUpdatedTime: number }
type Node =
  | { and: Node[] } | { or: Node[] } | { not: Node }
  | { equals: { property: [string]; value: string } }
  | { prefix: { property: [string]; value: string } }
  | { in: { property: [string]; values: string[] } };

const VALUES: Record<string, readonly string[]> = {
  type: ['alarm', 'work', 'shift'], subType: ['a', 'b'], source: ['sap', 'opc', 'mes'], externalId: KEYS, metadata: SITES,
};
const property = fc.constantFrom('type', 'subType', 'source', 'externalId', 'metadata');
const leaf: fc.Arbitrary<Node> = property.chain((p) => fc.oneof(
  fc.constantFrom(...(VALUES[p] as string[])).map((value): Node => ({ equals: { property: [p], value } })),
  fc.constantFrom(...(p === 'externalId' ? PREFIXES : (VALUES[p] as string[]).map((v) => v.slice(0, 2)))).map((value): Node => ({ prefix: { property: [p], value } })),
  fc.subarray(VALUES[p] as string[], { minLength: 1 }).map((values): Node => ({ in: { property: [p], values } })),
));
const { tree } = fc.letrec<{ tree: Node }>((rec) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(rec('tree'), { minLength: 1, maxLength: 3 }).map((or): Node => ({ or })),
    fc.array(rec('tree'), { minLength: 1, maxLength: 3 }).map((and): Node => ({ and })),
    rec('tree').map((not): Node => ({ not }))),
}));

/** The advanced filter's rules in JS: a leaf on a missing value is false; `not` negates. */
function matches(e: Stored, node: Node): boolean {
  if ('and' in node) return node.and.every((n) => matches(e, n));
  if ('or' in node) return node.or.some((n) => matches(e, n));
  if ('not' in node) return !matches(e, node.not);
  const [op, body] = Object.entries(node)[0] as ['equals' | 'prefix' | 'in', { property: [string]; value?: string; values?: string[] }];
  const name = body.property[0];
  const texts = name === 'metadata' ? Object.values(e.metadata) : [(e as unknown as Record<string, string | undefined>)[name]].filter((v) => v !== undefined) as string[];
  return texts.some((v) => (op === 'equals' ? v === body.value : op === 'prefix' ? v.startsWith(body.value as string) : (body.values as string[]).includes(v)));
}

const tenant = `split-${uuidv7()}`;
const admin = fullAccess(tenant);
const pick = <T>(list: readonly T[], k: number): T => list[k % list.length] as T;
const created = await createEvents(store, admin, Array.from({ length: 240 }, (_, k) => {
  const type = pick(TYPES, k * 7 + (k >> 3));
  const source = pick(SOURCES, k * 3 + (k >> 2));
  return {
    externalId: pick(KEYS, k * 5 + (k >> 4)),
    eventTime: 1_000 + (k % 37) * 10, // ties: about 6 events per eventTime
    ...(type !== null ? { type } : {}),
    ...(source !== null ? { source } : {}),
    ...(k % 4 === 0 ? { subType: pick(['a', 'b'], k >> 2) } : {}),
    metadata: (k % 5 === 0 ? {} : { site: pick(SITES, k) }) as Record<string, string>,
  };
}));
const events = created as unknown as Stored[];

t.test('advancedBranches splits or, distributes and, and gives each in value its own branch', async (t) => {
  const count = (node: Node) => advancedBranches(new SqlParams(), node).length;
  const eq = (p: string, value: string): Node => ({ equals: { property: [p], value } });
  t.equal(count({ or: [{ in: { property: ['type'], values: ['a', 'b'] } }, { prefix: { property: ['externalId'], value: 'k' } }] }), 3, "the bench's filter: two types and a prefix");
  t.equal(count({ and: [{ or: [eq('type', 'a'), eq('type', 'b')] }, { or: [eq('source', 'x'), eq('source', 'y')] }] }), 4, 'and over two ors');
  t.equal(count({ not: { or: [eq('type', 'a'), eq('type', 'b')] } }), 1, 'not stays whole');
  t.equal(count({ in: { property: ['metadata'], values: ['a', 'b'] } }), 1, 'in on metadata stays whole');
  const wide = { or: Array.from({ length: ADVANCED_BRANCHES_MAX + 1 }, (_, k) => eq('type', `t${k}`)) };
  t.equal(count(wide), 1, `past ${ADVANCED_BRANCHES_MAX} branches the filter stays whole`);
  const three = (p: string): Node => ({ or: [eq(p, 'x'), eq(p, 'y'), eq(p, 'z')] });
  const params = new SqlParams();
  const branches = advancedBranches(params, { and: [three('type'), three('source')] });
  t.equal(branches.length, 1, 'an and whose product passes the cap stays whole');
  t.equal(params.values.length, 6, 'and binds only the whole filter\'s six values: the dropped split\'s are forgotten');
});

t.test('split and single plans walk the same pages, which hold what the filter selects', async (t) => {
  const sorts = ['eventTime', 'externalId', 'type', 'source', 'lastUpdatedTime'];
  await fc.assert(fc.asyncProperty(tree, fc.constantFrom(...sorts), fc.boolean(), fc.integer({ min: 7, max: 60 }), async (advancedFilter, property, desc, limit) => {
    const sort = [{ property: [property], order: desc ? 'desc' : 'asc' }];
    const walk = async (plan: 'single' | 'split') => {
      const ids: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = await filterEvents(db, admin, { advancedFilter, sort, limit, ...(cursor ? { cursor } : {}) } as never, { plan });
        ids.push(...page.items.map((e) => e.id));
        if (!page.nextCursor) return ids;
        cursor = page.nextCursor;
      }
      throw new Error('more than 100 pages');
    };
    const [single, split] = [await walk('single'), await walk('split')];
    const want = events.filter((e) => matches(e, advancedFilter)).map((e) => e.id).sort();
    if (JSON.stringify(split) !== JSON.stringify(single)) throw new Error(`split ${split.length} ids vs single ${single.length}, filter ${JSON.stringify(advancedFilter)}`);
    if (JSON.stringify([...single].sort()) !== JSON.stringify(want)) throw new Error(`single walk found ${single.length} events, the rules select ${want.length}: ${JSON.stringify(advancedFilter)}`);
  }), { numRuns: 60 });
  t.pass('60 random filters, sorts and page sizes');
});
