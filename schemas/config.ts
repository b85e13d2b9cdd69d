// SERVICE_CONFIG (CONTRACT.md "Configuration"): every key optional, SPEC's figures as defaults.
import { Type, type Static } from '@sinclair/typebox';

const PositiveInt = (description: string) => Type.Integer({ minimum: 1, description });

export const RateBudget = Type.Object(
  {
    writesPerMinute: Type.Optional(PositiveInt('writes per fixed one-minute window')),
    readsPerMinute: Type.Optional(PositiveInt('reads per fixed one-minute window')),
  },
  { additionalProperties: false },
);

export const RateLimitsConfig = Type.Object(
  { organization: Type.Optional(RateBudget), user: Type.Optional(RateBudget) },
  { additionalProperties: false },
);

export const DailyQuotasConfig = Type.Object(
  {
    events: Type.Optional(PositiveInt('events per UTC day')),
    nodes: Type.Optional(PositiveInt('resources, time series, data sets, labels, policies, functions per UTC day')),
    relationships: Type.Optional(PositiveInt('relationships per UTC day')),
    datapoints: Type.Optional(PositiveInt('data points per UTC day')),
    ingestedBytes: Type.Optional(PositiveInt('bytes of write-request body per UTC day')),
  },
  { additionalProperties: false },
);

export const CeilingsConfig = Type.Union([
  Type.Null(),
  Type.Object(
    {
      objects: Type.Optional(PositiveInt('live resources, time series, data sets, labels, policies')),
      events: Type.Optional(PositiveInt('events, cumulative')),
      datapoints: Type.Optional(PositiveInt('data points, cumulative')),
      textDatapoints: Type.Optional(PositiveInt('data points on TEXT/MIXED series, cumulative')),
    },
    { additionalProperties: false },
  ),
]);

export const WebsocketConfig = Type.Object(
  {
    connectionsPerOrganization: Type.Optional(PositiveInt('concurrent WebSocket connections per organization')),
    connectionsPerUser: Type.Optional(PositiveInt('concurrent WebSocket connections per user')),
    subscriptionsPerSocket: Type.Optional(PositiveInt('subscriptions attached to one socket')),
    ackTimeoutMs: Type.Optional(PositiveInt('redelivery after this many ms without ack')),
    pingIntervalMs: Type.Optional(PositiveInt('server PING interval')),
    idleTimeoutMs: Type.Optional(PositiveInt('close sessions idle this long')),
  },
  { additionalProperties: false },
);

export const OauthClient = Type.Object(
  {
    clientSecret: Type.String({ minLength: 1 }),
    organization: Type.String({ minLength: 1 }),
    sub: Type.Optional(Type.String({ minLength: 1 })),
    datasets: Type.Optional(
      Type.Object({
        read: Type.Optional(Type.Array(Type.Union([Type.Number(), Type.String()]))),
        write: Type.Optional(Type.Array(Type.Union([Type.Number(), Type.String()]))),
      }),
    ),
    tokenTtlSeconds: Type.Optional(PositiveInt('lifetime of issued tokens')),
  },
  { additionalProperties: false },
);

const TenantOverride = Type.Object(
  {
    files: Type.Optional(Type.Boolean({ description: 'turns the files feature on for this tenant' })),
    rateLimits: Type.Optional(RateLimitsConfig),
    dailyQuotas: Type.Optional(DailyQuotasConfig),
    ceilings: Type.Optional(CeilingsConfig),
    websocket: Type.Optional(WebsocketConfig),
  },
  { additionalProperties: false },
);

export const ServiceConfigFile = Type.Object(
  {
    errorsBase: Type.Optional(Type.String({ minLength: 1, description: 'base URL of problem types' })),
    rateLimits: Type.Optional(RateLimitsConfig),
    dailyQuotas: Type.Optional(DailyQuotasConfig),
    ceilings: Type.Optional(CeilingsConfig),
    websocket: Type.Optional(WebsocketConfig),
    tenants: Type.Optional(Type.Record(Type.String(), TenantOverride)),
    oauthClients: Type.Optional(Type.Record(Type.String(), OauthClient)),
  },
  { additionalProperties: false },
);
export type ServiceConfigFile = Static<typeof ServiceConfigFile>;

/** Settings in effect for one tenant, as GET /settings returns them. */
export const TenantSettings = Type.Object({
  organization: Type.String(),
  files: Type.Boolean(),
  rateLimits: Type.Object({
    organization: Type.Object({ writesPerMinute: Type.Integer(), readsPerMinute: Type.Integer() }),
    user: Type.Object({ writesPerMinute: Type.Integer(), readsPerMinute: Type.Integer() }),
  }),
  dailyQuotas: Type.Object({
    events: Type.Integer(), nodes: Type.Integer(), relationships: Type.Integer(),
    datapoints: Type.Integer(), ingestedBytes: Type.Integer(),
  }),
  ceilings: Type.Union([
    Type.Null(),
    Type.Object({
      objects: Type.Optional(Type.Integer()), events: Type.Optional(Type.Integer()),
      datapoints: Type.Optional(Type.Integer()), textDatapoints: Type.Optional(Type.Integer()),
    }),
  ]),
  websocket: Type.Object({
    connectionsPerOrganization: Type.Integer(), connectionsPerUser: Type.Integer(),
    subscriptionsPerSocket: Type.Integer(), ackTimeoutMs: Type.Integer(),
    pingIntervalMs: Type.Integer(), idleTimeoutMs: Type.Integer(),
  }),
});
export type TenantSettings = Static<typeof TenantSettings>;
