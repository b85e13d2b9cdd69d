// Forced merges of our embedded store, the counterpart of VictoriaMetrics' /internal/force_merge:
// once the service has stopped, open its DATA_DIR/clickhouse with the same engine (chdb) in
// the bench process and OPTIMIZE every MergeTree table FINAL. The service exposes no such call.
import { openColumnarStore } from '../engine/stores/columnar.ts';

/**
 * Returns the bytes of the active parts afterwards: merged-away parts stay on disk for
 * ClickHouse's old_parts_lifetime (8 minutes) before removal, so `du` would count them too.
 */
export async function forceMergeChdb(clickhouseDir: string): Promise<{ tableCount: number; activeBytes: number }> {
  const store = await openColumnarStore({ engine: 'chdb', path: clickhouseDir });
  try {
    const tables = await store.query<{ database: string; name: string }>(
      "SELECT database, name FROM system.tables WHERE engine LIKE '%MergeTree%' AND database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema')",
    );
    for (const t of tables) await store.command(`OPTIMIZE TABLE \`${t.database}\`.\`${t.name}\` FINAL`);
    const [parts] = await store.query<{ bytes: string }>(
      "SELECT toString(sum(bytes_on_disk)) AS bytes FROM system.parts WHERE active AND database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema')",
    );
    return { tableCount: tables.length, activeBytes: Number(parts?.bytes ?? 0) };
  } finally {
    await store.close();
  }
}
