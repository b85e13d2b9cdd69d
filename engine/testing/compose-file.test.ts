// Goal: docker/compose.yml, the scale-out deployment (CONTRACT "The embedded default and the
// scale-out engines"), holds together although no Docker engine starts it where `make test`
// runs: our image's services read only variables the service knows and set every one the
// api and ingester roles need, two api instances and one ingester run, each store they reach
// is a service of the file that they wait for and that keeps its files on a named volume, and
// every image is an exact release. Method: the compose file is parsed with `yaml` (merge keys
// on, as compose reads them) and the Dockerfile read as text; the variables the service knows
// are taken from engine/config.ts's source, the only reader of the environment, so a renamed
// variable fails here. composeProblems lists every broken rule; the real files must give none,
// and broken copies made in memory must each give exactly the problems named, so every rule
// is seen to fail.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parse } from 'yaml';

const ROOT = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, ROOT), 'utf8');

type Doc = Record<string, unknown>;

/**
 * What the api and ingester roles cannot start or agree without: the role, the three servers
 * (config.ts refuses a split role without Kafka), and one HS256 secret shared by every
 * instance (left unset, each would generate its own into its own DATA_DIR and a token signed
 * for one api instance would be refused by the other).
 */
const SCALE_OUT_VARIABLES = ['ROLE', 'DATABASE_URL', 'CLICKHOUSE_URL', 'KAFKA_BROKERS', 'AUTH_JWT_SECRET'];
const INSTANCES_BY_ROLE = { api: 2, ingester: 1 } as const;
/**
 * How many numbers name one release, where it is not semver's three: PostgreSQL's minor
 * releases are 16.4 (16 is a line that moves), ClickHouse's builds 24.8.4.13 (24.8 and 24.8.4
 * are tags that move).
 */
const RELEASE_NUMBERS: Record<string, number> = { postgres: 2, 'clickhouse/clickhouse-server': 4 };

/** An image by digest, or tagged with its whole release number and an optional variant (-bookworm-slim). */
function isExactImage(reference: string): boolean {
  if (/@sha256:[0-9a-f]{64}$/.test(reference)) return true;
  const match = /^([^\s:@]+):(\d+(?:\.\d+)*)(?:-[A-Za-z0-9.-]+)?$/.exec(reference);
  if (!match) return false;
  const name = (match[1] as string).replace(/^(docker\.io\/)?(library\/)?/, '');
  return (match[2] as string).split('.').length >= (RELEASE_NUMBERS[name] ?? 3);
}

/** Every `env['NAME']` engine/config.ts reads. */
function knownVariables(configSource: string): Set<string> {
  return new Set([...configSource.matchAll(/env\['([A-Z0-9_]+)'\]/g)].map((m) => m[1] as string));
}

const asDoc = (value: unknown): Doc => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : {});

/** compose accepts a mapping or a list of NAME=value. */
function environmentOf(service: Doc): Record<string, string> {
  const raw = service['environment'];
  const pairs = Array.isArray(raw)
    ? raw.map((entry) => String(entry).split(/=(.*)/s).slice(0, 2))
    : Object.entries(asDoc(raw)).map(([k, v]) => [k, String(v)]);
  return Object.fromEntries(pairs);
}

/** compose accepts a list of names (started) or a mapping name → { condition }. */
function dependsOn(service: Doc): Record<string, string> {
  const raw = service['depends_on'];
  if (Array.isArray(raw)) return Object.fromEntries(raw.map((name) => [String(name), 'service_started']));
  return Object.fromEntries(Object.entries(asDoc(raw)).map(([name, v]) => [name, String(asDoc(v)['condition'] ?? 'service_started')]));
}

/** Named volumes and mount targets, from the short (name:/path) and the long form. */
function mountsOf(service: Doc): { source: string; target: string }[] {
  const raw = Array.isArray(service['volumes']) ? service['volumes'] : [];
  return raw.map((v) => {
    if (typeof v === 'string') {
      const [source = '', target = ''] = v.split(':');
      return { source, target };
    }
    return { source: String(asDoc(v)['source'] ?? ''), target: String(asDoc(v)['target'] ?? '') };
  });
}

/** The store services an instance reaches: host names in its URLs and broker list. */
function storeHostsOf(env: Record<string, string>): string[] {
  const hosts: string[] = [];
  for (const name of ['DATABASE_URL', 'CLICKHOUSE_URL']) {
    const url = env[name];
    if (url) hosts.push(URL.canParse(url) ? new URL(url).hostname : url);
  }
  for (const broker of (env['KAFKA_BROKERS'] ?? '').split(',').filter(Boolean)) hosts.push(broker.trim().split(':')[0] as string);
  return [...new Set(hosts)];
}

function storeProblems(compose: Doc, name: string, store: Doc): string[] {
  const problems: string[] = [];
  const mounts = mountsOf(store);
  const declared = asDoc(compose['volumes']);
  if (!mounts.some((m) => Object.hasOwn(declared, m.source))) problems.push(`${name}: its files are on no named volume`);
  // apache/kafka writes its configuration from the KAFKA_ variables alone, and Kafka's default
  // log.dirs is under /tmp: the log must be named inside a mounted path to outlive the container.
  const env = environmentOf(store);
  if ('KAFKA_PROCESS_ROLES' in env) {
    const logDirs = (env['KAFKA_LOG_DIRS'] ?? '').split(',').filter(Boolean);
    if (logDirs.length === 0 || !logDirs.every((dir) => mounts.some((m) => m.target && (dir === m.target || dir.startsWith(`${m.target}/`))))) {
      problems.push(`${name}: KAFKA_LOG_DIRS is not inside a mounted volume`);
    }
  }
  return problems;
}

function instanceProblems(compose: Doc, name: string, service: Doc, known: Set<string>, imageHost: string | undefined): string[] {
  const problems: string[] = [];
  const services = asDoc(compose['services']);
  const env = environmentOf(service);
  for (const key of Object.keys(env)) if (!known.has(key)) problems.push(`${name}: ${key} is not a variable engine/config.ts reads`);
  for (const key of SCALE_OUT_VARIABLES) if (!env[key]) problems.push(`${name}: ${key} is not set`);
  if (env['ROLE'] && !Object.hasOwn(INSTANCES_BY_ROLE, env['ROLE'])) problems.push(`${name}: ROLE=${env['ROLE']}, expected api or ingester`);
  // The service binds 127.0.0.1 by default: in a container nothing else could reach it.
  if ((env['HOST'] ?? imageHost) !== '0.0.0.0') problems.push(`${name}: HOST is ${env['HOST'] ?? imageHost ?? 'unset'}, expected 0.0.0.0`);
  const depends = dependsOn(service);
  for (const host of storeHostsOf(env)) {
    const store = services[host];
    if (!store) {
      problems.push(`${name}: reaches ${host}, which is no service of the file`);
      continue;
    }
    if (!depends[host]) problems.push(`${name}: does not depend on ${host}`);
    else if (asDoc(store)['healthcheck'] && depends[host] !== 'service_healthy') problems.push(`${name}: starts before ${host}'s healthcheck passes`);
  }
  return problems;
}

function dockerfileProblems(dockerfile: string): string[] {
  const problems: string[] = [];
  for (const [, image] of dockerfile.matchAll(/^FROM\s+(\S+)/gim)) if (!isExactImage(image as string)) problems.push(`Dockerfile: FROM ${image} is not an exact release`);
  const user = /^USER\s+(\S+)/im.exec(dockerfile)?.[1];
  const dataDir = /^ENV\s.*\bDATA_DIR=(\S+)/im.exec(dockerfile)?.[1];
  // The service creates DATA_DIR only where the parent is writable, which / is not for a user.
  if (user && user !== 'root' && dataDir && !new RegExp(`^RUN\\s.*chown\\s+${user}(:\\S+)?\\s+${dataDir}\\b`, 'im').test(dockerfile)) {
    problems.push(`Dockerfile: DATA_DIR ${dataDir} is not made writable for USER ${user}`);
  }
  return problems;
}

/** Every broken rule of the deployment, in file order; none for a sound one. */
function composeProblems(compose: Doc, dockerfile: string, known: Set<string>): string[] {
  const problems: string[] = [];
  const services = asDoc(compose['services']);
  const imageHost = /^ENV\s.*\bHOST=(\S+)/im.exec(dockerfile)?.[1];
  const counts: Record<string, number> = { api: 0, ingester: 0 };
  const storeNames = new Set<string>();
  for (const [name, value] of Object.entries(services)) {
    const service = asDoc(value);
    const image = service['image'];
    if (typeof image === 'string' && !isExactImage(image)) problems.push(`${name}: image ${image} is not an exact release`);
    if (!service['build']) continue; // a third-party image: checked as a store below
    problems.push(...instanceProblems(compose, name, service, known, imageHost));
    const role = environmentOf(service)['ROLE'] ?? '';
    if (role in counts) counts[role] = (counts[role] ?? 0) + Number(asDoc(service['deploy'])['replicas'] ?? 1);
    for (const host of storeHostsOf(environmentOf(service))) if (services[host]) storeNames.add(host);
  }
  for (const [role, expected] of Object.entries(INSTANCES_BY_ROLE)) {
    if (counts[role] !== expected) problems.push(`${expected} ${role} instance(s) expected, found ${counts[role]}`);
  }
  for (const name of storeNames) problems.push(...storeProblems(compose, name, asDoc(services[name])));
  problems.push(...dockerfileProblems(dockerfile));
  return problems;
}

const composeText = read('docker/compose.yml');
const dockerfile = read('docker/Dockerfile');
const known = knownVariables(read('engine/config.ts'));
// merge: compose resolves `<<: *service-env`; without it the instances' environment would be one `<<` key.
const compose = asDoc(parse(composeText, { merge: true }));

t.test('the variables are read from engine/config.ts', async (t) => {
  for (const name of [...SCALE_OUT_VARIABLES, 'HOST', 'PORT', 'LOG_LEVEL', 'CLICKHOUSE_PASSWORD']) t.ok(known.has(name), `config.ts reads ${name}`);
});

t.test('docker/compose.yml and docker/Dockerfile break no rule', async (t) => {
  t.ok(Object.keys(asDoc(compose['services'])).length >= 5, 'the file parses into its services');
  t.same(composeProblems(compose, dockerfile, known), []);
});

t.test('a broken copy is refused with its reason', async (t) => {
  const check = (what: string, breakIt: (copy: Doc) => void, expected: string[], brokenDockerfile = dockerfile) => {
    const copy = structuredClone(compose);
    breakIt(copy);
    t.same(composeProblems(copy, brokenDockerfile, known), expected, what);
  };
  const service = (copy: Doc, name: string) => asDoc(asDoc(copy['services'])[name]);
  const env = (copy: Doc, name: string) => asDoc(service(copy, name)['environment']);

  check('an unknown variable', (c) => { env(c, 'api')['CLICKHOUSE_HOST'] = 'clickhouse'; }, ['api: CLICKHOUSE_HOST is not a variable engine/config.ts reads']);
  check('no shared secret', (c) => { delete env(c, 'ingester')['AUTH_JWT_SECRET']; }, ['ingester: AUTH_JWT_SECRET is not set']);
  check('no Kafka', (c) => { delete env(c, 'api')['KAFKA_BROKERS']; }, ['api: KAFKA_BROKERS is not set']);
  check('the combined role', (c) => { env(c, 'api')['ROLE'] = 'all'; }, ['api: ROLE=all, expected api or ingester', '2 api instance(s) expected, found 0']);
  check('bound to loopback', (c) => { env(c, 'api')['HOST'] = '127.0.0.1'; }, ['api: HOST is 127.0.0.1, expected 0.0.0.0']);
  check('one api instance', (c) => { asDoc(service(c, 'api')['deploy'])['replicas'] = 1; }, ['2 api instance(s) expected, found 1']);
  check('two ingesters', (c) => { asDoc(service(c, 'ingester')['deploy'])['replicas'] = 2; }, ['1 ingester instance(s) expected, found 2']);
  check('a bare major', (c) => { service(c, 'postgres')['image'] = 'postgres:16'; }, ['postgres: image postgres:16 is not an exact release']);
  check('latest', (c) => { service(c, 'clickhouse')['image'] = 'clickhouse/clickhouse-server:latest'; }, ['clickhouse: image clickhouse/clickhouse-server:latest is not an exact release']);
  check('no tag', (c) => { service(c, 'kafka')['image'] = 'apache/kafka'; }, ['kafka: image apache/kafka is not an exact release']);
  check('a ClickHouse line', (c) => { service(c, 'clickhouse')['image'] = 'clickhouse/clickhouse-server:24.8.4-alpine'; }, ['clickhouse: image clickhouse/clickhouse-server:24.8.4-alpine is not an exact release']);
  check('pinned by digest', (c) => { service(c, 'kafka')['image'] = `apache/kafka@sha256:${'0'.repeat(64)}`; }, []);
  check('a store not waited for', (c) => { delete asDoc(service(c, 'ingester')['depends_on'])['kafka']; }, ['ingester: does not depend on kafka']);
  check('a healthcheck not waited for', (c) => { asDoc(service(c, 'api')['depends_on'])['postgres'] = { condition: 'service_started' }; }, ["api: starts before postgres's healthcheck passes"]);
  check('a store outside the file', (c) => { env(c, 'api')['DATABASE_URL'] = 'postgres://plantdata:plantdata@db:5432/plantdata'; }, ['api: reaches db, which is no service of the file']);
  check('a store without its volume', (c) => { delete service(c, 'clickhouse')['volumes']; }, ['clickhouse: its files are on no named volume']);
  check("Kafka's log in /tmp", (c) => { delete env(c, 'kafka')['KAFKA_LOG_DIRS']; }, ['kafka: KAFKA_LOG_DIRS is not inside a mounted volume']);
  check('a floating base image', () => undefined, ['Dockerfile: FROM node:20-bookworm-slim is not an exact release'],
    dockerfile.replace(/^FROM .*$/m, 'FROM node:20-bookworm-slim'));
  check('DATA_DIR left to root', () => undefined, ['Dockerfile: DATA_DIR /data is not made writable for USER node'],
    dockerfile.replace(/^RUN .*chown.*$/m, ''));
  // The yaml parser's own default (YAML 1.2, no merge keys) shows what a reader without merge would see.
  t.ok(composeProblems(asDoc(parse(composeText)), dockerfile, known).includes('api: << is not a variable engine/config.ts reads'), 'without merge keys the shared environment is lost');
});
