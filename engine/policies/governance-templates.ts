// Governance templates: a named set of policies that one call applies to a data set.
// Applying creates one policy per template entry, scoped to that data set (and so to its
// descendants), with externalId `<template externalId>_<key>_<data set id>`. Applying again
// is idempotent: entries already applied there are returned as they are, missing ones are
// created. Templates are tenant-wide configuration: any token of the tenant may read them;
// creating and deleting them needs write access to every data set (an admin's grant), and
// applying one needs write access to the target data set.
import type { GovernanceTemplate, GovernanceTemplateApplyRequest, GovernanceTemplateCreate, Policy } from '../../schemas/policies.ts';
import { BadRequestError, DuplicateError, ForbiddenError } from '../errors.ts';
import { assertCanWrite, canRead, type Access } from '../grants/access.ts';
import { lookupNodes } from '../meta/node-lookup.ts';
import type { RelationalStore } from '../stores/relational.ts';
import { DELETE_TEMPLATES, APPLIED_POLICIES, INSERT_TEMPLATES, LIST_TEMPLATES, TAKEN_TEMPLATES, TEMPLATE_BY_EXTERNAL_ID } from './governance-templates.sql.ts';
import { namingPatternProblem } from './naming-pattern.ts';
import { insertPolicies, toPolicy, type PolicyRow } from './policies.ts';

interface TemplateRow {
  external_id: string;
  name: string;
  description: string | null;
  policies: GovernanceTemplate['policies'];
  created_time: number;
  last_updated_time: number;
}

function toTemplate(r: TemplateRow): GovernanceTemplate {
  return {
    externalId: r.external_id, name: r.name, policies: r.policies, createdTime: r.created_time, lastUpdatedTime: r.last_updated_time,
    ...(r.description !== null ? { description: r.description } : {}),
  };
}

function assertTenantAdmin(access: Access, what: string): void {
  if (access.writable !== null) throw new ForbiddenError(`Governance templates are tenant-wide: ${what} needs write access to every data set`);
}

export async function createTemplates(store: RelationalStore, access: Access, items: GovernanceTemplateCreate[], now = Date.now()): Promise<GovernanceTemplate[]> {
  assertTenantAdmin(access, 'creating a template');
  const problems = items.flatMap((item, index) => {
    const keys = new Set<string>();
    return item.policies.flatMap((p, k) => {
      const field = `items.${index}.policies.${k}`;
      const out = [];
      if (keys.has(p.key)) out.push({ field: `${field}.key`, index, message: 'repeated key in one template', value: p.key });
      keys.add(p.key);
      const problem = namingPatternProblem(p.pattern);
      if (problem) out.push({ field: `${field}.pattern`, index, message: `the pattern ${problem}`, value: p.pattern });
      return out;
    });
  });
  if (problems.length > 0) throw new BadRequestError(`Invalid template: ${problems.map((p) => `${p.field}: ${p.message}`).slice(0, 3).join('; ')}`, problems);
  return store.transaction(async (tx) => {
    const externalIds = items.map((i) => i.externalId);
    const seen = new Set<string>();
    const repeated = externalIds.filter((e) => (seen.has(e) ? true : (seen.add(e), false)));
    const { rows: taken } = await tx.query<{ external_id: string }>(TAKEN_TEMPLATES, [access.tenant, externalIds]);
    const duplicated = [...new Set([...taken.map((r) => r.external_id), ...repeated])];
    if (duplicated.length > 0) throw new DuplicateError(duplicated.map((externalId) => ({ externalId })));
    const { rows } = await tx.query<TemplateRow>(INSERT_TEMPLATES, [
      access.tenant, externalIds, items.map((i) => i.name), items.map((i) => i.description ?? null), items.map((i) => JSON.stringify(i.policies)), now,
    ]);
    const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
    return items.map((i) => toTemplate(byExternalId.get(i.externalId) as TemplateRow));
  });
}

export async function listTemplates(store: RelationalStore, access: Access): Promise<GovernanceTemplate[]> {
  return (await store.pool.query<TemplateRow>(LIST_TEMPLATES, [access.tenant])).rows.map(toTemplate);
}

/** Idempotent; the policies applied from a template stay (delete them as policies). */
export async function deleteTemplates(store: RelationalStore, access: Access, externalIds: string[]): Promise<void> {
  assertTenantAdmin(access, 'deleting a template');
  await store.pool.query(DELETE_TEMPLATES, [access.tenant, externalIds]);
}

/** `charge` is called with the number of policies to create, before they are (the node quota). */
export async function applyTemplate(store: RelationalStore, access: Access, request: GovernanceTemplateApplyRequest, now: number, charge: (count: number) => Promise<void>): Promise<Policy[]> {
  const { dataSetId, dataSetExternalId } = request;
  if ((dataSetId === undefined) === (dataSetExternalId === undefined)) {
    throw new BadRequestError('Give exactly one of dataSetId and dataSetExternalId', [{ field: 'dataSetId', message: 'exactly one of dataSetId and dataSetExternalId' }]);
  }
  return store.transaction(async (tx) => {
    const { rows: [template] } = await tx.query<TemplateRow>(TEMPLATE_BY_EXTERNAL_ID, [access.tenant, request.templateExternalId]);
    if (!template) throw new BadRequestError(`No governance template "${request.templateExternalId}"`, [{ field: 'templateExternalId', message: 'no such template', value: request.templateExternalId }]);
    const [found] = await lookupNodes(tx, access.tenant, 'dataset', [dataSetId !== undefined ? { id: dataSetId } : { externalId: dataSetExternalId as string }]);
    const dataSet = found?.row && canRead(access, found.row.id) ? found.row : undefined;
    if (!dataSet) throw new BadRequestError('Unknown data set', [{ field: dataSetId !== undefined ? 'dataSetId' : 'dataSetExternalId', message: 'no such data set', value: dataSetId ?? dataSetExternalId }]);
    assertCanWrite(access, [dataSet.id], 'applying a governance template');
    const { rows: applied } = await tx.query<PolicyRow>(APPLIED_POLICIES, [access.tenant, template.external_id, dataSet.id]);
    const have = new Set(applied.map((r) => r.external_id));
    const externalIdOf = (key: string) => `${template.external_id}_${key}_${dataSet.id}`;
    const missing = template.policies.filter((p) => !have.has(externalIdOf(p.key)));
    if (missing.length > 0) await charge(missing.length);
    const created = missing.length === 0 ? [] : await insertPolicies(tx, access, missing.map((p) => ({
      externalId: externalIdOf(p.key), name: p.name, ...(p.description !== undefined ? { description: p.description } : {}),
      target: p.target, field: p.field, pattern: p.pattern, mode: p.mode ?? 'advisory', dataSetId: dataSet.id, templateExternalId: template.external_id,
    })), now);
    const byExternalId = new Map([...applied.map(toPolicy), ...created].map((p) => [p.externalId, p]));
    return template.policies.flatMap((p) => byExternalId.get(externalIdOf(p.key)) ?? []);
  });
}
