// The build `make run` starts from: tsc emits JavaScript for api/, engine/, workers/ and
// schemas/ (tsconfig.build.json: .ts imports rewritten to .js, tests and testing/ left out),
// then the files the code reads by path beside itself at run time are copied next to their
// modules: PostgreSQL migrations (*.sql) and data (*.json, the unit catalogue). Each build
// starts from an empty folder beside the output and replaces the output whole once done,
// so a file renamed or deleted in the sources (a migration above all) leaves nothing behind
// and a service starting meanwhile never imports from a half-written tree. The web console's
// build (console/build.mjs) goes to <outDir>/console, where the compiled service serves it from. Usage: node engine/install/build-dist.mjs [outDir] (default dist).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE_DIRS = ['api', 'engine', 'workers', 'schemas'];
const ASSET = /\.(sql|json)$/;
const finalDir = path.resolve(ROOT, process.argv[2] ?? 'dist');
const outDir = `${finalDir}.building-${process.pid}`;

function copyAssets(dir) {
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing' && entry.name !== 'node_modules') copyAssets(relative);
    } else if (ASSET.test(entry.name)) {
      mkdirSync(path.join(outDir, dir), { recursive: true });
      copyFileSync(path.join(ROOT, relative), path.join(outDir, relative));
    }
  }
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
// The TypeScript compiler of the lockfile, run by node itself (no npx lookup).
const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', outDir], { cwd: ROOT, stdio: 'inherit' });
for (const dir of SOURCE_DIRS) copyAssets(dir);
// The console beside the compiled service (api/console.ts consoleBuildDir).
execFileSync(process.execPath, [path.join(ROOT, 'console', 'build.mjs'), path.join(outDir, 'console')], { cwd: ROOT, stdio: 'inherit' });

// Two renames, not one: rename(2) will not replace a folder that has files in it.
const retired = `${finalDir}.retired-${process.pid}`;
if (existsSync(finalDir)) renameSync(finalDir, retired);
renameSync(outDir, finalDir);
rmSync(retired, { recursive: true, force: true });
