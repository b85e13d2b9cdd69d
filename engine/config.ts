// The only reader of process.env and SERVICE_CONFIG (STYLE §9). Validates both at start-up,
// fails once listing every bad key, and returns a frozen typed object passed down.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ServiceConfigFile, type TenantSettings } from '../schemas/config.ts';

/** SPEC "Limits": deployment-policy defaults. */
export const POLICY_DEFAULTS = {
  errorsBase: 'https://errors.plantdata.dev',
  rateLimits: {
    organization: { writesPerMinute: 2_000, readsPerMinute: 6_000 },
    user: { writesPerMinute: 600, readsPerMinute: 1_200 },
  },
  dailyQuotas: { events: 100_000, nodes: 50_000, relationships: 100_000, datapoints: 10_000_000, ingestedBytes: 1_073_741_824 },
  websocket: {
    connectionsPerOrganization: 10, connectionsPerUser: 10, subscriptionsPerSocket: 10,
    ackTimeoutMs: 30_000, pingIntervalMs: 15_000, idleTimeoutMs: 45_000,
  },
} as const;

export type Role = 'all' | 'api' | 'ingester';

export interface ServiceConfig {
  port: number;
  host: string;
  dataDir: string;
  role: Role;
  logLevel: string;
  /** HS256 secret; undefined until resolved (generated into DATA_DIR on first start). */
  authJwtSecret?: string;
  authJwksUrl?: string;
  authIssuer?: string;
  authAudience?: string;
  databaseUrl?: string;
  clickhouse?: { url: string; username?: string; password?: string; database?: string };
  kafkaBrokers?: string[];
  serviceConfigPath?: string;
  policy: ServiceConfigFile;
}

export class ConfigError extends Error {}

const checkServiceConfig = TypeCompiler.Compile(ServiceConfigFile);

function readServiceConfig(file: string | undefined): ServiceConfigFile {
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new ConfigError(`SERVICE_CONFIG ${file}: cannot read it as JSON (${(cause as Error).message})`);
  }
  const problems = [...checkServiceConfig.Errors(parsed)].map(
    (e) => `  ${e.path || '/'}: ${e.message} (got ${JSON.stringify(e.value)})`,
  );
  if (problems.length > 0) {
    throw new ConfigError(`SERVICE_CONFIG ${file} has bad keys:\n${problems.join('\n')}`);
  }
  return parsed as ServiceConfigFile;
}

function parsePort(raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw === '') return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) problems.push(`PORT=${raw}: an integer 0-65535`);
  return port;
}

function parseRole(raw: string | undefined, problems: string[]): Role {
  const role = raw ?? 'all';
  if (role !== 'all' && role !== 'api' && role !== 'ingester') {
    problems.push(`ROLE=${raw}: one of all, api, ingester`);
    return 'all';
  }
  return role;
}

/** Reads the environment once; throws ConfigError naming every bad variable and key. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<ServiceConfig> {
  const problems: string[] = [];
  const port = parsePort(env['PORT'], problems);
  const role = parseRole(env['ROLE'], problems);
  let policy: ServiceConfigFile = {};
  try {
    policy = readServiceConfig(env['SERVICE_CONFIG']);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (role !== 'all' && !env['KAFKA_BROKERS']) problems.push(`ROLE=${role}: the api and ingester roles talk through Kafka; set KAFKA_BROKERS`);
  if (problems.length > 0) throw new ConfigError(`Configuration rejected:\n${problems.join('\n')}`);
  const chUrl = env['CLICKHOUSE_URL'];
  return Object.freeze({
    port,
    host: env['HOST'] || '127.0.0.1',
    dataDir: path.resolve(env['DATA_DIR'] || './data'),
    role,
    logLevel: env['LOG_LEVEL'] || 'info',
    authJwtSecret: env['AUTH_JWT_SECRET'] || undefined,
    authJwksUrl: env['AUTH_JWKS_URL'] || undefined,
    authIssuer: env['AUTH_ISSUER'] || undefined,
    authAudience: env['AUTH_AUDIENCE'] || undefined,
    databaseUrl: env['DATABASE_URL'] || undefined,
    clickhouse: chUrl
      ? { url: chUrl, username: env['CLICKHOUSE_USER'], password: env['CLICKHOUSE_PASSWORD'], database: env['CLICKHOUSE_DATABASE'] }
      : undefined,
    kafkaBrokers: env['KAFKA_BROKERS'] ? env['KAFKA_BROKERS'].split(',').map((b) => b.trim()).filter(Boolean) : undefined,
    serviceConfigPath: env['SERVICE_CONFIG'] || undefined,
    policy: deepFreeze(policy),
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Tenants whose settings are kept per policy: past it the memo starts over (tokens may name any organization). */
const SETTINGS_MEMO_TENANTS_MAX = 10_000;
const settingsMemo = new WeakMap<ServiceConfig['policy'], Map<string, TenantSettings>>();

/**
 * The one resolver of per-tenant overrides (STYLE §9): SPEC defaults < top level < tenants.<org>.
 * Resolved once per policy and tenant and frozen: the policy never changes while the service
 * runs (loadConfig freezes it), and the rate limiter and the quotas ask on every request,
 * four times per ingest request, each a dozen spread objects (~1% of the event loop under the
 * gateway shape, bench/probe.ts --perf, 2026-11-25).
 */
export function settingsFor(config: Pick<ServiceConfig, 'policy'>, tenant: string): TenantSettings {
  let byTenant = settingsMemo.get(config.policy);
  if (!byTenant || byTenant.size >= SETTINGS_MEMO_TENANTS_MAX) settingsMemo.set(config.policy, (byTenant = new Map()));
  let settings = byTenant.get(tenant);
  if (!settings) byTenant.set(tenant, (settings = deepFreeze(resolveSettings(config, tenant))));
  return settings;
}

function resolveSettings(config: Pick<ServiceConfig, 'policy'>, tenant: string): TenantSettings {
  const top = config.policy;
  const own = top.tenants?.[tenant] ?? {};
  const rate = (scope: 'organization' | 'user') => ({
    ...POLICY_DEFAULTS.rateLimits[scope],
    ...top.rateLimits?.[scope],
    ...own.rateLimits?.[scope],
  });
  const ceilings = own.ceilings !== undefined ? own.ceilings : top.ceilings ?? null;
  return {
    organization: tenant,
    files: own.files ?? false,
    rateLimits: { organization: rate('organization'), user: rate('user') },
    dailyQuotas: { ...POLICY_DEFAULTS.dailyQuotas, ...top.dailyQuotas, ...own.dailyQuotas },
    ceilings: ceilings ? { ...ceilings } : null,
    websocket: { ...POLICY_DEFAULTS.websocket, ...top.websocket, ...own.websocket },
  };
}

export function errorsBase(config: Pick<ServiceConfig, 'policy'>): string {
  return (config.policy.errorsBase ?? POLICY_DEFAULTS.errorsBase).replace(/\/+$/, '');
}
