// The console's build: esbuild bundles console/src/main.tsx (Preact, uPlot and the styles they
// import) into one script and one stylesheet, minified, beside a copy of console/index.html;
// each file also gets a gzip copy, which the service sends to browsers that accept it (the
// first load's budget is counted compressed). The service serves the folder under /console/
// (api/console.ts). Usage: node console/build.mjs [outDir] (default dist/console); run by
// `make run` (through engine/install/build-dist.mjs) and `make test`.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const CONSOLE_DIR = fileURLToPath(new URL('.', import.meta.url));
const ROOT = path.dirname(CONSOLE_DIR.replace(/\/$/, ''));
const outDir = path.resolve(ROOT, process.argv[2] ?? path.join('dist', 'console'));

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
await build({
  entryPoints: { console: path.join(CONSOLE_DIR, 'src', 'main.tsx') },
  outdir: outDir,
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  sourcemap: 'linked',
  // Every asset a stylesheet names is inlined or bundled: the page loads nothing from elsewhere.
  loader: { '.svg': 'dataurl', '.woff2': 'file' },
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(path.join(CONSOLE_DIR, 'index.html'), path.join(outDir, 'index.html'));
for (const name of readdirSync(outDir)) {
  if (name.endsWith('.map') || name.endsWith('.gz')) continue;
  writeFileSync(path.join(outDir, `${name}.gz`), gzipSync(readFileSync(path.join(outDir, name)), { level: 9 }));
}
