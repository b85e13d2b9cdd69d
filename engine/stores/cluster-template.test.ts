// Goal: a new cluster is initdb's own result or a whole copy of the template, never a part of
// one, and a template that cannot serve never stops a start. Method: real folders and the real
// cp and sync; `initialise` stands for initdb by writing a small cluster-shaped folder, and
// counts its calls. The real PostgreSQL starting from a copied template is exercised by every
// test that opens the embedded store (engine/stores/relational*.test.ts, the api tests).
import t from 'tap';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clusterTemplateDir, initialiseCluster } from './cluster-template.ts';

const root = mkdtempSync(path.join(tmpdir(), 'cluster-template-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

let initdbRuns = 0;
const fakeInitdb = (dir: string) => async () => {
  initdbRuns++;
  mkdirSync(path.join(dir, 'base', '1'), { recursive: true });
  writeFileSync(path.join(dir, 'PG_VERSION'), '18\n');
  writeFileSync(path.join(dir, 'base', '1', '1259'), `catalog of run ${initdbRuns}`);
};
const emptyDir = (name: string) => {
  const dir = path.join(root, name);
  mkdirSync(dir);
  return dir;
};
const files = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();

t.test('the first cluster is initdb\'s and becomes the template; the next ones are copies', async (t) => {
  const template = clusterTemplateDir({ version: 'test', flags: ['a'] }, path.join(root, 'templates'));
  const first = emptyDir('first');
  t.equal(await initialiseCluster(first, template, fakeInitdb(first)), 'initialised');
  t.equal(initdbRuns, 1);
  t.strictSame(files(template), files(first), 'the template holds what initdb made');
  let spawned = 0;
  const second = emptyDir('second');
  t.equal(await initialiseCluster(second, template, fakeInitdb(second), () => spawned++), 'copied');
  t.equal(initdbRuns, 1, 'no initdb for the copy');
  t.equal(spawned, 1, 'onSpawned once the copy runs');
  t.equal(readFileSync(path.join(second, 'base', '1', '1259'), 'utf8'), 'catalog of run 1');
  t.notOk(existsSync(`${second}.from-template`), 'no staging folder left');
});

t.test('other initdb inputs pick another template', async (t) => {
  const templates = path.join(root, 'templates');
  t.not(clusterTemplateDir({ version: 'test', flags: ['a'] }, templates), clusterTemplateDir({ version: 'test', flags: ['b'] }, templates));
  t.not(clusterTemplateDir({ version: 'test', flags: ['a'] }, templates), clusterTemplateDir({ version: 'other', flags: ['a'] }, templates));
});

t.test('a data directory that is not empty is left to initdb (which refuses it)', async (t) => {
  const template = clusterTemplateDir({ version: 'test', flags: ['a'] }, path.join(root, 'templates'));
  const dir = emptyDir('not-empty');
  writeFileSync(path.join(dir, 'stray'), 'x');
  const before = initdbRuns;
  t.equal(await initialiseCluster(dir, template, fakeInitdb(dir)), 'initialised');
  t.equal(initdbRuns, before + 1);
});

t.test('a template that cannot be copied falls back to initdb', { skip: process.getuid?.() === 0 ? 'root reads every folder whatever its mode' : false }, async (t) => {
  const template = clusterTemplateDir({ version: 'unreadable' }, path.join(root, 'templates'));
  mkdirSync(template, { recursive: true });
  writeFileSync(path.join(template, 'PG_VERSION'), '18\n');
  mkdirSync(path.join(template, 'locked'));
  chmodSync(path.join(template, 'locked'), 0o000);
  t.teardown(() => chmodSync(path.join(template, 'locked'), 0o755));
  const dir = emptyDir('fallback');
  const before = initdbRuns;
  t.equal(await initialiseCluster(dir, template, fakeInitdb(dir)), 'initialised');
  t.equal(initdbRuns, before + 1);
  t.notOk(existsSync(`${dir}.from-template`), 'the failed copy is removed');
});

t.test('a broken template (a file where its folder should be) falls back to initdb', async (t) => {
  const templates = path.join(root, 'broken-templates');
  const template = clusterTemplateDir({ version: 'broken' }, templates);
  mkdirSync(template, { recursive: true });
  writeFileSync(path.join(template, 'PG_VERSION'), '18\n');
  const dir = path.join(root, 'broken-target');
  writeFileSync(dir, 'a file, not a folder');
  // The target is not an empty folder: no copy is tried, initdb's own error stands.
  await t.rejects(initialiseCluster(dir, template, async () => { throw new Error('initdb: not a directory'); }), /not a directory/);
});
