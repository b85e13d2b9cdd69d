// Row ↔ record mapping for events (SPEC "Event"): dataSetId and related ids as JSON strings.
import type { Event } from '../../schemas/events.ts';

export interface EventRow {
  id: string;
  external_id: string;
  event_time: number;
  type: string | null;
  sub_type: string | null;
  status: string | null;
  source: string | null;
  description: string | null;
  data_set_id: number | null;
  related_resources: { id: number; externalId: string }[];
  metadata: Record<string, string>;
  created_time: number;
  last_updated_time: number;
}

export const EVENT_COLUMNS = 'id, external_id, event_time, type, sub_type, status, source, description, data_set_id, related_resources, metadata, created_time, last_updated_time';

export function toEvent(r: EventRow): Event {
  return {
    id: r.id, externalId: r.external_id, eventTime: r.event_time, metadata: r.metadata,
    relatedResources: r.related_resources.map((x) => ({ id: String(x.id), externalId: x.externalId })),
    createdTime: r.created_time, lastUpdatedTime: r.last_updated_time,
    ...(r.type !== null ? { type: r.type } : {}),
    ...(r.sub_type !== null ? { subType: r.sub_type } : {}),
    ...(r.status !== null ? { status: r.status } : {}),
    ...(r.source !== null ? { source: r.source } : {}),
    ...(r.description !== null ? { description: r.description } : {}),
    ...(r.data_set_id !== null ? { dataSetId: String(r.data_set_id) } : {}),
  };
}
