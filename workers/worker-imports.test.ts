// Goal: nothing a parse worker runs can open the engine. chdb in a worker thread shares the
// process's engine, and once a worker that loaded it is terminated (the pool stops a worker
// whose scan overruns its deadline or heap) the main thread's next statement never returns.
// Method: every module the worker's task file imports, followed through relative imports
// (type-only ones left out: they are erased), read with TypeScript's own parser; none may be
// a store module or import chdb.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The modules a file imports at run time, as written. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (!clause.name && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      if (!typeOnly && ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0] as ts.Expression)
      && (node.expression.kind === ts.SyntaxKind.ImportKeyword || ts.isCallExpression(node.expression) // createRequire(...)('chdb')
        || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      specifiers.push((node.arguments[0] as ts.StringLiteral).text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** Every module reachable from `entry` through relative imports, and the packages they name. */
function importGraph(entry: string): { modules: Set<string>; packages: Map<string, string> } {
  const modules = new Set<string>();
  const packages = new Map<string, string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (modules.has(file)) continue;
    modules.add(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), specifier));
      else packages.set(specifier, path.relative(REPO, file));
    }
  }
  return { modules, packages };
}

t.test('the parse workers reach no store module and never import chdb', async (t) => {
  const { modules, packages } = importGraph(path.join(REPO, 'workers/datapoint-task.ts'));
  const names = [...modules].map((file) => path.relative(REPO, file));
  t.ok(names.includes('workers/datapoint-scan.ts') && names.includes('workers/datapoint-encode.ts'), `the graph was followed (${names.length} modules)`);
  t.same(names.filter((name) => name.startsWith('engine/stores/')), [], 'no store module');
  t.same([...packages].filter(([name]) => name.includes('chdb')), [], 'no chdb');
});

t.test('the graph reader finds the store and chdb where they are', async (t) => {
  const engine = importGraph(path.join(REPO, 'engine/datapoints/datapoint-engine.ts'));
  t.ok([...engine.modules].some((file) => file.endsWith('engine/stores/columnar.ts')), 'the engine reaches the store module');
  t.equal(engine.packages.get('chdb'), 'engine/stores/columnar.ts', "and chdb, loaded there through createRequire(...)('chdb')");
  // datapoint-wire.ts imports types.ts twice: `import type { ValueType }`, then values.
  t.same(runtimeImports(path.join(REPO, 'workers/datapoint-wire.ts')).filter((s) => s === '../engine/datapoints/types.ts'), ['../engine/datapoints/types.ts'], 'a type-only import is left out');
});
