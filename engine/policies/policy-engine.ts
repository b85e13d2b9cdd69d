// The policy use cases (docs/api.md "Policies") bound to PostgreSQL:
// naming policies, governance templates and the folded state of policy findings. Creating a
// policy charges the tenant's node quota (SPEC counts policies among nodes and objects).
import type {
  GovernanceTemplate, GovernanceTemplateApplyRequest, GovernanceTemplateCreate, Policy, PolicyCreate, PolicyFinding, PolicyFindingsRequest, PolicyUpdateItem,
} from '../../schemas/policies.ts';
import type { Identifier } from '../errors.ts';
import type { Access } from '../grants/access.ts';
import { listFindings } from './findings.ts';
import { applyTemplate, createTemplates, deleteTemplates, listTemplates } from './governance-templates.ts';
import { createPolicies, deletePolicies, listPolicies, policiesByIds, updatePolicies } from './policies.ts';
import type { Quotas } from '../quotas/quotas.ts';
import type { RelationalStore } from '../stores/relational.ts';

/** Page size of policy lists and findings without a `limit`. */
export const POLICY_LIST_LIMIT_DEFAULT = 100;

export interface PolicyEngine {
  create(access: Access, items: PolicyCreate[]): Promise<Policy[]>;
  list(access: Access, query: { limit?: number; cursor?: string }): Promise<{ items: Policy[]; nextCursor?: string }>;
  /** Misses and unreadable policies are omitted. */
  byIds(access: Access, identifiers: Identifier[]): Promise<Policy[]>;
  update(access: Access, items: PolicyUpdateItem[]): Promise<Policy[]>;
  /** Idempotent. */
  delete(access: Access, identifiers: Identifier[]): Promise<void>;
  createTemplates(access: Access, items: GovernanceTemplateCreate[]): Promise<GovernanceTemplate[]>;
  listTemplates(access: Access): Promise<GovernanceTemplate[]>;
  deleteTemplates(access: Access, externalIds: string[]): Promise<void>;
  /** The template's policies on the data set, created where missing. */
  applyTemplate(access: Access, request: GovernanceTemplateApplyRequest): Promise<Policy[]>;
  /** Each finding's current state, folded from its whole event stream. */
  findings(access: Access, request: PolicyFindingsRequest): Promise<{ items: PolicyFinding[]; nextCursor?: string }>;
}

export function bindPolicyEngine(relational: RelationalStore, quotas: Quotas): PolicyEngine {
  const db = relational.pool;
  return {
    async create(access, items) {
      await quotas.chargeNodes(access.tenant, items.length);
      return createPolicies(relational, access, items);
    },
    list: (access, { limit, cursor }) => listPolicies(db, access, limit ?? POLICY_LIST_LIMIT_DEFAULT, cursor),
    byIds: (access, identifiers) => policiesByIds(db, access, identifiers),
    update: (access, items) => updatePolicies(relational, access, items),
    delete: (access, identifiers) => deletePolicies(relational, access, identifiers),
    createTemplates: (access, items) => createTemplates(relational, access, items),
    listTemplates: (access) => listTemplates(relational, access),
    deleteTemplates: (access, externalIds) => deleteTemplates(relational, access, externalIds),
    async applyTemplate(access, request) {
      return applyTemplate(relational, access, request, Date.now(), (count) => quotas.chargeNodes(access.tenant, count));
    },
    findings: (access, request) => listFindings(db, access, { ...request, limit: request.limit ?? POLICY_LIST_LIMIT_DEFAULT }),
  };
}
