// Goal: CONTRACT's configuration rules: every env variable optional with its default, a bad
// SERVICE_CONFIG stops the start naming every bad key, and settingsFor resolves per-tenant
// overrides over SPEC's defaults. Method: loadConfig over hand-made environments and files.
import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, settingsFor } from './config.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'config-test-'));
const file = (name: string, content: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
};

t.test('defaults', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 8080);
  t.equal(config.host, '127.0.0.1');
  t.equal(config.role, 'all');
  t.equal(config.logLevel, 'info');
  t.equal(config.dataDir, path.resolve('./data'));
  t.same(config.policy, {});
  t.ok(Object.isFrozen(config));
});

t.test('bad environment values are named together', async (t) => {
  const error = t.throws(() => loadConfig({ PORT: 'eighty', ROLE: 'boss' })) as unknown as ConfigError;
  t.ok(error instanceof ConfigError);
  t.match(error.message, /PORT=eighty/);
  t.match(error.message, /ROLE=boss/);
  t.throws(() => loadConfig({ ROLE: 'api' }), /KAFKA_BROKERS/, 'split roles need Kafka');
  t.equal(loadConfig({ ROLE: 'ingester', KAFKA_BROKERS: 'a:1, b:2' }).kafkaBrokers?.join('|'), 'a:1|b:2');
});

t.test('SERVICE_CONFIG: every bad key is named with its value', async (t) => {
  const bad = file('bad.json', JSON.stringify({
    rateLimits: { user: { writesPerMinute: 0 } },
    dailyQuotas: { events: 'many' },
    websocket: { pingIntervalMs: -1 },
    unknownKey: true,
  }));
  const error = t.throws(() => loadConfig({ SERVICE_CONFIG: bad })) as unknown as ConfigError;
  t.match(error.message, /\/rateLimits\/user\/writesPerMinute/);
  t.match(error.message, /\/dailyQuotas\/events/);
  t.match(error.message, /\/websocket\/pingIntervalMs/);
  t.match(error.message, /unknownKey/);
  t.throws(() => loadConfig({ SERVICE_CONFIG: file('broken.json', '{ nope') }), /cannot read it as JSON/);
  t.throws(() => loadConfig({ SERVICE_CONFIG: path.join(dir, 'missing.json') }), /cannot read/);
});

t.test('settingsFor: SPEC defaults < top level < tenants.<org>', async (t) => {
  const config = loadConfig({
    SERVICE_CONFIG: file('good.json', JSON.stringify({
      rateLimits: { organization: { writesPerMinute: 100 } },
      dailyQuotas: { events: 5 },
      tenants: { acme: { files: true, rateLimits: { user: { readsPerMinute: 7 } }, ceilings: { objects: 3 } } },
    })),
  });
  const acme = settingsFor(config, 'acme');
  t.equal(acme.files, true);
  t.same(acme.rateLimits, { organization: { writesPerMinute: 100, readsPerMinute: 6000 }, user: { writesPerMinute: 600, readsPerMinute: 7 } });
  t.equal(acme.dailyQuotas.events, 5);
  t.equal(acme.dailyQuotas.datapoints, 10_000_000);
  t.same(acme.ceilings, { objects: 3 });
  const other = settingsFor(config, 'other');
  t.equal(other.files, false);
  t.equal(other.ceilings, null, 'ceilings are off unless set');
  t.equal(other.websocket.subscriptionsPerSocket, 10);
  // Resolved once per tenant (every request asks): the same frozen object again, nobody can change it.
  t.equal(settingsFor(config, 'acme'), acme);
  t.not(settingsFor(config, 'other'), acme);
  t.ok(Object.isFrozen(acme) && Object.isFrozen(acme.rateLimits.user) && Object.isFrozen(acme.ceilings));
  t.throws(() => { (acme.dailyQuotas as { events: number }).events = 6; }, TypeError);
  // Another policy (another config) resolves on its own.
  const plain = loadConfig({});
  t.equal(settingsFor(plain, 'acme').files, false);
});
