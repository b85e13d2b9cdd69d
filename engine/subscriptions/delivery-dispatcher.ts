// Delivery of the embedded broker (subscription-broker.ts) for every socket of the process:
// a socket attaches its subscriptions here, and one statement leases the visible messages of
// all attachments that are due (woken by an append, a nack or release, or the 500 ms look
// that redelivers expired leases), instead of one statement per socket and subscription.
// Acks of all sockets are coalesced the same way. Each attachment then gets its messages, in
// sequence order, and sends them as one frame; one that got a full frame is due again at once,
// and one whose socket is backed up waits for its drain.
import { SUBSCRIPTION_FRAME_INTERVAL_MS, SUBSCRIPTION_FRAME_MESSAGES_MAX } from '../limits.ts';
import type { Logger } from '../log.ts';
import type { Queryable } from '../stores/queryable.ts';
import { ACK_MANY, LEASE_MANY } from './subscription-broker.sql.ts';

export interface LeasedMessage {
  seq: string;
  items: string;
  dataSetIds: (number | null)[];
}

export interface Attachment {
  tenant: string;
  subscriptionId: number;
  /** The socket's lease owner id. */
  owner: string;
  ackTimeoutMs: number;
  /** False while the socket is backed up: call wake() once it drained. */
  ready(): boolean;
  deliver(messages: LeasedMessage[]): void;
}

/** Runs delivery statements (lease, ack) committing without waiting for the WAL flush. */
export type AsyncCommit = <T>(work: (tx: Queryable) => Promise<T>) => Promise<T>;

export class DeliveryDispatcher {
  private readonly byKey = new Map<string, Set<Attachment>>();
  private readonly due = new Set<Attachment>();
  private scheduled = false;
  private running = false;
  private poll: NodeJS.Timeout | undefined;
  private acks: { tenant: string; subscriptionId: number; seq: string }[] = [];
  private ackWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private acking = false;

  constructor(private readonly asyncCommit: AsyncCommit, private readonly log: Logger) {}

  /** Returns the detach and a wake (call it when the socket drained). */
  attach(attachment: Attachment): { detach(): void; wake(): void } {
    const key = `${attachment.tenant}\t${attachment.subscriptionId}`;
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(attachment);
    this.poll ??= setInterval(() => this.wakeAll(), SUBSCRIPTION_FRAME_INTERVAL_MS).unref();
    this.markDue(attachment);
    return {
      detach: () => {
        set.delete(attachment);
        if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
        this.due.delete(attachment);
        if (this.byKey.size === 0 && this.poll) {
          clearInterval(this.poll);
          this.poll = undefined;
        }
      },
      wake: () => this.markDue(attachment),
    };
  }

  /** Wakes the attachments of these subscriptions of the tenant (all of the tenant's without ids). */
  wake(tenant: string, subscriptionIds?: Iterable<number>): void {
    const keys = subscriptionIds ? [...subscriptionIds].map((id) => `${tenant}\t${id}`) : [...this.byKey.keys()].filter((k) => k.startsWith(`${tenant}\t`));
    for (const key of keys) for (const attachment of this.byKey.get(key) ?? []) this.due.add(attachment);
    this.schedule();
  }

  wakeAll(): void {
    for (const set of this.byKey.values()) for (const attachment of set) this.due.add(attachment);
    this.schedule();
  }

  private markDue(attachment: Attachment): void {
    this.due.add(attachment);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.running || this.due.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run().catch((error: unknown) => this.log.error({ err: error }, 'leasing subscription messages failed; retrying at the next look'));
    });
  }

  private async run(): Promise<void> {
    const taken = [...this.due].filter((a) => a.ready());
    for (const a of taken) this.due.delete(a);
    if (taken.length === 0) return;
    this.running = true;
    try {
      const now = Date.now();
      const rows = await this.asyncCommit((tx) => tx.query<{ subscription_id: number; seq: string; items: string; data_set_ids: (number | null)[]; owner: string }>(LEASE_MANY, [
        taken.map((a) => a.tenant), taken.map((a) => a.subscriptionId), taken.map((a) => a.owner), taken.map((a) => now + a.ackTimeoutMs),
        now, SUBSCRIPTION_FRAME_MESSAGES_MAX,
      ]));
      const byAttachment = new Map<string, LeasedMessage[]>();
      for (const row of rows.rows) {
        const key = `${row.owner}\t${row.subscription_id}`;
        let list = byAttachment.get(key);
        if (!list) byAttachment.set(key, (list = []));
        list.push({ seq: row.seq, items: row.items, dataSetIds: row.data_set_ids });
      }
      for (const a of taken) {
        const messages = byAttachment.get(`${a.owner}\t${a.subscriptionId}`);
        if (!messages || messages.length === 0) continue;
        messages.sort((x, y) => (BigInt(x.seq) < BigInt(y.seq) ? -1 : 1));
        a.deliver(messages);
        if (messages.length === SUBSCRIPTION_FRAME_MESSAGES_MAX) this.due.add(a);
      }
    } finally {
      this.running = false;
      this.schedule();
    }
  }

  /** Acks are coalesced: one statement for what every socket acked meanwhile. */
  ack(tenant: string, messages: readonly { subscriptionId: number; seq: string }[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    for (const m of messages) this.acks.push({ tenant, subscriptionId: m.subscriptionId, seq: m.seq });
    const done = new Promise<void>((resolve, reject) => this.ackWaiters.push({ resolve, reject }));
    if (!this.acking) {
      this.acking = true;
      setImmediate(() => { void this.flushAcks(); });
    }
    return done;
  }

  private async flushAcks(): Promise<void> {
    while (this.acks.length > 0) {
      const acks = this.acks;
      const waiters = this.ackWaiters;
      this.acks = [];
      this.ackWaiters = [];
      try {
        await this.asyncCommit((tx) => tx.query(ACK_MANY, [acks.map((a) => a.tenant), acks.map((a) => a.subscriptionId), acks.map((a) => a.seq)]));
        for (const w of waiters) w.resolve();
      } catch (error) {
        for (const w of waiters) w.reject(error as Error);
      }
    }
    this.acking = false;
  }

  close(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    this.byKey.clear();
    this.due.clear();
  }
}
