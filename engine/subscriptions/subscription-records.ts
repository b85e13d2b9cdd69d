// Subscription records: create, list, byids, update (add and remove series, rename,
// data set) and delete. A subscription is a tenant's record, visible to every token of the
// tenant; what it delivers to a listener is cut to that listener's grants at delivery. Series
// and data sets it names must be readable by the writer (unreadable behaves as unknown: 400).
// Writes that bind series take the tenant's graph lock, as the time series delete does, so a
// series cannot be deleted while being bound (the delete's 400 is then exact).
import type { Subscription, SubscriptionCreate, SubscriptionUpdateItem } from '../../schemas/subscriptions.ts';
import { BadRequestError, DuplicateError, type FieldProblem, type Identifier } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import type { GraphGuard } from '../graph/graph-guard.ts';
import { SUBSCRIPTION_SERIES_MAX } from '../limits.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import {
  BIND_SERIES, COUNT_BOUND_SERIES, DATA_SET_EXISTS, DELETE_SUBSCRIPTIONS, INSERT_SUBSCRIPTION, LIST_SUBSCRIPTIONS, NOTIFY_SUBSCRIPTIONS_CHANGED,
  SERIES_BY_KEYS, SUBSCRIPTIONS_BY_KEYS, TAKEN_SUBSCRIPTION_EXTERNAL_IDS, UNBIND_SERIES, UPDATE_SUBSCRIPTION,
} from './subscription-records.sql.ts';

export interface SubscriptionRow {
  id: number;
  external_id: string;
  name: string;
  description: string | null;
  data_set_id: number | null;
  created_time: number;
  last_updated_time: number;
  timeseries_count: number;
}

export function subscriptionOf(row: SubscriptionRow): Subscription {
  const out: Subscription = {
    id: row.id, externalId: row.external_id, name: row.name, timeseriesCount: row.timeseries_count,
    createdTime: row.created_time, lastUpdatedTime: row.last_updated_time,
  };
  if (row.description !== null) out.description = row.description;
  if (row.data_set_id !== null) out.dataSetId = row.data_set_id;
  return out;
}

const pageCursor = cursorCodec('subscriptions', 1, (s: unknown): s is { after: number } => typeof s === 'object' && s !== null && Number.isSafeInteger((s as { after?: unknown }).after));

/** The tenant's subscriptions by identifiers; each identifier maps to its row or undefined (id and externalId naming two records: undefined). */
async function lookup(db: Queryable, tenant: string, identifiers: readonly Identifier[]): Promise<(SubscriptionRow | undefined)[]> {
  const ids = identifiers.flatMap((i) => (i.id === undefined ? [] : [i.id]));
  const externalIds = identifiers.flatMap((i) => (i.externalId === undefined ? [] : [i.externalId]));
  const { rows } = await db.query<SubscriptionRow>(SUBSCRIPTIONS_BY_KEYS, [tenant, ids, externalIds]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
  return identifiers.map((i) => {
    const a = i.id === undefined ? undefined : byId.get(i.id);
    const b = i.externalId === undefined ? undefined : byExternalId.get(i.externalId);
    if (i.id !== undefined && i.externalId !== undefined) return a && a === b ? a : undefined;
    return a ?? b;
  });
}

/** The readable series named by ids and externalIds; unknown or unreadable ones are a 400 naming them. */
async function resolveSeries(db: Queryable, access: Access, ids: readonly number[], externalIds: readonly string[], field: string, index: number): Promise<number[]> {
  if (ids.length === 0 && externalIds.length === 0) return [];
  const { rows } = await db.query<{ id: number; external_id: string; data_set_id: number | null }>(SERIES_BY_KEYS, [access.tenant, ids, externalIds]);
  const readable = rows.filter((r) => canRead(access, r.data_set_id));
  const foundIds = new Set(readable.map((r) => r.id));
  const foundExternalIds = new Map(readable.map((r) => [r.external_id, r.id]));
  const problems: FieldProblem[] = [
    ...ids.filter((id) => !foundIds.has(id)).map((id) => ({ field: `items[${index}].${field}`, index, message: 'unknown time series', value: id })),
    ...externalIds.filter((e) => !foundExternalIds.has(e)).map((e) => ({ field: `items[${index}].${field.replace('Ids', 'ExternalIds')}`, index, message: 'unknown time series', value: e })),
  ];
  if (problems.length > 0) throw new BadRequestError(`Unknown time series in items[${index}]: ${problems.slice(0, 10).map((p) => JSON.stringify(p.value)).join(', ')}`, problems.slice(0, 1000));
  return [...new Set([...ids, ...externalIds.map((e) => foundExternalIds.get(e) as number)])];
}

async function assertDataSet(db: Queryable, access: Access, dataSetId: number, index: number): Promise<void> {
  const { rows } = await db.query(DATA_SET_EXISTS, [access.tenant, dataSetId]);
  if (rows.length === 0 || !canRead(access, dataSetId)) {
    throw new BadRequestError(`Unknown data set ${dataSetId} in items[${index}]`, [{ field: `items[${index}].dataSetId`, index, message: 'unknown data set', value: dataSetId }]);
  }
}

function tooManySeries(index: number, count: number): BadRequestError {
  return new BadRequestError(`A subscription names at most ${SUBSCRIPTION_SERIES_MAX} time series; items[${index}] would name ${count}`,
    [{ field: `items[${index}].timeseriesIds`, index, message: `at most ${SUBSCRIPTION_SERIES_MAX} time series per subscription`, value: count, limit: SUBSCRIPTION_SERIES_MAX }]);
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}

export async function createSubscriptions(store: RelationalStore, access: Access, items: readonly SubscriptionCreate[], graph: Pick<GraphGuard, 'lock'>): Promise<Subscription[]> {
  const tenant = access.tenant;
  const seen = new Set<string>();
  const repeated = items.filter((i) => (seen.has(i.externalId) ? true : (seen.add(i.externalId), false)));
  if (repeated.length > 0) throw new DuplicateError([...new Set(repeated.map((i) => i.externalId))].map((externalId) => ({ externalId })));
  items.forEach((item, index) => {
    const named = (item.timeseriesIds?.length ?? 0) + (item.timeseriesExternalIds?.length ?? 0);
    if (named > SUBSCRIPTION_SERIES_MAX) throw tooManySeries(index, named);
  });
  try {
    const ids = await store.transaction(async (tx) => {
      if (items.some((i) => (i.timeseriesIds?.length ?? 0) + (i.timeseriesExternalIds?.length ?? 0) > 0)) await graph.lock(tx, tenant);
      const { rows: taken } = await tx.query<{ external_id: string }>(TAKEN_SUBSCRIPTION_EXTERNAL_IDS, [tenant, items.map((i) => i.externalId)]);
      if (taken.length > 0) throw new DuplicateError(taken.map((r) => ({ externalId: r.external_id })));
      const now = Date.now();
      const created: number[] = [];
      for (const [index, item] of items.entries()) {
        if (item.dataSetId !== undefined) await assertDataSet(tx, access, item.dataSetId, index);
        const series = await resolveSeries(tx, access, item.timeseriesIds ?? [], item.timeseriesExternalIds ?? [], 'timeseriesIds', index);
        const { rows } = await tx.query<{ id: number }>(INSERT_SUBSCRIPTION, [tenant, item.externalId, item.name, item.description ?? null, item.dataSetId ?? null, now]);
        const id = (rows[0] as { id: number }).id;
        if (series.length > 0) await tx.query(BIND_SERIES, [tenant, id, series]);
        created.push(id);
      }
      await tx.query(NOTIFY_SUBSCRIPTIONS_CHANGED, [tenant]);
      return created;
    });
    const rows = await lookup(store.pool, tenant, ids.map((id) => ({ id })));
    return rows.filter((r): r is SubscriptionRow => r !== undefined).map(subscriptionOf);
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateError(items.map((i) => ({ externalId: i.externalId })), 'externalId already exists (created meanwhile by another request)');
    throw error;
  }
}

export async function listSubscriptions(db: Queryable, tenant: string, limit: number, cursor?: string): Promise<{ items: Subscription[]; nextCursor?: string }> {
  let after = 0;
  if (cursor !== undefined) {
    const decoded = pageCursor.decode(cursor);
    if (!decoded.ok) throw new BadRequestError('cursor is not a cursor of this list', [{ field: 'cursor', message: 'invalid cursor' }]);
    after = decoded.state.after;
  }
  const { rows } = await db.query<SubscriptionRow>(LIST_SUBSCRIPTIONS, [tenant, after, limit + 1]);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return rows.length > limit && last ? { items: page.map(subscriptionOf), nextCursor: pageCursor.encode({ after: last.id }) } : { items: page.map(subscriptionOf) };
}

/** Misses omitted; in request order, each once. */
export async function subscriptionsByIds(db: Queryable, tenant: string, identifiers: readonly Identifier[]): Promise<Subscription[]> {
  const rows = await lookup(db, tenant, identifiers);
  const seen = new Set<number>();
  return rows.filter((r): r is SubscriptionRow => r !== undefined && !seen.has(r.id) && (seen.add(r.id), true)).map(subscriptionOf);
}

/** The tenant's subscriptions by externalId (the listen routes). */
export async function subscriptionsByExternalIds(db: Queryable, tenant: string, externalIds: readonly string[]): Promise<Map<string, SubscriptionRow>> {
  const rows = await lookup(db, tenant, externalIds.map((externalId) => ({ externalId })));
  return new Map(rows.filter((r): r is SubscriptionRow => r !== undefined).map((r) => [r.external_id, r]));
}

export async function updateSubscriptions(store: RelationalStore, access: Access, items: readonly SubscriptionUpdateItem[], graph: Pick<GraphGuard, 'lock'>): Promise<Subscription[]> {
  const tenant = access.tenant;
  items.forEach((item, index) => {
    if (item.id === undefined && item.externalId === undefined) throw new BadRequestError(`items[${index}] names no subscription: give id or externalId`, [{ field: `items[${index}]`, index, message: 'id or externalId required' }]);
    for (const field of ['description', 'dataSetId'] as const) {
      const verb = item.update[field];
      if (verb && verb.set !== undefined && verb.setNull) throw new BadRequestError(`items[${index}].update.${field}: set and setNull together`, [{ field: `items[${index}].update.${field}`, index, message: 'set and setNull together' }]);
    }
  });
  const ids = await store.transaction(async (tx) => {
    await graph.lock(tx, tenant);
    const rows = await lookup(tx, tenant, items);
    const missing = items.flatMap((item, index) => (rows[index] ? [] : [{ index, id: item.id, externalId: item.externalId }]));
    if (missing.length > 0) {
      throw new BadRequestError(`Subscriptions not found: ${missing.slice(0, 10).map((m) => m.externalId ?? m.id).join(', ')}`,
        missing.map((m) => ({ field: `items[${m.index}]`, index: m.index, message: 'subscription not found', value: m.externalId ?? m.id })));
    }
    const now = Date.now();
    for (const [index, item] of items.entries()) {
      const row = rows[index] as SubscriptionRow;
      const u = item.update;
      const dataSetId = u.dataSetId?.setNull ? null : u.dataSetId?.set ?? row.data_set_id;
      if (u.dataSetId?.set !== undefined) await assertDataSet(tx, access, u.dataSetId.set, index);
      const add = await resolveSeries(tx, access, u.timeseriesIds?.add ?? [], u.timeseriesExternalIds?.add ?? [], 'timeseriesIds', index);
      // Removing what is not bound (or not a series) is a no-op, as SPEC's remove verbs are.
      const removeExternalIds = u.timeseriesExternalIds?.remove ?? [];
      const { rows: removed } = removeExternalIds.length === 0 ? { rows: [] } : await tx.query<{ id: number }>(SERIES_BY_KEYS, [tenant, [], removeExternalIds]);
      const removeIds = [...(u.timeseriesIds?.remove ?? []), ...removed.map((r) => r.id)];
      if (removeIds.length > 0) await tx.query(UNBIND_SERIES, [tenant, row.id, removeIds]);
      if (add.length > 0) await tx.query(BIND_SERIES, [tenant, row.id, add]);
      const { rows: counted } = await tx.query<{ n: number }>(COUNT_BOUND_SERIES, [tenant, row.id]);
      const count = counted[0]?.n ?? 0;
      if (count > SUBSCRIPTION_SERIES_MAX) throw tooManySeries(index, count);
      const description = u.description?.setNull ? null : u.description?.set ?? row.description;
      await tx.query(UPDATE_SUBSCRIPTION, [tenant, row.id, u.name?.set ?? row.name, description, dataSetId, now]);
    }
    await tx.query(NOTIFY_SUBSCRIPTIONS_CHANGED, [tenant]);
    return rows.map((r) => (r as SubscriptionRow).id);
  });
  const after = await lookup(store.pool, tenant, ids.map((id) => ({ id })));
  return after.filter((r): r is SubscriptionRow => r !== undefined).map(subscriptionOf);
}

/** Idempotent: unknown identifiers are skipped. Their unacked messages go with them. */
export async function deleteSubscriptions(store: RelationalStore, tenant: string, identifiers: readonly Identifier[]): Promise<void> {
  await store.transaction(async (tx) => {
    const rows = await lookup(tx, tenant, identifiers);
    const ids = [...new Set(rows.flatMap((r) => (r ? [r.id] : [])))];
    if (ids.length === 0) return;
    await tx.query(DELETE_SUBSCRIPTIONS, [tenant, ids]);
    await tx.query(NOTIFY_SUBSCRIPTIONS_CHANGED, [tenant]);
  });
}
