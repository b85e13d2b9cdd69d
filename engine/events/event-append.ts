// Appending events inside a caller's transaction: the one insert of the event log, used by
// event create and by the policy evaluator's findings. Rows with one id collapse: the
// stored event wins.
import type { Queryable } from '../stores/queryable.ts';
import { APPEND_EVENTS } from './event-append.sql.ts';

/** An event with every reference resolved, as stored. */
export interface StoredEventInput {
  id: string;
  externalId: string;
  eventTime: number;
  type: string | null;
  subType: string | null;
  status: string | null;
  source: string | null;
  description: string | null;
  dataSetId: number | null;
  relatedResources: { id: number; externalId: string }[];
  metadata: Record<string, string>;
}

/** Appends `events`; returns the ids that were new (the others were stored already). */
export async function appendEvents(tx: Queryable, tenant: string, events: readonly StoredEventInput[], now = Date.now()): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const { rows } = await tx.query<{ id: string }>(APPEND_EVENTS, [
    tenant,
    events.map((e) => e.id), events.map((e) => e.externalId), events.map((e) => e.eventTime),
    events.map((e) => e.type), events.map((e) => e.subType), events.map((e) => e.status), events.map((e) => e.source),
    events.map((e) => e.description), events.map((e) => e.dataSetId),
    events.map((e) => JSON.stringify(e.relatedResources)), events.map((e) => `{${e.relatedResources.map((r) => r.id).join(',')}}`),
    events.map((e) => JSON.stringify(e.metadata)), now,
  ]);
  return new Set(rows.map((r) => r.id));
}
