// Versioned PostgreSQL migrations: numbered .sql files in ./migrations, applied in order at
// start under an advisory lock, so running twice (or from several processes at once) is safe.
// What is missing goes in as one transaction sent as one statement text: all of it or none,
// and one round trip and one commit instead of four round trips and a commit each (an empty
// store has eleven; see docs/architecture.md, "What the start spends its time on").
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RelationalStore } from './relational.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Arbitrary constant key of the advisory lock that serialises migrators. */
const MIGRATION_LOCK_KEY = 7_316_202_611;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}-[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 3)),
      name: file.slice(4, -4),
      sql: readFileSync(path.join(dir, file), 'utf8'),
    }));
}

/** Migration names are file names (listMigrations): word characters and dashes, safe as a literal. */
function appliedRow(migration: Migration): string {
  if (!Number.isInteger(migration.version) || !/^[\w-]+$/.test(migration.name)) throw new Error(`not a migration name: ${migration.version}-${migration.name}`);
  return `INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, '${migration.name}');`;
}

/** Applies what is missing; returns the versions applied by this call. */
export async function migrate(store: RelationalStore, migrations = listMigrations()): Promise<number[]> {
  const client = await store.pool.connect();
  try {
    // The lock is the transaction's: COMMIT or ROLLBACK lets the next migrator in.
    await client.query(
      `BEGIN; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}); `
      + 'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const missing = migrations.filter((migration) => !done.has(migration.version));
    if (missing.length === 0) {
      await client.query('COMMIT');
      return [];
    }
    // A file's last statement may lack its semicolon or end in a comment: a line of its own ends it.
    const text = missing.map((migration) => `${migration.sql}\n;\n${appliedRow(migration)}`).join('\n');
    try {
      await client.query(`${text}\nCOMMIT;`);
    } catch (cause) {
      throw new Error(`migrations ${missing.map((m) => `${String(m.version).padStart(3, '0')}-${m.name}`).join(', ')} failed (none applied)`, { cause });
    }
    return missing.map((migration) => migration.version);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
