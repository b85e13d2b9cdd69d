// Event create, update and delete (SPEC "Event", "Events"). A create is one
// transaction, all-or-nothing, and readable when it answers (the row is committed before the
// reply; no index lags behind it). Rows with one id collapse: a retried create answers the
// stored events. Related resources resolve against the tenant's nodes (resources, time series,
// data sets), the missing side filled in. Updates change rows in place in one transaction
// (stronger than SPEC's replace-and-cleanup: a reader sees the old or the new version);
// deletes remove rows at once (stronger than SPEC's background job).
import { v7 as uuidv7 } from 'uuid';
import type { Event, EventCreate, EventUpdateItem } from '../../schemas/events.ts';
import { EVENT_SOURCE_UPDATE_MAX } from '../../schemas/events.ts';
import { parseInstant } from '../records/instant.ts';
import { BadRequestError, type FieldProblem } from '../errors.ts';
import { assertCanWrite, canRead, type Access } from '../grants/access.ts';
import { governingDataSet, lookupAnyNodes, lookupNodes } from '../meta/node-lookup.ts';
import { applyListVerb, applyMapVerb, applyScalarVerb, updateVerbProblems, type UpdateRules } from '../records/update-verbs.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { appendEvents, type StoredEventInput } from './event-append.ts';
import { toEvent, type EventRow } from './event-rows.ts';
import { DELETE_EVENTS, EVENTS_BY_IDS, EVENTS_BY_KEYS_FOR_UPDATE, MOVE_EVENT_COUNT, UPDATE_EVENT } from './event-write.sql.ts';

type RelatedInput = { id?: number | string; externalId?: string };
type Related = { id: number; externalId: string };

/** SPEC: an empty metadata key is dropped, not rejected. */
function withoutEmptyKey(metadata: Record<string, string> | undefined): Record<string, string> {
  if (!metadata) return {};
  const { '': _dropped, ...rest } = metadata;
  return rest;
}

/**
 * Resolves relatedResources entries of many items in one query: the missing side filled in;
 * an unknown (or unreadable) node, or an entry whose id and externalId name different nodes,
 * is a 400 naming it.
 */
async function resolveRelated(db: Queryable, access: Access, lists: (RelatedInput[] | undefined)[], field: (index: number, k: number) => string): Promise<Related[][]> {
  const entries = lists.flatMap((list) => list ?? []);
  const ids = entries.flatMap((e) => (e.id !== undefined ? [Number(e.id)] : []));
  const externalIds = entries.flatMap((e) => (e.externalId !== undefined ? [e.externalId] : []));
  const nodes = (await lookupAnyNodes(db, access.tenant, ids, externalIds)).filter((n) => canRead(access, governingDataSet(n)));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const byExternalId = new Map(nodes.map((n) => [n.external_id, n]));
  const problems: FieldProblem[] = [];
  const out = lists.map((list, index) => (list ?? []).flatMap((entry, k) => {
    if (entry.id === undefined && entry.externalId === undefined) {
      problems.push({ field: field(index, k), index, message: 'a related resource needs an id or an externalId' });
      return [];
    }
    const node = entry.id !== undefined ? byId.get(Number(entry.id)) : byExternalId.get(entry.externalId as string);
    if (!node) {
      problems.push({ field: field(index, k), index, message: 'no such resource, time series or data set', value: entry.id ?? entry.externalId });
      return [];
    }
    if (entry.id !== undefined && entry.externalId !== undefined && node.external_id !== entry.externalId) {
      problems.push({ field: field(index, k), index, message: 'id and externalId name different resources', value: entry });
      return [];
    }
    return [{ id: node.id, externalId: node.external_id }];
  }));
  if (problems.length > 0) throw new BadRequestError(`Unknown related resources: ${problems.slice(0, 3).map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
  return out.map((list) => [...new Map(list.map((r) => [r.id, r])).values()]);
}

/** SPEC: dataSetId must name an existing (readable) data set, a 400 naming the item otherwise. */
async function resolveDataSets(db: Queryable, access: Access, refs: (number | string | undefined | null)[], field: (index: number) => string): Promise<(number | null)[]> {
  const named = refs.flatMap((r, index) => (r !== undefined && r !== null ? [{ index, id: Number(r) }] : []));
  const out: (number | null)[] = refs.map(() => null);
  if (named.length === 0) return out;
  const found = await lookupNodes(db, access.tenant, 'dataset', named.map((n) => ({ id: n.id })));
  const missing: FieldProblem[] = [];
  found.forEach((f, k) => {
    const { index, id } = named[k] as { index: number; id: number };
    if (f.row && canRead(access, f.row.id)) out[index] = f.row.id;
    else missing.push({ field: field(index), index, message: 'no such data set', value: String(id) });
  });
  if (missing.length > 0) throw new BadRequestError(`Unknown dataSetId: ${missing.map((m) => m.value).join(', ')}`, missing);
  return out;
}

/** The stored events with these ids, in the order given. */
async function storedInOrder(db: Queryable, tenant: string, ids: string[]): Promise<Event[]> {
  const { rows } = await db.query<EventRow>(EVENTS_BY_IDS, [tenant, [...new Set(ids)]]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => { const row = byId.get(id); return row ? [toEvent(row)] : []; });
}

export async function createEvents(store: RelationalStore, access: Access, items: EventCreate[], now = Date.now()): Promise<Event[]> {
  const tenant = access.tenant;
  const problems: FieldProblem[] = [];
  const eventTimes = items.map((item, index) => {
    try {
      return parseInstant(item.eventTime, `items.${index}.eventTime`) as number;
    } catch (error) {
      problems.push(...(error as BadRequestError).fields.map((f) => ({ ...f, index })));
      return 0;
    }
  });
  if (problems.length > 0) throw new BadRequestError(`Invalid eventTime: ${problems[0]?.field}`, problems);
  assertCanWrite(access, items.map((i) => (i.dataSetId !== undefined ? Number(i.dataSetId) : undefined)), 'event create');
  // Ids are normalised to lower case: a retried create with the same UUID in capitals collapses too.
  const ids = items.map((i) => (i.id ?? uuidv7()).toLowerCase());
  return store.transaction(async (tx) => {
    const dataSets = await resolveDataSets(tx, access, items.map((i) => i.dataSetId), (index) => `items.${index}.dataSetId`);
    const related = await resolveRelated(tx, access, items.map((i) => i.relatedResources), (index, k) => `items.${index}.relatedResources.${k}`);
    const rows: StoredEventInput[] = items.map((item, index) => ({
      id: ids[index] as string, externalId: item.externalId, eventTime: eventTimes[index] as number,
      type: item.type ?? null, subType: item.subType ?? null, status: item.status ?? null, source: item.source ?? null,
      description: item.description ?? null, dataSetId: dataSets[index] ?? null, relatedResources: related[index] ?? [],
      metadata: withoutEmptyKey(item.metadata),
    }));
    const inserted = await appendEvents(tx, tenant, rows, now);
    return createdInOrder(tx, tenant, rows, inserted, now);
  });
}

/**
 * The stored events in request order. A row this statement inserted is exactly its input
 * (the first item with its id) with the create time, so it is answered without being read
 * back (reading 10,000 events back cost as much again as parsing them); an id
 * stored before (a retry, or a racing create that committed first) is read back: the stored
 * event wins.
 */
async function createdInOrder(db: Queryable, tenant: string, rows: StoredEventInput[], inserted: Set<string>, now: number): Promise<Event[]> {
  const first = new Map<string, StoredEventInput>();
  for (const row of rows) if (!first.has(row.id)) first.set(row.id, row);
  const answers = new Map<string, Event>();
  const storedBefore = [...first.keys()].filter((id) => !inserted.has(id));
  if (storedBefore.length > 0) for (const event of await storedInOrder(db, tenant, storedBefore)) answers.set(event.id, event);
  for (const [id, row] of first) {
    if (!inserted.has(id)) continue;
    answers.set(id, toEvent({
      id, external_id: row.externalId, event_time: row.eventTime, type: row.type, sub_type: row.subType, status: row.status, source: row.source,
      description: row.description, data_set_id: row.dataSetId, related_resources: row.relatedResources, metadata: row.metadata, created_time: now, last_updated_time: now,
    }));
  }
  return rows.flatMap((r) => { const event = answers.get(r.id); return event ? [event] : []; });
}

/** SPEC event update verbs: `set` on all, `setNull` on nullable fields, add/remove on metadata and relatedResources. */
const EVENT_UPDATE_RULES: UpdateRules = {
  externalId: { shape: 'scalar', required: true },
  eventTime: { shape: 'scalar', required: true },
  description: { shape: 'scalar' },
  type: { shape: 'scalar' },
  subType: { shape: 'scalar' },
  status: { shape: 'scalar' },
  source: { shape: 'scalar' },
  dataSetId: { shape: 'scalar' },
  metadata: { shape: 'map' },
  relatedResources: { shape: 'list' },
};

/** Events named by id or externalId (every event under it), readable, locked. */
async function lockedTargets(tx: Queryable, access: Access, identifiers: { id?: string; externalId?: string }[]): Promise<{ index: number; rows: EventRow[] }[]> {
  const ids = identifiers.flatMap((i) => (i.id !== undefined ? [i.id.toLowerCase()] : []));
  const externalIds = identifiers.flatMap((i) => (i.id === undefined && i.externalId !== undefined ? [i.externalId] : []));
  const { rows } = await tx.query<EventRow>(EVENTS_BY_KEYS_FOR_UPDATE, [access.tenant, ids, externalIds]);
  const visible = rows.filter((r) => canRead(access, r.data_set_id));
  return identifiers.map((identifier, index) => {
    if (identifier.id !== undefined) {
      const row = visible.find((r) => r.id === identifier.id?.toLowerCase());
      const agrees = !row || identifier.externalId === undefined || row.external_id === identifier.externalId;
      if (!agrees) throw new BadRequestError('id and externalId name different events', [{ field: `items.${index}`, index, message: 'id and externalId name different events' }]);
      return { index, rows: row ? [row] : [] };
    }
    return { index, rows: visible.filter((r) => r.external_id === identifier.externalId) };
  });
}

export async function updateEvents(store: RelationalStore, access: Access, items: EventUpdateItem[], now = Date.now()): Promise<Event[]> {
  const problems: FieldProblem[] = items.flatMap((item, index) => [
    ...(item.id === undefined && item.externalId === undefined ? [{ field: `items.${index}`, index, message: 'needs an id or an externalId' }] : []),
    ...updateVerbProblems(item.update, EVENT_UPDATE_RULES, `items.${index}.update`, index),
    ...(item.update.source?.set !== undefined && item.update.source.set.length > EVENT_SOURCE_UPDATE_MAX
      ? [{ field: `items.${index}.update.source`, index, message: `source is at most ${EVENT_SOURCE_UPDATE_MAX} characters on update`, value: item.update.source.set }] : []),
  ]);
  if (problems.length > 0) throw new BadRequestError(`Invalid update: ${problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; ')}`, problems);
  const eventTimes = items.map((item, index) => (item.update.eventTime?.set !== undefined ? parseInstant(item.update.eventTime.set, `items.${index}.update.eventTime`) : undefined));
  const tenant = access.tenant;
  return store.transaction(async (tx) => {
    const targets = await lockedTargets(tx, access, items);
    const missing = targets.filter((t) => t.rows.length === 0);
    if (missing.length > 0) {
      throw new BadRequestError(`Event not found: ${missing.map((m) => items[m.index]?.id ?? items[m.index]?.externalId).join(', ')}`,
        missing.map((m) => ({ field: `items.${m.index}`, index: m.index, message: 'not found', value: items[m.index]?.id ?? items[m.index]?.externalId })));
    }
    const dataSets = await resolveDataSets(tx, access, items.map((i) => i.update.dataSetId?.set), (index) => `items.${index}.update.dataSetId`);
    assertCanWrite(access, [...targets.flatMap((t) => t.rows.map((r) => r.data_set_id)), ...dataSets], 'event update');
    const relatedVerbs = items.map((i) => i.update.relatedResources);
    const resolvedSets = await resolveRelated(tx, access, relatedVerbs.map((v) => v?.set), (index, k) => `items.${index}.update.relatedResources.set.${k}`);
    const resolvedAdds = await resolveRelated(tx, access, relatedVerbs.map((v) => v?.add), (index, k) => `items.${index}.update.relatedResources.add.${k}`);
    const updated: EventRow[] = [];
    const seen = new Set<string>();
    for (const target of targets) {
      const item = items[target.index] as EventUpdateItem;
      const u = item.update;
      for (const row of target.rows) {
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        const verb = u.relatedResources;
        const related = verb === undefined ? row.related_resources : applyListVerb<Related, RelatedInput>(row.related_resources, {
          ...(verb.setNull ? { setNull: true } : {}),
          ...(verb.set !== undefined ? { set: resolvedSets[target.index] } : {}),
          ...(verb.add !== undefined ? { add: resolvedAdds[target.index] } : {}),
          ...(verb.remove !== undefined ? { remove: verb.remove } : {}),
        }, (a, b) => a.id === b.id, (entry, removal) => (removal.id !== undefined && Number(removal.id) === entry.id) || (removal.externalId !== undefined && removal.externalId === entry.externalId));
        const { rows: out } = await tx.query<EventRow>(UPDATE_EVENT, [
          tenant, row.id,
          applyScalarVerb(row.external_id, u.externalId) as string,
          eventTimes[target.index] ?? row.event_time,
          applyScalarVerb(row.type, u.type), applyScalarVerb(row.sub_type, u.subType), applyScalarVerb(row.status, u.status), applyScalarVerb(row.source, u.source),
          applyScalarVerb(row.description, u.description),
          u.dataSetId === undefined ? row.data_set_id : u.dataSetId.setNull === true ? null : dataSets[target.index],
          JSON.stringify(related), JSON.stringify(related.map((r) => r.id)),
          JSON.stringify(withoutEmptyKey(applyMapVerb(row.metadata, u.metadata))), now,
        ]);
        const after = out[0];
        if (!after) continue;
        updated.push(after);
        if (after.data_set_id !== row.data_set_id) await tx.query(MOVE_EVENT_COUNT, [tenant, row.data_set_id, after.data_set_id]);
      }
    }
    return updated.map(toEvent);
  });
}

/** SPEC: 200, idempotent; an externalId removes every event under it; 403 without write on an event's data set. */
export async function deleteEvents(store: RelationalStore, access: Access, identifiers: { id?: string; externalId?: string }[]): Promise<void> {
  await store.transaction(async (tx) => {
    const rows = (await lockedTargets(tx, access, identifiers)).flatMap((t) => t.rows);
    if (rows.length === 0) return;
    assertCanWrite(access, rows.map((r) => r.data_set_id), 'event delete');
    await tx.query(DELETE_EVENTS, [access.tenant, [...new Set(rows.map((r) => r.id))]]);
  });
}
