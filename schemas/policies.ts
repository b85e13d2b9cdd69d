// Naming policies, governance templates and policy findings (docs/api.md "Policies"; SPEC leaves
// the policy shape open).
import { Type, type Static } from '@sinclair/typebox';
import { CAPS, Description, EpochMs, Id, IdentifierSchema, Items, ItemsResponse, PageQuery, PagedResponse } from './common.ts';

/**
 * A policy's externalId is at most 128 characters, so that a finding's externalId
 * (`policy_finding_<policy externalId>_<node id>`) stays within an event externalId's 256.
 */
export const POLICY_EXTERNAL_ID_CHARS_MAX = 128;
export const POLICY_PATTERN_CHARS_MAX = 1_000;

const PolicyExternalId = Type.String({ minLength: 1, maxLength: POLICY_EXTERNAL_ID_CHARS_MAX, description: 'client-chosen key, unique among the tenant\'s policies' });
const Name = Type.String({ minLength: 1, maxLength: CAPS.nameCharsMax });
export const PolicyTarget = Type.Union([Type.Literal('resource'), Type.Literal('timeseries')], { description: 'the records the policy governs' });
export const PolicyField = Type.Union([Type.Literal('name'), Type.Literal('externalId'), Type.Literal('description')], { description: 'the field of those records it checks' });
export const PolicyMode = Type.Union([Type.Literal('advisory'), Type.Literal('enforce')], {
  description: '`advisory` (default): a non-conforming write goes through and is recorded as a policy_finding event. `enforce`: it is refused with 422 naming the field and the policy.',
});
export const PolicyPattern = Type.String({
  minLength: 1, maxLength: POLICY_PATTERN_CHARS_MAX,
  description: 'A JavaScript (ECMAScript, `u` flag) regular expression the WHOLE value must match (it is anchored as `^(?:pattern)$`). Refused with 400 when it does not compile or is open to catastrophic backtracking (checked with recheck). An absent field (a description never set) is checked as the empty string.',
});

export const Policy = Type.Object({
  id: Id,
  externalId: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  target: PolicyTarget,
  field: PolicyField,
  pattern: Type.String(),
  mode: PolicyMode,
  dataSetId: Type.Optional(Id),
  templateExternalId: Type.Optional(Type.String({ description: 'the governance template this policy was applied from' })),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A naming policy: `field` of every `target` record of the tenant (or of `dataSetId` and its descendants) must match `pattern`.' });
export type Policy = Static<typeof Policy>;

export const PolicyCreate = Type.Object({
  externalId: PolicyExternalId,
  name: Name,
  description: Type.Optional(Description),
  target: PolicyTarget,
  field: PolicyField,
  pattern: PolicyPattern,
  mode: Type.Optional(PolicyMode),
  dataSetId: Type.Optional(Id),
}, { additionalProperties: false });
export type PolicyCreate = Static<typeof PolicyCreate>;

export const PolicyCreateRequest = Items(PolicyCreate);
export const PolicyCollection = ItemsResponse(Policy);
export const PolicyPage = PagedResponse(Policy);

const Set = <T extends ReturnType<typeof Type.String> | typeof PolicyTarget | typeof PolicyField | typeof PolicyMode>(value: T) =>
  Type.Object({ set: value }, { additionalProperties: false });

export const PolicyUpdateItem = Type.Intersect([
  IdentifierSchema,
  Type.Object({
    update: Type.Object({
      externalId: Type.Optional(Set(PolicyExternalId)),
      name: Type.Optional(Set(Name)),
      description: Type.Optional(Type.Object({ set: Type.Optional(Description), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
      target: Type.Optional(Set(PolicyTarget)),
      field: Type.Optional(Set(PolicyField)),
      pattern: Type.Optional(Set(PolicyPattern)),
      mode: Type.Optional(Set(PolicyMode)),
      dataSetId: Type.Optional(Type.Object({ set: Type.Optional(Id), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    }, { additionalProperties: false }),
  }),
]);
export type PolicyUpdateItem = Static<typeof PolicyUpdateItem>;
export const PolicyUpdateRequest = Items(PolicyUpdateItem);

export const PolicyByIdsRequest = Type.Object({ items: Type.Array(IdentifierSchema, { minItems: 1, maxItems: CAPS.itemsPerRequestMax }) }, { additionalProperties: false });
export const PolicyDeleteRequest = PolicyByIdsRequest;

// ---- Governance templates ------------------------------------------------------------------

export const TemplatePolicy = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$', description: 'names the policy within the template; an applied policy\'s externalId is `<template externalId>_<key>_<data set id>`' }),
  name: Name,
  description: Type.Optional(Description),
  target: PolicyTarget,
  field: PolicyField,
  pattern: PolicyPattern,
  mode: Type.Optional(PolicyMode),
}, { additionalProperties: false });

const TemplateExternalId = Type.String({ minLength: 1, maxLength: 64, description: 'unique among the tenant\'s templates' });

export const GovernanceTemplate = Type.Object({
  externalId: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  policies: Type.Array(TemplatePolicy),
  createdTime: EpochMs,
  lastUpdatedTime: EpochMs,
}, { description: 'A named set of policies applied to a data set in one call.' });
export type GovernanceTemplate = Static<typeof GovernanceTemplate>;

export const GovernanceTemplateCreate = Type.Object({
  externalId: TemplateExternalId,
  name: Name,
  description: Type.Optional(Description),
  policies: Type.Array(TemplatePolicy, { minItems: 1, maxItems: 100 }),
}, { additionalProperties: false });
export type GovernanceTemplateCreate = Static<typeof GovernanceTemplateCreate>;

export const GovernanceTemplateCreateRequest = Items(GovernanceTemplateCreate, 100);
export const GovernanceTemplateCollection = ItemsResponse(GovernanceTemplate);
export const GovernanceTemplateDeleteRequest = Items(Type.Object({ externalId: TemplateExternalId }, { additionalProperties: false }), 100);

export const GovernanceTemplateApplyRequest = Type.Object({
  templateExternalId: TemplateExternalId,
  dataSetId: Type.Optional(Id),
  dataSetExternalId: Type.Optional(Type.String({ minLength: 1, maxLength: CAPS.externalIdCharsMax })),
}, { additionalProperties: false, description: 'one of dataSetId or dataSetExternalId' });
export type GovernanceTemplateApplyRequest = Static<typeof GovernanceTemplateApplyRequest>;

// ---- Findings ------------------------------------------------------------------------------

export const FindingState = Type.Union([Type.Literal('OPEN'), Type.Literal('RESOLVED')]);

export const PolicyFindingsRequest = Type.Object({
  filter: Type.Optional(Type.Object({
    policyExternalId: Type.Optional(Type.String({ minLength: 1, maxLength: POLICY_EXTERNAL_ID_CHARS_MAX })),
    state: Type.Optional(FindingState),
    dataSetIds: Type.Optional(Type.Array(Type.Object({ id: Id }, { additionalProperties: false }), { maxItems: 100, description: 'the data sets and their descendants' })),
    nodeId: Type.Optional(Type.Union([Id, Type.String({ pattern: '^[0-9]{1,19}$' })], { description: 'the record concerned (a number, or a JSON string as findings answer it)' })),
  }, { additionalProperties: false })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000, default: 100 })),
  cursor: Type.Optional(Type.String()),
}, { additionalProperties: false });
export type PolicyFindingsRequest = Static<typeof PolicyFindingsRequest>;

export const PolicyFinding = Type.Object({
  externalId: Type.String({ description: 'the finding: `policy_finding_<policy externalId>_<node id>`' }),
  policyExternalId: Type.String(),
  nodeId: Type.String({ description: 'the record concerned (a JSON string, as event related ids are)' }),
  state: FindingState,
  offendingValue: Type.Optional(Type.String()),
  suggestion: Type.Optional(Type.String()),
  dataSetId: Type.Optional(Type.String()),
  lastEventId: Type.String(),
  lastEventTime: EpochMs,
  description: Type.Optional(Type.String()),
}, { description: 'A finding\'s current state: the last of its events by eventTime (ties by id), folded from the whole stream.' });
export type PolicyFinding = Static<typeof PolicyFinding>;
export const PolicyFindingsPage = PagedResponse(PolicyFinding);

/** GET /policies. */
export const PolicyListQuery = PageQuery(1000, 100);
