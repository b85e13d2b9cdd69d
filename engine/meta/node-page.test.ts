// Goal: a filter page read by way of its matches (candidatePageSql, for metadata and labels
// filters the planner expects few matches of) is the page read along the sort order, cursors
// included. Method: 60 resources on an embedded PostgreSQL with metadata, labels, names and
// descriptions (some null), created in bunches; for each filter, sort and page size, every
// page walked three ways (no indexedFilter; indexedFilter, by way of the matches; indexedFilter
// with candidatesMax 2, where pages walk the sort order, or take the candidates and fall back
// when more than 8 turn up) must give the same items and cursors.
import t from 'tap';
import { SORTABLE_RESOURCE_PROPERTIES } from '../../schemas/resources.ts';
import { RESOURCE_JSON } from '../graph/resource-rows.ts';
import { SqlParams } from '../stores/sql-params.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { nodePageJson, sortColumnsOf } from './node-page.ts';

const store = await openTestRelational(t, 'node-page');
const db = store.pool;
const tenant = 'node-page';
const columns = sortColumnsOf(SORTABLE_RESOURCE_PROPERTIES);

for (let i = 0; i < 60; i++) {
  await db.query(
    `INSERT INTO nodes (tenant, id, kind, external_id, name, description, labels, metadata, created_time, last_updated_time)
     VALUES ($1, nextval('node_id_seq'), 'resource', $2, $3, $4, $5, $6, $7, $7)`,
    [tenant, `r-${(i * 37) % 60}`, i % 4 === 0 ? null : `name ${i % 9}`, i % 3 === 0 ? null : `d${i % 5}`, i % 2 === 0 ? ['even'] : ['odd'],
      { level: String(i % 5), site: i < 30 ? 'a' : 'b' }, 1_000 + Math.floor(i / 7)],
  );
}
await db.query(`INSERT INTO nodes (tenant, id, kind, external_id, name, metadata, created_time, last_updated_time) VALUES ('other', nextval('node_id_seq'), 'resource', 'x', 'x', '{"level":"1"}', 0, 0)`);

type Walk = { items: string[]; cursors: string[] };
async function walk(filter: { metadata?: Record<string, string>; labels?: string[] }, sort: unknown, limit: number, indexedFilter: boolean, candidatesMax?: number): Promise<Walk> {
  const out: Walk = { items: [], cursors: [] };
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const params = new SqlParams();
    const parts = [`tenant = ${params.bind(tenant)}`, "kind = 'resource'"];
    if (filter.metadata) parts.push(`metadata @> ${params.bind(JSON.stringify(filter.metadata))}::jsonb`);
    if (filter.labels) parts.push(`labels @> ${params.bind(filter.labels)}::text[]`);
    const page = await nodePageJson(db, { where: parts.join(' AND '), params, sort, cursor, limit, columns, recordJson: RESOURCE_JSON, indexedFilter, ...(candidatesMax ? { candidatesMax } : {}) });
    out.items.push(...page.items);
    if (!page.nextCursor) return out;
    out.cursors.push(page.nextCursor);
    cursor = page.nextCursor;
  }
  throw new Error('more than 100 pages');
}

t.test('pages by way of the matches equal pages along the sort order, fallback included', async (t) => {
  type Filter = { metadata?: Record<string, string>; labels?: string[] };
  const filters: Filter[] = [{ metadata: { level: '3' } }, { metadata: { site: 'b' } }, { labels: ['even'] }, { metadata: { level: '2', site: 'a' }, labels: ['odd'] }, { metadata: { level: '9' } }];
  const sorts = [undefined, { property: 'name', order: 'asc' }, { property: 'description', order: 'desc' }, { property: 'externalId' }, { property: 'createdTime', order: 'asc' }, { property: 'id', order: 'desc' }];
  let compared = 0;
  for (const filter of filters) {
    for (const sort of sorts) {
      for (const limit of [1, 4, 100]) {
        const plain = await walk(filter, sort, limit, false);
        const viaMatches = await walk(filter, sort, limit, true);
        const fallback = await walk(filter, sort, limit, true, 2);
        const name = `${JSON.stringify(filter)} ${JSON.stringify(sort)} limit ${limit}`;
        if (JSON.stringify(viaMatches) !== JSON.stringify(plain)) t.fail(`by way of matches: ${name}`);
        if (JSON.stringify(fallback) !== JSON.stringify(plain)) t.fail(`fallback: ${name}`);
        compared++;
      }
    }
  }
  t.equal(compared, 90, 'every filter, sort and page size compared');
  const levelThree = await walk({ metadata: { level: '3' } }, undefined, 100, true);
  t.equal(levelThree.items.length, 12, 'twelve of sixty match; the other tenant\'s is never seen');
});
