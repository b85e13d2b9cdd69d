// Policy routes (docs/api.md "Policies"; SPEC names /policies/create and /policies/delete and
// leaves the shapes open): naming policies, governance templates and
// the folded state of policy findings.
import { Type } from '@sinclair/typebox';
import {
  GovernanceTemplateApplyRequest, GovernanceTemplateCollection, GovernanceTemplateCreateRequest, GovernanceTemplateDeleteRequest, PolicyByIdsRequest,
  PolicyCollection, PolicyCreateRequest, PolicyDeleteRequest, PolicyFindingsPage, PolicyFindingsRequest, PolicyListQuery, PolicyPage, PolicyUpdateRequest,
} from '../schemas/policies.ts';
import type { PolicyEngine } from '../engine/policies/policy-engine.ts';
import { jsonRoute, noContent, ok, queryRoute, type Route } from './route.ts';

const TAG = 'Policies';
const LIST_LIMIT_MAX = 1_000;

export function policyRoutes(policies: PolicyEngine): Route[] {
  return [
    jsonRoute({
      method: 'post', path: '/policies/create', operationId: 'createPolicies', tag: TAG,
      summary: 'Create naming policies (all-or-nothing)',
      description: 'A naming policy requires `field` of every `target` record of the tenant (or of `dataSetId` and its descendants) to match `pattern` as a whole. Evaluated on every resource and time series create and update, in the same transaction: `enforce` refuses a non-conforming write with 422 naming the field and the policy; `advisory` (the default) lets it through and appends a `policy_finding` event (SPEC "Policy finding"). Existing records are not re-evaluated when a policy is created. Policies count as nodes for the daily quota and as objects for the ceiling.',
      body: PolicyCreateRequest,
      responses: {
        201: { description: 'created', schema: PolicyCollection },
        400: { description: 'a pattern that does not compile or is open to catastrophic backtracking; unknown dataSetId' },
        403: { description: 'no write grant on a dataSetId' }, 409: { description: 'DuplicateError listing `duplicated` externalIds' }, 422: { description: 'field caps' },
      },
      handle: async ({ access, body }) => ok({ items: await policies.create(access, body.items) }, 201),
    }),
    queryRoute({
      method: 'get', path: '/policies', operationId: 'listPolicies', tag: TAG,
      summary: 'List readable policies by id',
      query: PolicyListQuery,
      responses: { 200: { description: 'a page', schema: PolicyPage }, 400: { description: 'bad limit or cursor' } },
      handle: async ({ access, query }) => ok(await policies.list(access, { limit: query.limit, cursor: query.cursor })),
    }),
    jsonRoute({
      method: 'post', path: '/policies/list', operationId: 'listPoliciesPost', tag: TAG,
      summary: 'List readable policies by id (POST form)',
      body: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX })), cursor: Type.Optional(Type.String()) }, { additionalProperties: false }),
      responses: { 200: { description: 'a page', schema: PolicyPage }, 400: { description: 'bad limit or cursor' } },
      handle: async ({ access, body }) => ok(await policies.list(access, body)),
    }),
    jsonRoute({
      method: 'post', path: '/policies/byids', operationId: 'policiesByIds', tag: TAG,
      summary: 'Retrieve policies by id or externalId; misses and unreadable ones omitted',
      body: PolicyByIdsRequest,
      responses: { 200: { description: 'found policies, in request order', schema: PolicyCollection } },
      handle: async ({ access, body }) => ok({ items: await policies.byIds(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/policies/update', operationId: 'updatePolicies', tag: TAG,
      summary: 'Update policies (all-or-nothing)',
      description: '`set` on every field; `setNull` on `description` and `dataSetId`. A changed pattern is checked as at create. Records are not re-evaluated.',
      body: PolicyUpdateRequest,
      responses: {
        200: { description: 'after update', schema: PolicyCollection }, 400: { description: 'not found, bad pattern, `set` with `setNull`' },
        403: { description: 'no write grant' }, 409: { description: 'DuplicateError (externalId taken) or ConflictError (a concurrent change)' },
      },
      handle: async ({ access, body }) => ok({ items: await policies.update(access, body.items) }),
    }),
    ...(['post', 'delete'] as const).map((method) => jsonRoute({
      method, path: '/policies/delete', operationId: method === 'post' ? 'deletePolicies' : 'deletePoliciesWithDelete', tag: TAG,
      summary: 'Delete policies (idempotent); their findings stay in the event log',
      description: 'Unknown identifiers are skipped. Answers 204 (SPEC also lists a 200 with a policy collection; this service does not use it).',
      body: PolicyDeleteRequest,
      responses: { 204: { description: 'deleted' }, 403: { description: 'no write grant' }, 409: { description: 'ConflictError: a concurrent change holds a policy; nothing removed' } },
      async handle({ access, body }) {
        await policies.delete(access, body.items);
        return noContent();
      },
    })),
    jsonRoute({
      method: 'post', path: '/policies/templates/create', operationId: 'createGovernanceTemplates', tag: TAG,
      summary: 'Create governance templates: named sets of policies applied to a data set in one call',
      description: 'Each entry is a policy without `externalId` and `dataSetId`, named by a `key`. Tenant-wide configuration: needs write access to every data set.',
      body: GovernanceTemplateCreateRequest,
      responses: { 201: { description: 'created', schema: GovernanceTemplateCollection }, 400: { description: 'bad pattern, repeated key' }, 403: { description: 'not a tenant-wide writer' }, 409: { description: 'DuplicateError' } },
      handle: async ({ access, body }) => ok({ items: await policies.createTemplates(access, body.items) }, 201),
    }),
    {
      method: 'get', path: '/policies/templates', operationId: 'listGovernanceTemplates', tag: TAG,
      summary: 'List the tenant\'s governance templates',
      responses: { 200: { description: 'every template', schema: GovernanceTemplateCollection } },
      handle: async ({ access }) => ok({ items: await policies.listTemplates(access) }),
    },
    jsonRoute({
      method: 'post', path: '/policies/templates/delete', operationId: 'deleteGovernanceTemplates', tag: TAG,
      summary: 'Delete governance templates (idempotent); policies applied from them stay',
      body: GovernanceTemplateDeleteRequest,
      responses: { 204: { description: 'deleted' }, 403: { description: 'not a tenant-wide writer' } },
      async handle({ access, body }) {
        await policies.deleteTemplates(access, body.items.map((i) => i.externalId));
        return noContent();
      },
    }),
    jsonRoute({
      method: 'post', path: '/policies/templates/apply', operationId: 'applyGovernanceTemplate', tag: TAG,
      summary: 'Apply a governance template to a data set (idempotent)',
      description: 'Creates one policy per template entry, scoped to the data set and its descendants, with externalId `<template externalId>_<key>_<data set id>`; entries already applied there are returned unchanged. Needs write access to the data set.',
      body: GovernanceTemplateApplyRequest,
      responses: { 200: { description: 'the template\'s policies on the data set', schema: PolicyCollection }, 400: { description: 'unknown template or data set' }, 403: { description: 'no write grant on the data set' } },
      handle: async ({ access, body }) => ok({ items: await policies.applyTemplate(access, body) }),
    }),
    jsonRoute({
      method: 'post', path: '/policies/findings', operationId: 'policyFindings', tag: TAG,
      summary: 'The current state of each policy finding, folded server-side',
      description: 'Folds the whole policy_finding event stream as SPEC\'s lifecycle says: events grouped by externalId, the last by eventTime (ties by event id) gives the state (RESOLVED when it asserts RESOLVED, else OPEN). Filter by `policyExternalId`, `state` (of the folded finding, never of single events) and `dataSetIds` (with descendants); ordered by finding externalId, cursor paging, `limit` default 100, max 1,000. Findings of unreadable data sets are omitted. Charged as a write by SPEC\'s rule (its last path segment is not a read word).',
      body: PolicyFindingsRequest,
      responses: { 200: { description: 'a page of findings', schema: PolicyFindingsPage }, 400: { description: 'bad cursor' } },
      handle: async ({ access, body }) => ok(await policies.findings(access, body)),
    }),
  ];
}
