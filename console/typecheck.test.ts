// Goal: the console's sources type-check as browser code (console/tsconfig.json: DOM, Preact's
// JSX, strict), which esbuild's bundling does not do. Method: the lockfile's tsc over them.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';

const ROOT = path.resolve(import.meta.dirname, '..');

t.test('tsc -p console: no type error', async (t) => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'console')], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error);
  }
  t.equal(output, '', 'no type error in console/');
});
