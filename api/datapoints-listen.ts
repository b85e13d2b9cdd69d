// The data point streams over WebSocket (SPEC "Subscription stream", Limits "WebSocket caps";
// the shapes in docs/api.md "Subscriptions"): GET /timeseries/datapoints/subscription/listen/{externalIds} delivers stored
// subscriptions from the broker with ack/nack; GET /timeseries/datapoints/listen is our ad hoc
// stream of named series without a stored subscription or position. The token, keepalive and
// idle close are the route kind's (websocket-routes.ts); the caps and frames are here.
import { randomUUID } from 'node:crypto';
import { SUBSCRIPTION_FRAME_MESSAGES_MAX, SUBSCRIPTION_SERIES_MAX } from '../engine/limits.ts';
import type { Identifier } from '../engine/errors.ts';
import { canRead, type Access } from '../engine/grants/access.ts';
import type { SubscriptionEngine } from '../engine/subscriptions/subscription-engine.ts';
import { payloadJson } from '../engine/subscriptions/datapoint-items.ts';
import type { LeasedMessage, SubscriptionBroker } from '../engine/subscriptions/subscription-broker.ts';
import { WS_CLOSE, type WebSocketContext, type WebSocketRoute, type WebSocketSession } from './websocket-routes.ts';

const TAG = 'Subscriptions';
/** SPEC "Subscription stream" client actions. */
const CLIENT_ACTIONS = new Set(['subscribe', 'add', 'unsubscribe', 'remove', 'set', 'ack', 'nack']);
/** Ids in one client frame, at most (a frame is at most 1 MiB anyway). */
const FRAME_IDS_MAX = 10_000;

/** Open sockets of both routes per organisation and per user, in this process (SPEC: the caps count connections per instance here). */
class ConnectionCounter {
  private readonly byTenant = new Map<string, number>();
  private readonly byUser = new Map<string, number>();

  admit(ctx: WebSocketContext): { release(): void } | { scope: 'tenant' | 'user'; limit: number } {
    const { connectionsPerOrganization, connectionsPerUser } = ctx.settings.websocket;
    const tenant = ctx.caller.tenant;
    const user = `${tenant}\t${ctx.caller.sub}`;
    if ((this.byTenant.get(tenant) ?? 0) >= connectionsPerOrganization) return { scope: 'tenant', limit: connectionsPerOrganization };
    if ((this.byUser.get(user) ?? 0) >= connectionsPerUser) return { scope: 'user', limit: connectionsPerUser };
    this.byTenant.set(tenant, (this.byTenant.get(tenant) ?? 0) + 1);
    this.byUser.set(user, (this.byUser.get(user) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const t = (this.byTenant.get(tenant) ?? 1) - 1;
        if (t > 0) this.byTenant.set(tenant, t); else this.byTenant.delete(tenant);
        const u = (this.byUser.get(user) ?? 1) - 1;
        if (u > 0) this.byUser.set(user, u); else this.byUser.delete(user);
      },
    };
  }
}

/** Admits the socket or sends the cap frame and closes 1008 (SPEC Limits). */
function admit(ctx: WebSocketContext, connections: ConnectionCounter): (() => void) | undefined {
  const admitted = connections.admit(ctx);
  if ('release' in admitted) return admitted.release;
  // SPEC "Subscription stream": the connection cap frame, word for word.
  const message = `at most ${admitted.limit} concurrent stream connections per ${admitted.scope === 'tenant' ? 'organization' : 'user'}; close one and connect again`;
  ctx.send(JSON.stringify({ error: true, reason: 'websocket-limit-reached', scope: admitted.scope, limit: admitted.limit, message }));
  ctx.close(WS_CLOSE.policyViolation, 'connection limit reached');
  return undefined;
}

/**
 * Runs a socket's work one piece at a time, in order; a failure closes it with 1011. Work of
 * frames that arrived before the socket closed still runs (an ack sent just before a close is
 * applied, not lost to a redelivery): the close handlers queue their clean-up here last.
 */
function serial(_ctx: WebSocketContext): (work: () => Promise<void>) => Promise<void> {
  let chain = Promise.resolve();
  return (work) => {
    // A failed piece closes the socket (its caller's business); the pieces after it, the clean-up among them, still run.
    const next = chain.then(() => work());
    chain = next.catch(() => undefined);
    return next;
  };
}

type ClientFrame = { action: string; [field: string]: unknown };

/** The client frame, or the error frame's message. */
function parseClientFrame(data: string | Uint8Array): ClientFrame | string {
  if (typeof data !== 'string') return 'frames are JSON text, not binary';
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return 'the frame is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { action?: unknown }).action !== 'string') return 'the frame is not an object with an `action`';
  return value as ClientFrame;
}

function stringList(frame: ClientFrame, field: string): string[] | string {
  const list = frame[field];
  if (!Array.isArray(list) || list.length > FRAME_IDS_MAX || !list.every((x) => typeof x === 'string')) return `\`${field}\` must be a list of at most ${FRAME_IDS_MAX} strings`;
  return list as string[];
}

function badRequest(ctx: WebSocketContext, message: string): void {
  ctx.send(JSON.stringify({ error: true, reason: 'bad-request', message }));
}

/** One message of a frame, cut to the listener's grants (an item of an unreadable data set is left out). */
function messageJson(tenant: string, access: Access, subscriptionId: number, message: LeasedMessage): string {
  let items = message.items;
  if (access.readable !== null && message.dataSetIds.some((d) => !canRead(access, d))) {
    const parsed = JSON.parse(items) as unknown[];
    items = JSON.stringify(parsed.filter((_, i) => canRead(access, message.dataSetIds[i])));
  }
  return `{"messageId":"${subscriptionId}.${message.seq}","payload":${payloadJson(tenant, items)}}`;
}

/**
 * One attached subscription of one socket: the broker's dispatcher leases its visible
 * messages (up to 500) when due and this sends them as one frame. While the socket is backed
 * up it is not ready; its drain makes it due again.
 */
class Pump {
  private readonly attached: { detach(): void; wake(): void };

  constructor(private readonly ctx: WebSocketContext, broker: SubscriptionBroker, readonly id: number, readonly externalId: string, owner: string) {
    const tenant = ctx.caller.tenant;
    this.attached = broker.attach({
      tenant, subscriptionId: id, owner, ackTimeoutMs: ctx.settings.websocket.ackTimeoutMs,
      ready: () => !ctx.closed && ctx.bufferedBytes() === 0,
      deliver: (messages) => {
        const frames = messages.map((m) => messageJson(tenant, ctx.access, id, m));
        ctx.send(`{"subscriptionExternalId":${JSON.stringify(externalId)},"messages":[${frames.join(',')}]}`);
      },
    });
  }

  /** The socket drained. */
  wake(): void {
    this.attached.wake();
  }

  stop(): void {
    this.attached.detach();
  }
}

function subscriptionSession(ctx: WebSocketContext, subscriptions: SubscriptionEngine, connections: ConnectionCounter): WebSocketSession {
  const release = admit(ctx, connections);
  if (!release) return {};
  const broker = subscriptions.broker;
  const tenant = ctx.caller.tenant;
  const owner = randomUUID();
  const attached = new Map<string, Pump>();
  const run = serial(ctx);
  const fail = (error: unknown) => {
    ctx.log.error({ err: error, requestId: ctx.requestId }, 'a subscription stream failed; closing it with 1011');
    ctx.close(WS_CLOSE.internalError, 'internal error');
  };
  const error = (externalId: string, reason: string) => ctx.send(JSON.stringify({ error: true, subscriptionExternalId: externalId, reason }));

  async function attach(externalIds: readonly string[]): Promise<void> {
    const wanted = [...new Set(externalIds)].filter((e) => !attached.has(e));
    if (wanted.length === 0) return;
    for (const target of await subscriptions.resolveListen(ctx.access, wanted)) {
      if ('reason' in target) error(target.externalId, target.reason);
      else if ([...attached.values()].some((p) => p.id === target.id)) continue;
      else if (attached.size >= ctx.settings.websocket.subscriptionsPerSocket) error(target.externalId, 'subscription-limit-reached');
      else attached.set(target.externalId, new Pump(ctx, broker, target.id, target.externalId, owner));
    }
  }

  async function detach(externalIds: readonly string[]): Promise<void> {
    const pumps = externalIds.flatMap((e) => {
      const pump = attached.get(e);
      if (!pump) return [];
      attached.delete(e);
      pump.stop();
      return [pump];
    });
    await broker.release(tenant, pumps.map((p) => p.id), owner);
  }

  /** messageIds `<subscription id>.<sequence>`; anything else is ignored (SPEC: unknown ids silently ignored). */
  function messageRefs(ids: readonly string[]): { subscriptionId: number; seq: string }[] {
    return ids.flatMap((id) => {
      const m = /^(\d{1,16})\.(\d{1,18})$/.exec(id);
      return m ? [{ subscriptionId: Number(m[1]), seq: m[2] as string }] : [];
    });
  }

  async function handle(data: string | Uint8Array): Promise<void> {
    const frame = parseClientFrame(data);
    if (typeof frame === 'string') return badRequest(ctx, frame);
    if (!CLIENT_ACTIONS.has(frame.action)) return badRequest(ctx, `unknown action "${frame.action.slice(0, 40)}": subscribe, add, unsubscribe, remove, set, ack or nack`);
    const field = frame.action === 'ack' || frame.action === 'nack' ? 'messageIds' : 'externalIds';
    const list = stringList(frame, field);
    if (typeof list === 'string') return badRequest(ctx, list);
    switch (frame.action) {
      case 'subscribe': case 'add': return attach(list);
      case 'unsubscribe': case 'remove': return detach(list);
      case 'set': {
        const keep = new Set(list);
        await detach([...attached.keys()].filter((e) => !keep.has(e)));
        return attach(list);
      }
      case 'ack': return broker.ack(tenant, messageRefs(list));
      case 'nack': return broker.nack(tenant, messageRefs(list));
      default: return undefined;
    }
  }

  run(() => attach(ctx.pathTail)).catch(fail);
  return {
    message: (data) => run(() => handle(data)),
    drain() {
      for (const pump of attached.values()) pump.wake();
    },
    close() {
      release();
      void run(async () => {
        const ids = [...attached.values()].map((p) => p.id);
        for (const pump of attached.values()) pump.stop();
        attached.clear();
        // Unacked messages are visible again at once: a reconnect (here or elsewhere) resumes them.
        await broker.release(tenant, ids, owner).catch((err: unknown) => ctx.log.warn({ err }, 'giving back leases failed; they expire after ackTimeoutMs'));
      }).catch(() => undefined);
    },
  };
}

function identifiersOf(frame: ClientFrame): Identifier[] | string {
  const items = frame['items'];
  const ok = Array.isArray(items) && items.length <= FRAME_IDS_MAX && items.every((i) => {
    if (typeof i !== 'object' || i === null) return false;
    const { id, externalId } = i as Identifier;
    return (id !== undefined || externalId !== undefined) && (id === undefined || Number.isSafeInteger(id)) && (externalId === undefined || typeof externalId === 'string');
  });
  return ok ? (items as Identifier[]) : `\`items\` must be a list of at most ${FRAME_IDS_MAX} { id } or { externalId }`;
}

function adhocSession(ctx: WebSocketContext, subscriptions: SubscriptionEngine, connections: ConnectionCounter): WebSocketSession {
  const release = admit(ctx, connections);
  if (!release) return {};
  const tenant = ctx.caller.tenant;
  const series = new Map<number, string>();
  const pending: string[] = [];
  let scheduled = false;
  let dropped = 0;
  const flush = () => {
    scheduled = false;
    while (pending.length > 0 && !ctx.closed) {
      const messages = pending.splice(0, SUBSCRIPTION_FRAME_MESSAGES_MAX);
      if (ctx.send(`{"messages":[${messages.join(',')}]}`) === 'dropped') dropped += messages.length;
    }
  };
  const removeSink = subscriptions.adhoc.add({
    tenant, series,
    deliver(items) {
      pending.push(`{"payload":${payloadJson(tenant, `[${items.join(',')}]`)}}`);
      if (pending.length >= SUBSCRIPTION_FRAME_MESSAGES_MAX) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  });
  const run = serial(ctx);

  async function handle(data: string | Uint8Array): Promise<void> {
    const frame = parseClientFrame(data);
    if (typeof frame === 'string') return badRequest(ctx, frame);
    const identifiers = identifiersOf(frame);
    if (typeof identifiers === 'string') return badRequest(ctx, identifiers);
    const action = frame.action;
    if (action === 'unsubscribe' || action === 'remove') {
      const { found } = await subscriptions.resolveSeries({ ...ctx.access, readable: null }, identifiers);
      for (const id of found.keys()) series.delete(id);
      return;
    }
    if (action !== 'subscribe' && action !== 'add' && action !== 'set') return badRequest(ctx, `unknown action "${action.slice(0, 40)}": subscribe, add, unsubscribe, remove or set`);
    const { found, missing } = await subscriptions.resolveSeries(ctx.access, identifiers);
    if (missing.length > 0) ctx.send(JSON.stringify({ error: true, reason: 'not-found', items: missing }));
    const next = action === 'set' ? new Map<number, string>() : new Map(series);
    for (const [id, externalId] of found) next.set(id, externalId);
    if (next.size > SUBSCRIPTION_SERIES_MAX) {
      ctx.send(JSON.stringify({ error: true, reason: 'subscription-limit-reached', limit: SUBSCRIPTION_SERIES_MAX }));
      return;
    }
    series.clear();
    for (const [id, externalId] of next) series.set(id, externalId);
    ctx.send(JSON.stringify({ listening: series.size }));
  }

  return {
    message: (data) => run(() => handle(data)),
    drain() {
      if (dropped > 0) {
        ctx.send(JSON.stringify({ error: true, reason: 'overflow', dropped }));
        dropped = 0;
      }
    },
    close() {
      release();
      void run(async () => { removeSink(); }).catch(() => undefined);
    },
  };
}

export function listenRoutes(subscriptions: SubscriptionEngine): WebSocketRoute[] {
  const connections = new ConnectionCounter();
  return [
    {
      path: '/timeseries/datapoints/subscription/listen/{externalIds*}', operationId: 'listenSubscriptions', tag: TAG,
      summary: 'Stream stored subscriptions\' data points (SPEC "Subscription stream")',
      description: 'Path segments are subscription externalIds; the path may be empty. Server frames: `{ subscriptionExternalId, messages: [{ messageId, payload: { eventAction: "CREATE", eventObject: "DATAPOINTS", tenantId, items: [{ id, externalId, valueType, datapoints: [{ timestamp (ISO-8601), value (string) }] }] } }] }`, up to 500 messages per frame, per subscription. Error frames `{ error: true, subscriptionExternalId, reason }` with reason `not-found`, `forbidden` (its data set is not readable to you) or `subscription-limit-reached`; the socket stays open. Client frames `{ action, externalIds }` for `subscribe` (`add`), `unsubscribe` (`remove`), `set`; `{ action, messageIds }` for `ack`, `nack`; unknown ids are ignored, a malformed frame earns `{ error: true, reason: "bad-request", message }`. Unacked messages are redelivered after `ackTimeoutMs`, at once after a nack or when the socket closes. Over the connection caps: `{ error: true, reason: "websocket-limit-reached", scope: "tenant" | "user", limit, message }` then close 1008.',
      open: (ctx) => subscriptionSession(ctx, subscriptions, connections),
    },
    {
      path: '/timeseries/datapoints/listen', operationId: 'listenDatapoints', tag: TAG,
      summary: 'Ad hoc stream of named series from the moment of connecting (no stored subscription, no position, no ack)',
      description: 'Client frames `{ action: "subscribe" | "add" | "set" | "unsubscribe" | "remove", items: [{ id } | { externalId }] }` (at most 10,000 series per socket); answered `{ listening: <series count> }`, and `{ error: true, reason: "not-found", items }` for unknown or unreadable series. Server frames `{ messages: [{ payload }] }` with the payload of the subscription stream, for points committed while listening. A reader too slow for its socket buffer loses frames and is told `{ error: true, reason: "overflow", dropped }`. Same connection caps as the subscription stream.',
      open: (ctx) => adhocSession(ctx, subscriptions, connections),
    },
  ];
}
