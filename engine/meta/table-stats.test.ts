// Goal: after a bulk write, TableStats leaves the nodes table analysed and its GIN indexes'
// pending lists moved into the indexes, so searches of metadata, labels and names do not read
// a pending list until autovacuum comes by. Method: an embedded PostgreSQL; 6,000 nodes inserted
// (their GIN entries wait in the pending lists), noteWrites, then, once the ANALYZE that follows
// the cleaning has run, a cleaning of our own finds nothing left to move.
import t from 'tap';
import { openTestRelational } from '../testing/relational-fixture.ts';
import { ANALYZE_ROWS_MIN, TableStats } from './table-stats.ts';

const store = await openTestRelational(t, 'table-stats');
const db = store.pool;

t.test('a bulk write is followed by an ANALYZE and empty GIN pending lists', async (t) => {
  const rows = ANALYZE_ROWS_MIN + 1_000;
  await db.query(`INSERT INTO nodes (tenant, id, kind, external_id, name, labels, metadata, created_time, last_updated_time)
    SELECT 'stats', nextval('node_id_seq'), 'resource', 'r-' || g, 'name ' || g, ARRAY['l' || g % 10], jsonb_build_object('level', (g % 7)::text, 'n', g::text), g, g
      FROM generate_series(1, ${rows}) g`);
  const before = await db.query<{ n: string | null }>("SELECT last_analyze::text AS n FROM pg_stat_user_tables WHERE relname = 'nodes'");
  new TableStats(db, 'nodes').noteWrites(rows);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows: [now] } = await db.query<{ n: string | null }>("SELECT last_analyze::text AS n FROM pg_stat_user_tables WHERE relname = 'nodes'");
    if (now?.n && now.n !== before.rows[0]?.n) break;
    if (Date.now() > deadline) throw new Error('no ANALYZE of nodes within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { rows: left } = await db.query<{ pages: string }>(`SELECT gin_clean_pending_list(c.oid)::text AS pages FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE i.indrelid = 'nodes'::regclass AND a.amname = 'gin'`);
  t.ok(left.length >= 3, 'nodes has its metadata, labels and search GIN indexes');
  t.same(left.map((r) => r.pages), left.map(() => '0'), 'no pending-list page was left to move');
});
