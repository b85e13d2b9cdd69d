// The listen sessions (SPEC "Subscription stream"): client frames in, server frames out. The
// stored-subscription session attaches subscriptions to the broker's delivery, acks, nacks and
// gives leases back; the ad hoc session listens to named series through the fan-out. Both cut
// what they send to the listener's grants. The socket itself (upgrade, parsing the text,
// back-pressure, close codes) is the caller's (api/datapoints-listen.ts), seen here only
// through ListenOutput.
import { randomUUID } from 'node:crypto';
import { SUBSCRIPTION_FRAME_MESSAGES_MAX, SUBSCRIPTION_SERIES_MAX } from '../limits.ts';
import type { Identifier } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import type { Logger } from '../log.ts';
import type { AdhocFanout } from './adhoc-fanout.ts';
import { payloadJson } from './datapoint-items.ts';
import { badRequestFrame, clientFrame, identifiersOf, messageRefs, stringList, type ListenFrame } from './listen-frames.ts';
import type { LeasedMessage, SubscriptionBroker } from './subscription-broker.ts';

/** SPEC "Subscription stream" client actions of the stored-subscription stream. */
const CLIENT_ACTIONS = new Set(['subscribe', 'add', 'unsubscribe', 'remove', 'set', 'ack', 'nack']);

/**
 * Where a session's frames go. Frames are JSON text: data frames embed items JSON built once
 * per series per committed batch (datapoint-items.ts), whatever number of sockets share it.
 */
export interface ListenOutput {
  /** Sends one frame; false when it was dropped (the socket's send buffer is over its limit). */
  send(frame: string): boolean;
  /** True while a frame can go out at once: the socket is open and nothing is queued on it. */
  ready(): boolean;
  /** True once the socket closed; nothing is sent any more. */
  closed(): boolean;
}

/** What a session is handed by the socket. Each call's work runs after the previous call's, in order. */
export interface ListenSession {
  /**
   * Resolves once the subscriptions named at connect time are attached (at once for the ad hoc
   * stream). A rejection means the session failed: close the socket.
   */
  readonly started: Promise<void>;
  /** One client frame. A rejection means the session failed: close the socket. */
  receive(frame: ListenFrame): Promise<void>;
  /** The socket's send queue drained. */
  drained(): void;
  /** The socket closed. Frames received before still run; resolves once leases are given back; never rejects. */
  close(): Promise<void>;
}

/** What the listener may attach: the subscription, or why not (SPEC error frame reasons). */
export type ListenTarget = { id: number; externalId: string } | { reason: 'not-found' | 'forbidden'; externalId: string };

export interface ListenSessionDeps {
  broker: SubscriptionBroker;
  adhoc: AdhocFanout;
  /** Another tenant's subscription is not-found; one over an unreadable data set forbidden. */
  resolveListen(access: Access, externalIds: readonly string[]): Promise<ListenTarget[]>;
  /** Readable time series by identifiers; the others come back as missing. */
  resolveSeries(access: Access, identifiers: readonly Identifier[]): Promise<{ found: Map<number, string>; missing: Identifier[] }>;
  log: Logger;
}

/** The tenant's WebSocket settings a session applies. */
export interface ListenSettings {
  subscriptionsPerSocket: number;
  ackTimeoutMs: number;
}

/**
 * Runs a session's work one piece at a time, in order. Work of frames that arrived before the
 * socket closed still runs (an ack sent just before a close is applied, not lost to a
 * redelivery): the close queues its clean-up here last.
 */
function serial(): (work: () => Promise<void>) => Promise<void> {
  let chain = Promise.resolve();
  return (work) => {
    // A failed piece fails the session (its caller's business); the pieces after it, the clean-up among them, still run.
    const next = chain.then(() => work());
    chain = next.catch(() => undefined);
    return next;
  };
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
 * One attached subscription of one session: the broker's dispatcher leases its visible
 * messages (up to 500) when due and this sends them as one frame. While the socket is backed
 * up it is not ready; its drain makes it due again.
 */
class Pump {
  private readonly attached: { detach(): void; wake(): void };

  constructor(access: Access, output: ListenOutput, broker: SubscriptionBroker, readonly id: number, externalId: string, owner: string, ackTimeoutMs: number) {
    const tenant = access.tenant;
    this.attached = broker.attach({
      tenant, subscriptionId: id, owner, ackTimeoutMs,
      ready: () => output.ready(),
      deliver: (messages) => {
        const frames = messages.map((m) => messageJson(tenant, access, id, m));
        output.send(`{"subscriptionExternalId":${JSON.stringify(externalId)},"messages":[${frames.join(',')}]}`);
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

/** The stored-subscription stream of one socket, attaching `externalIds` (the connect path's) first. */
export function subscriptionListenSession(
  deps: ListenSessionDeps, access: Access, settings: ListenSettings, output: ListenOutput, externalIds: readonly string[], release: () => void,
): ListenSession {
  const { broker } = deps;
  const tenant = access.tenant;
  const owner = randomUUID();
  const attached = new Map<string, Pump>();
  const run = serial();
  const error = (externalId: string, reason: string) => output.send(JSON.stringify({ error: true, subscriptionExternalId: externalId, reason }));

  async function attach(wantedIds: readonly string[]): Promise<void> {
    const wanted = [...new Set(wantedIds)].filter((e) => !attached.has(e));
    if (wanted.length === 0) return;
    for (const target of await deps.resolveListen(access, wanted)) {
      if ('reason' in target) error(target.externalId, target.reason);
      else if ([...attached.values()].some((p) => p.id === target.id)) continue;
      else if (attached.size >= settings.subscriptionsPerSocket) error(target.externalId, 'subscription-limit-reached');
      else attached.set(target.externalId, new Pump(access, output, broker, target.id, target.externalId, owner, settings.ackTimeoutMs));
    }
  }

  async function detach(externalIdsGone: readonly string[]): Promise<void> {
    const pumps = externalIdsGone.flatMap((e) => {
      const pump = attached.get(e);
      if (!pump) return [];
      attached.delete(e);
      pump.stop();
      return [pump];
    });
    await broker.release(tenant, pumps.map((p) => p.id), owner);
  }

  async function handle(input: ListenFrame): Promise<void> {
    const frame = clientFrame(input);
    if (typeof frame === 'string') return void output.send(badRequestFrame(frame));
    if (!CLIENT_ACTIONS.has(frame.action)) return void output.send(badRequestFrame(`unknown action "${frame.action.slice(0, 40)}": subscribe, add, unsubscribe, remove, set, ack or nack`));
    const field = frame.action === 'ack' || frame.action === 'nack' ? 'messageIds' : 'externalIds';
    const list = stringList(frame, field);
    if (typeof list === 'string') return void output.send(badRequestFrame(list));
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

  return {
    started: run(() => attach(externalIds)),
    receive: (frame) => run(() => handle(frame)),
    drained() {
      for (const pump of attached.values()) pump.wake();
    },
    close() {
      release();
      return run(async () => {
        const ids = [...attached.values()].map((p) => p.id);
        for (const pump of attached.values()) pump.stop();
        attached.clear();
        // Unacked messages are visible again at once: a reconnect (here or elsewhere) resumes them.
        await broker.release(tenant, ids, owner).catch((err: unknown) => deps.log.warn({ err }, 'giving back leases failed; they expire after ackTimeoutMs'));
      }).catch(() => undefined);
    },
  };
}

/** The ad hoc stream of one socket: named series, from the moment of listening, no position, no ack. */
export function adhocListenSession(deps: ListenSessionDeps, access: Access, output: ListenOutput, release: () => void): ListenSession {
  const tenant = access.tenant;
  const series = new Map<number, string>();
  const pending: string[] = [];
  let scheduled = false;
  let dropped = 0;
  const flush = () => {
    scheduled = false;
    while (pending.length > 0 && !output.closed()) {
      const messages = pending.splice(0, SUBSCRIPTION_FRAME_MESSAGES_MAX);
      if (!output.send(`{"messages":[${messages.join(',')}]}`)) dropped += messages.length;
    }
  };
  const removeSink = deps.adhoc.add({
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
  const run = serial();

  async function handle(input: ListenFrame): Promise<void> {
    const frame = clientFrame(input);
    if (typeof frame === 'string') return void output.send(badRequestFrame(frame));
    const identifiers = identifiersOf(frame);
    if (typeof identifiers === 'string') return void output.send(badRequestFrame(identifiers));
    const action = frame.action;
    if (action === 'unsubscribe' || action === 'remove') {
      const { found } = await deps.resolveSeries({ ...access, readable: null }, identifiers);
      for (const id of found.keys()) series.delete(id);
      return;
    }
    if (action !== 'subscribe' && action !== 'add' && action !== 'set') return void output.send(badRequestFrame(`unknown action "${action.slice(0, 40)}": subscribe, add, unsubscribe, remove or set`));
    const { found, missing } = await deps.resolveSeries(access, identifiers);
    if (missing.length > 0) output.send(JSON.stringify({ error: true, reason: 'not-found', items: missing }));
    const next = action === 'set' ? new Map<number, string>() : new Map(series);
    for (const [id, externalId] of found) next.set(id, externalId);
    if (next.size > SUBSCRIPTION_SERIES_MAX) {
      output.send(JSON.stringify({ error: true, reason: 'subscription-limit-reached', limit: SUBSCRIPTION_SERIES_MAX }));
      return;
    }
    series.clear();
    for (const [id, externalId] of next) series.set(id, externalId);
    await deps.adhoc.ready();
    output.send(JSON.stringify({ listening: series.size }));
  }

  return {
    started: Promise.resolve(),
    receive: (frame) => run(() => handle(frame)),
    drained() {
      if (dropped > 0) {
        output.send(JSON.stringify({ error: true, reason: 'overflow', dropped }));
        dropped = 0;
      }
    },
    close() {
      release();
      return run(async () => { removeSink(); }).catch(() => undefined);
    },
  };
}
