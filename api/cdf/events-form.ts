// CDF's event form ↔ our event log's (SPEC "Event"): pure translation, no rule. CDF's
// startTime is our eventTime, subtype our subType, assetIds our relatedResources (by id), the
// id our event's number (engine/events/event-numbers.ts). What the log cannot carry is a 400
// naming the field (docs/cdf.md "Events"): an endTime other than the startTime (events here are
// instants), an event without externalId or startTime (both required here), and the filters
// the event filter has no counterpart for.
import { EventCreateRequest, EventFilter, EventUpdate, type EventCreate, type EventFilterRequest, type EventUpdateItem } from '../../schemas/events.ts';
import type { CdfEvent, CdfEventCreate, CdfEventFilter, CdfEventAggregateRequest, CdfEventListRequest, CdfEventSearchRequest, CdfEventUpdate, CdfRange, CdfSort } from '../../schemas/cdf/events.ts';
import type { NumberedEvent, NumberedIdentifier, NumberedUpdateItem, ValueCountField } from '../../engine/events/event-numbers.ts';
import { BadRequestError, type FieldProblem } from '../../engine/errors.ts';
import { compileValidator } from '../validation.ts';

// What a translation gives the engine meets SPEC's schemas, caps included (SPEC's routes check
// their bodies so; the engine relies on it): checked once translated, the problems named in
// our field names.
const checkEventCreates = compileValidator(EventCreateRequest, 'events (as stored)');
const checkEventUpdate = compileValidator(EventUpdate, 'event update (as stored)');
const checkEventFilter = compileValidator(EventFilter, 'event filter (as read)');

/** CDF's default page. */
export const CDF_LIST_LIMIT_DEFAULT = 100;

function refuse(problems: FieldProblem[]): never {
  throw new BadRequestError(problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; '), problems);
}

export function toCdfEvent({ number, event }: NumberedEvent): CdfEvent {
  return {
    id: number,
    externalId: event.externalId,
    startTime: event.eventTime,
    ...(event.type !== undefined ? { type: event.type } : {}),
    ...(event.subType !== undefined ? { subtype: event.subType } : {}),
    ...(event.description !== undefined ? { description: event.description } : {}),
    metadata: event.metadata,
    assetIds: event.relatedResources.map((r) => Number(r.id)),
    ...(event.source !== undefined ? { source: event.source } : {}),
    ...(event.dataSetId !== undefined ? { dataSetId: Number(event.dataSetId) } : {}),
    createdTime: event.createdTime,
    lastUpdatedTime: event.lastUpdatedTime,
  };
}

export function fromCdfEventCreates(items: CdfEventCreate[]): EventCreate[] {
  const problems: FieldProblem[] = [];
  const out = items.map((item, index): EventCreate => {
    const at = `items.${index}`;
    if (item.externalId === undefined) problems.push({ field: `${at}.externalId`, index, message: 'required here: an event\'s externalId is its correlation key (3-256 characters)' });
    if (item.startTime === undefined) problems.push({ field: `${at}.startTime`, index, message: 'required here: an event is stored at its startTime' });
    if (item.endTime !== undefined && item.endTime !== item.startTime) {
      problems.push({ field: `${at}.endTime`, index, message: 'not stored: events are instants (give no endTime, or the startTime)', value: item.endTime });
    }
    return {
      externalId: item.externalId ?? '',
      eventTime: item.startTime ?? 0,
      ...(item.type !== undefined ? { type: item.type } : {}),
      ...(item.subtype !== undefined ? { subType: item.subtype } : {}),
      ...(item.description !== undefined ? { description: item.description } : {}),
      ...(item.metadata !== undefined ? { metadata: item.metadata } : {}),
      ...(item.source !== undefined ? { source: item.source } : {}),
      ...(item.dataSetId !== undefined ? { dataSetId: item.dataSetId } : {}),
      ...(item.assetIds !== undefined ? { relatedResources: item.assetIds.map((id) => ({ id })) } : {}),
    };
  });
  if (problems.length > 0) refuse(problems);
  checkEventCreates({ items: out });
  return out;
}

/** CDF's inclusive [min, max] as our eventTime's [min, max). */
function eventTimeWindow(ranges: (CdfRange | undefined)[]): EventFilter['eventTime'] | undefined {
  const given = ranges.filter((r): r is CdfRange => r !== undefined);
  if (given.length === 0) return undefined;
  const mins = given.flatMap((r) => (r.min !== undefined ? [r.min] : []));
  const maxes = given.flatMap((r) => (r.max !== undefined ? [r.max] : []));
  return {
    ...(mins.length > 0 ? { min: Math.max(...mins) } : {}),
    ...(maxes.length > 0 ? { max: Math.min(...maxes) + 1 } : {}),
  };
}

/** CDF's event filter as our filter plus the advanced filter leaves that keep CDF's exact matches. */
export function fromCdfEventFilter(filter: CdfEventFilter | undefined, field = 'filter'): Pick<EventFilterRequest, 'filter' | 'advancedFilter'> {
  if (!filter) return {};
  const problems: FieldProblem[] = [];
  if (filter.assetSubtreeIds !== undefined) problems.push({ field: `${field}.assetSubtreeIds`, message: 'not supported: filter by assetIds' });
  if ((filter.assetIds?.length ?? 0) + (filter.assetExternalIds?.length ?? 0) > 1) {
    problems.push({ field: `${field}.assetIds`, message: 'one asset at most (assetIds or assetExternalIds): several would ask for any of them, which the event filter cannot' });
  }
  if (problems.length > 0) refuse(problems);
  const out: EventFilter = {};
  // No event here has an endTime: a filter that asks for one matches nothing (an empty data set list).
  const noEndTime = filter.endTime !== undefined && !('isNull' in filter.endTime && filter.endTime.isNull);
  if (noEndTime) out.dataSetId = [];
  else if (filter.dataSetIds !== undefined) out.dataSetId = filter.dataSetIds;
  const eventTime = eventTimeWindow([filter.startTime, filter.activeAtTime]);
  if (eventTime) out.eventTime = eventTime;
  if (filter.metadata !== undefined) out.metadata = filter.metadata;
  if (filter.assetIds?.[0] !== undefined) out.relatedResources = [{ id: filter.assetIds[0] }];
  if (filter.assetExternalIds?.[0] !== undefined) out.relatedResources = [{ externalId: filter.assetExternalIds[0] }];
  if (filter.createdTime !== undefined) out.createdTime = filter.createdTime;
  if (filter.lastUpdatedTime !== undefined) out.lastUpdatedTime = filter.lastUpdatedTime;
  const leaves = [
    ...(filter.type !== undefined ? [{ equals: { property: ['type'], value: filter.type } }] : []),
    ...(filter.subtype !== undefined ? [{ equals: { property: ['subType'], value: filter.subtype } }] : []),
    ...(filter.source !== undefined ? [{ equals: { property: ['source'], value: filter.source } }] : []),
    ...(filter.externalIdPrefix !== undefined ? [{ prefix: { property: ['externalId'], value: filter.externalIdPrefix } }] : []),
  ];
  checkEventFilter(out);
  return { filter: out, ...(leaves.length > 0 ? { advancedFilter: { and: leaves } } : {}) };
}

/** CDF's sortable event properties and ours. */
const SORT_PROPERTIES: Readonly<Record<string, string>> = { startTime: 'eventTime', createdTime: 'createdTime', lastUpdatedTime: 'lastUpdatedTime' };

function fromCdfSort(sort: CdfSort[] | undefined): EventFilterRequest['sort'] {
  if (!sort || sort.length === 0) return undefined;
  if (sort.length > 1) refuse([{ field: 'sort', message: 'one sort property at most' }]);
  const first = sort[0] as CdfSort;
  const [property, order] = typeof first === 'string' ? first.split(':') : [first.property[0], first.order];
  const ours = property !== undefined ? SORT_PROPERTIES[property] : undefined;
  if (ours === undefined || (order !== undefined && order !== 'asc' && order !== 'desc')) {
    refuse([{ field: 'sort.0', message: `sortable: ${Object.keys(SORT_PROPERTIES).map((p) => `${p}:asc|desc`).join(', ')}`, value: first }]);
  }
  return { property: [ours], order: order ?? 'asc' };
}

export function fromCdfEventList(body: CdfEventListRequest): EventFilterRequest {
  const sort = fromCdfSort(body.sort);
  return {
    ...fromCdfEventFilter(body.filter),
    limit: body.limit ?? CDF_LIST_LIMIT_DEFAULT,
    ...(sort !== undefined ? { sort } : {}),
    ...(body.cursor !== undefined ? { cursor: body.cursor } : {}),
  };
}

/**
 * CDF's description search as our search query: words of letters and digits (our search
 * matches words as prefixes; punctuation is no word).
 */
export function fromCdfEventSearch(body: CdfEventSearchRequest): string {
  if (body.filter !== undefined && Object.keys(body.filter).length > 0) refuse([{ field: 'filter', message: 'not supported on search: list with the filter instead' }]);
  const words = (body.search?.description ?? '').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  if (words.length === 0) refuse([{ field: 'search.description', message: 'needs a word of letters or digits' }]);
  return words.slice(0, 140).trim();
}

type Verb<T> = { set: T } | { setNull: boolean };

function scalar<T, U = T>(verb: Verb<T> | undefined, map: (value: T) => U = (v) => v as unknown as U): { set?: U; setNull?: boolean } | undefined {
  if (verb === undefined) return undefined;
  return 'set' in verb ? { set: map(verb.set) } : { setNull: verb.setNull };
}

function fromCdfEventUpdate(update: CdfEventUpdate, field: string, problems: FieldProblem[]): EventUpdateItem['update'] {
  if (update.endTime !== undefined && 'set' in update.endTime) problems.push({ field: `${field}.endTime`, message: 'not stored: events are instants (only setNull)', value: update.endTime.set });
  const out: EventUpdateItem['update'] = {};
  const put = <K extends keyof EventUpdateItem['update']>(key: K, value: EventUpdateItem['update'][K] | undefined) => { if (value !== undefined) out[key] = value; };
  put('externalId', scalar(update.externalId));
  put('eventTime', scalar(update.startTime, (ms) => new Date(ms).toISOString()));
  put('description', scalar(update.description));
  put('source', scalar(update.source));
  put('type', scalar(update.type));
  put('subType', scalar(update.subtype));
  put('dataSetId', scalar(update.dataSetId));
  if (update.metadata !== undefined) put('metadata', update.metadata);
  const assets = update.assetIds;
  if (assets !== undefined) {
    put('relatedResources', 'set' in assets ? { set: assets.set.map((id) => ({ id })) } : {
      ...(assets.add !== undefined ? { add: assets.add.map((id) => ({ id })) } : {}),
      ...(assets.remove !== undefined ? { remove: assets.remove.map((id) => ({ id })) } : {}),
    });
  }
  return out;
}

export function fromCdfEventUpdates(items: (NumberedIdentifier & { update: CdfEventUpdate })[]): NumberedUpdateItem[] {
  const problems: FieldProblem[] = [];
  const out = items.map((item, index): NumberedUpdateItem => {
    const update = fromCdfEventUpdate(item.update, `items.${index}.update`, problems);
    if (problems.length === 0) checkEventUpdate(update);
    return 'id' in item ? { id: item.id, update } : { externalId: item.externalId, update };
  });
  if (problems.length > 0) refuse(problems);
  return out;
}

const UNIQUE_VALUES_FIELDS: Readonly<Record<string, ValueCountField>> = { type: 'type', subtype: 'subType', dataSetId: 'dataSetId' };

/** The one field a uniqueValues aggregate counts (CDF requires it). */
export function uniqueValuesField(fields: CdfEventAggregateRequest['fields']): ValueCountField {
  const field = fields?.[0] !== undefined ? UNIQUE_VALUES_FIELDS[fields[0]] : undefined;
  if (field === undefined) refuse([{ field: 'fields', message: 'uniqueValues needs one of type, subtype, dataSetId' }]);
  return field;
}
