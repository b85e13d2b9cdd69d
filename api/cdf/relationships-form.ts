// CDF's relationship form ↔ our edges (SPEC "Edge (relationship)"): pure translation, no rule.
// An asset is a resource, a timeSeries a time series; one label is the edge's relationship
// type (upper-cased, as /edges/create does), none the default type. What edges cannot carry is
// a 400 naming the field (docs/cdf.md "Relationships"): files, events and sequences as ends,
// startTime, endTime, confidence, dataSetId (an edge's data sets are its ends'), several
// labels, and the filters and options without a counterpart.
import type { CdfRelationship, CdfRelationshipCreate, CdfRelationshipFilter, CdfRelationshipListRequest } from '../../schemas/cdf/relationships.ts';
import type { RelationshipCreate, RelationshipEndKind, RelationshipFilter, RelationshipRecord } from '../../engine/graph/relationship-engine.ts';
import type { NodeKind } from '../../engine/meta/node-lookup.ts';
import { BadRequestError, type FieldProblem } from '../../engine/errors.ts';
import { RelationCreate } from '../../schemas/edges.ts';
import { Type } from '@sinclair/typebox';
import { compileValidator } from '../validation.ts';
import { CDF_LIST_LIMIT_DEFAULT } from './events-form.ts';

// The edges a translation gives the engine meet SPEC's schema (the type name's cap included).
const checkRelations = compileValidator(Type.Object({ items: Type.Array(RelationCreate) }), 'relationships (as stored)');

/** The edge type of a relationship created without a label. */
export const DEFAULT_RELATIONSHIP_TYPE = 'RELATED_TO';

const KIND_OF_TYPE: Readonly<Record<string, RelationshipEndKind>> = { asset: 'resource', timeSeries: 'timeseries' };
const TYPE_OF_KIND: Readonly<Record<NodeKind, string>> = { resource: 'asset', timeseries: 'timeSeries', dataset: 'dataSet' };

function refuse(problems: FieldProblem[]): never {
  throw new BadRequestError(problems.map((p) => `${p.field}: ${p.message}`).slice(0, 5).join('; '), problems);
}

const unsupported = (field: string, why: string): FieldProblem => ({ field, message: `not supported: ${why}` });

export function toCdfRelationship({ externalId, edge, source, target }: RelationshipRecord): CdfRelationship {
  return {
    externalId,
    sourceExternalId: source.externalId,
    sourceType: TYPE_OF_KIND[source.kind],
    targetExternalId: target.externalId,
    targetType: TYPE_OF_KIND[target.kind],
    labels: edge.type === DEFAULT_RELATIONSHIP_TYPE ? [] : [{ externalId: edge.type }],
    createdTime: edge.createdTime,
    lastUpdatedTime: edge.lastUpdatedTime,
  };
}

export function fromCdfRelationshipCreates(items: CdfRelationshipCreate[]): RelationshipCreate[] {
  const problems: FieldProblem[] = [];
  const out = items.map((item, index): RelationshipCreate => {
    const at = `items.${index}`;
    const sourceKind = KIND_OF_TYPE[item.sourceType];
    const targetKind = KIND_OF_TYPE[item.targetType];
    if (!sourceKind) problems.push({ field: `${at}.sourceType`, index, message: 'not supported: edges join assets and time series', value: item.sourceType });
    if (!targetKind) problems.push({ field: `${at}.targetType`, index, message: 'not supported: edges join assets and time series', value: item.targetType });
    for (const key of ['startTime', 'endTime', 'confidence'] as const) {
      if (item[key] !== undefined) problems.push({ field: `${at}.${key}`, index, message: 'not stored: edges have no time span or confidence', value: item[key] });
    }
    if (item.dataSetId !== undefined) problems.push({ field: `${at}.dataSetId`, index, message: 'not stored: an edge belongs to the data sets of its ends', value: item.dataSetId });
    if ((item.labels?.length ?? 0) > 1) problems.push({ field: `${at}.labels`, index, message: 'one label at most: it is the edge\'s relationship type' });
    return {
      externalId: item.externalId,
      source: { externalId: item.sourceExternalId, kind: sourceKind ?? 'resource' },
      target: { externalId: item.targetExternalId, kind: targetKind ?? 'resource' },
      type: (item.labels?.[0]?.externalId ?? DEFAULT_RELATIONSHIP_TYPE).toUpperCase(),
    };
  });
  if (problems.length > 0) refuse(problems);
  checkRelations({ items: out.map((r) => ({ fromExternalId: r.source.externalId, toExternalId: r.target.externalId, relationshipType: r.type })) });
  return out;
}

/** The node kinds of CDF types; a type no edge joins (file, event, sequence) drops out, so a list of only those matches nothing. */
function kinds(types: string[] | undefined): NodeKind[] | undefined {
  return types?.flatMap((t) => { const kind = KIND_OF_TYPE[t]; return kind ? [kind] : []; });
}

export function fromCdfRelationshipFilter(filter: CdfRelationshipFilter | undefined): RelationshipFilter | undefined {
  if (!filter) return undefined;
  const problems: FieldProblem[] = [];
  for (const key of ['dataSetIds', 'startTime', 'endTime', 'confidence', 'activeAtTime', 'sourcesOrTargets'] as const) {
    if (filter[key] !== undefined) problems.push(unsupported(`filter.${key}`, 'edges do not carry it'));
  }
  const labels = filter.labels === undefined ? undefined : 'containsAll' in filter.labels ? filter.labels.containsAll : filter.labels.containsAny;
  if (filter.labels !== undefined && 'containsAll' in filter.labels && filter.labels.containsAll.length > 1) {
    problems.push(unsupported('filter.labels.containsAll', 'an edge has one label (its type)'));
  }
  if (problems.length > 0) refuse(problems);
  const out: RelationshipFilter = {};
  if (filter.sourceExternalIds !== undefined) out.sourceExternalIds = filter.sourceExternalIds;
  if (filter.targetExternalIds !== undefined) out.targetExternalIds = filter.targetExternalIds;
  const sourceKinds = kinds(filter.sourceTypes);
  const targetKinds = kinds(filter.targetTypes);
  if (sourceKinds !== undefined) out.sourceKinds = sourceKinds;
  if (targetKinds !== undefined) out.targetKinds = targetKinds;
  if (labels !== undefined) out.types = labels.map((l) => l.externalId.toUpperCase());
  if (filter.createdTime !== undefined) out.createdTime = filter.createdTime;
  if (filter.lastUpdatedTime !== undefined) out.lastUpdatedTime = filter.lastUpdatedTime;
  return out;
}

/** fetchResources: the ends' records are not fetched here. */
export function refuseFetchResources(fetchResources: boolean | undefined): void {
  if (fetchResources === true) refuse([unsupported('fetchResources', 'read the ends with assets.retrieve / timeseries.retrieve')]);
}

export function fromCdfRelationshipList(body: CdfRelationshipListRequest): { filter?: RelationshipFilter; limit: number; cursor?: string } {
  refuseFetchResources(body.fetchResources);
  if (body.partition !== undefined) refuse([unsupported('partition', 'page with the cursor')]);
  const filter = fromCdfRelationshipFilter(body.filter);
  return { ...(filter !== undefined ? { filter } : {}), limit: body.limit ?? CDF_LIST_LIMIT_DEFAULT, ...(body.cursor !== undefined ? { cursor: body.cursor } : {}) };
}
