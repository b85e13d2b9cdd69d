// Naming policies evaluated on every resource and time series create and update, inside the
// write's transaction: an `enforce` policy refuses a non-conforming write (422
// naming the field and the policy, nothing written); an `advisory` one lets it through and
// appends a policy_finding raise event in the same transaction, encoded exactly as SPEC's
// "Policy finding" table says. The raise's id is derived from what it asserts (policy, node,
// offending value), so writing the same non-conforming value again collapses onto the stored
// raise, a finding a steward resolved stays resolved, and only a different value reopens it.
// Nothing is updated in place. Findings are raised for resources and time series only.
import { createHash } from 'node:crypto';
import type { Policy } from '../../schemas/policies.ts';
import { UnprocessableError, type FieldProblem } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import { compileNamingPattern } from './naming-pattern.ts';
import { POLICIES_OF_TARGET } from './policies.sql.ts';
import { toPolicy, type PolicyRow } from './policies.ts';
import { DATA_SET_ANCESTORS } from './policy-evaluation.sql.ts';

/** A record as written, with the path of its item in the request (`items.3`, `nodes.0`). */
export interface GovernedRecord {
  id: number;
  externalId: string;
  name: string;
  description: string | null;
  dataSetId: number | null;
  path: string;
  /**
   * On update, the fields the update wrote: only policies on those are evaluated, so a record
   * that predates a policy can still be updated elsewhere (and renaming it is what fixes it).
   * Absent on create: every policy of the target applies.
   */
  changed?: ReadonlySet<Policy['field']>;
}

/**
 * The governed fields an update writes, for GovernedRecord.changed: those it names, or all of
 * them when it moves the record to another data set (the policies that apply change with it).
 */
export function governedFieldsWritten(update: Partial<Record<Policy['field'] | 'dataSetId', unknown>>): ReadonlySet<Policy['field']> {
  const fields = ['name', 'externalId', 'description'] as const satisfies readonly Policy['field'][];
  return new Set(update.dataSetId !== undefined ? fields : fields.filter((field) => update[field] !== undefined));
}

/** A policy_finding event, in the event log's own terms. */
export interface FindingEvent {
  id: string;
  externalId: string;
  type: 'policy_finding';
  subType: string;
  source: string;
  status: 'OPEN' | 'RESOLVED';
  description: string;
  eventTime: number;
  dataSetId: number | null;
  relatedResources: { id: number; externalId: string }[];
  metadata: Record<string, string>;
}

/** Appends events idempotently by id inside the caller's transaction (the event log's seam). */
export type AppendFindingEvents = (tx: Queryable, tenant: string, events: FindingEvent[]) => Promise<void>;

export const FINDING_TYPE = 'policy_finding';
/** Who raised a finding evaluated on a write: the service (a steward's resolve names its own). */
export const RAISED_BY_SERVICE = 'service';
const SOURCE_CHARS_MAX = 128;
const DESCRIPTION_CHARS_MAX = 10_000;
const METADATA_VALUE_CHARS_MAX = 1_024;
/** A fixed namespace for the name-based (v5) ids of raise events. */
const FINDING_ID_NAMESPACE = Buffer.from('6f1c0a52b7e44a8f9d3e2c51a0b7f4d1', 'hex');

/** Every finding of one policy has an externalId starting so (then the node id). */
export function findingPrefix(policyExternalId: string): string {
  return `policy_finding_${policyExternalId}_`;
}

/** SPEC "Policy finding": the finding's externalId, shared by all its events. */
export function findingExternalId(policyExternalId: string, nodeId: number): string {
  return `${findingPrefix(policyExternalId)}${nodeId}`;
}

/** SPEC "Policy finding": the source, cut to 128 characters. */
export function findingSource(policyExternalId: string): string {
  return `service_policy_${policyExternalId}`.slice(0, SOURCE_CHARS_MAX);
}

/** A UUID v5 (RFC 9562, SHA-1, name-based) of what a raise asserts. */
export function raiseEventId(tenant: string, policyExternalId: string, nodeId: number, value: string): string {
  const hash = createHash('sha1').update(FINDING_ID_NAMESPACE).update(JSON.stringify([tenant, policyExternalId, nodeId, value])).digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A conforming value close to `value`, when a simple rewrite gives one. */
export function suggestValue(value: string, matches: (candidate: string) => boolean): string | undefined {
  const trimmed = value.trim();
  const words = trimmed.split(/[\s_-]+/u).filter(Boolean);
  const candidates = [
    trimmed, trimmed.toUpperCase(), trimmed.toLowerCase(),
    words.join('-'), words.join('_'), words.join('-').toUpperCase(), words.join('_').toUpperCase(), words.join('-').toLowerCase(), words.join('_').toLowerCase(),
    words.join(''), words.join('').toUpperCase(), words.join('').toLowerCase(),
  ];
  return candidates.find((c) => c !== value && c.length > 0 && matches(c));
}

const fieldValue = (record: GovernedRecord, field: Policy['field']): string =>
  field === 'name' ? record.name : field === 'externalId' ? record.externalId : record.description ?? '';

export interface PolicyEvaluator {
  /**
   * Checks `records` of `target` against the tenant's policies in the write's transaction:
   * throws UnprocessableError naming every enforce violation; appends a raise for every
   * advisory one.
   */
  evaluate(tx: Queryable, tenant: string, target: Policy['target'], records: readonly GovernedRecord[], now?: number): Promise<void>;
}

export function createPolicyEvaluator(appendFindings: AppendFindingEvents): PolicyEvaluator {
  /** Compiled patterns by source: a policy's pattern is checked safe when it is stored. */
  const compiled = new Map<string, RegExp>();
  const compile = (pattern: string) => {
    let re = compiled.get(pattern);
    if (!re) {
      if (compiled.size > 10_000) compiled.clear();
      re = compileNamingPattern(pattern);
      compiled.set(pattern, re);
    }
    return re;
  };
  return {
    async evaluate(tx, tenant, target, records, now = Date.now()) {
      if (records.length === 0) return;
      const { rows } = await tx.query<PolicyRow>(POLICIES_OF_TARGET, [tenant, target]);
      if (rows.length === 0) return;
      const policies = rows.map(toPolicy);
      const scoped = policies.some((p) => p.dataSetId !== undefined);
      // Each record's data set and every data set above it: a policy on a data set covers its descendants.
      const above = new Map<number, Set<number>>();
      if (scoped) {
        const dataSets = [...new Set(records.flatMap((r) => (r.dataSetId !== null ? [r.dataSetId] : [])))];
        if (dataSets.length > 0) {
          const { rows: pairs } = await tx.query<{ origin: number; id: number }>(DATA_SET_ANCESTORS, [tenant, dataSets]);
          for (const { origin, id } of pairs) {
            const set = above.get(origin) ?? new Set<number>();
            set.add(id);
            above.set(origin, set);
          }
        }
      }
      const refused: FieldProblem[] = [];
      const findings: FindingEvent[] = [];
      for (const [index, record] of records.entries()) {
        for (const policy of policies) {
          if (record.changed && !record.changed.has(policy.field)) continue;
          if (policy.dataSetId !== undefined && !(record.dataSetId !== null && above.get(record.dataSetId)?.has(policy.dataSetId))) continue;
          const pattern = compile(policy.pattern);
          const value = fieldValue(record, policy.field);
          if (pattern.test(value)) continue;
          if (policy.mode === 'enforce') {
            refused.push({ field: `${record.path}.${policy.field}`, index, message: `does not match the naming policy "${policy.externalId}" (pattern ${policy.pattern})`, value, policy: policy.externalId });
            continue;
          }
          const suggestion = suggestValue(value, (c) => pattern.test(c));
          findings.push({
            id: raiseEventId(tenant, policy.externalId, record.id, value),
            externalId: findingExternalId(policy.externalId, record.id),
            type: FINDING_TYPE,
            subType: policy.externalId,
            source: findingSource(policy.externalId),
            status: 'OPEN',
            description: `The ${policy.field} "${value}" of ${target} ${record.externalId} does not match the naming policy "${policy.name}" (${policy.externalId}): pattern ${policy.pattern}.${suggestion !== undefined ? ` Suggested: "${suggestion}".` : ''}`.slice(0, DESCRIPTION_CHARS_MAX),
            eventTime: now,
            dataSetId: record.dataSetId,
            relatedResources: [{ id: record.id, externalId: record.externalId }],
            metadata: {
              offendingValue: value.slice(0, METADATA_VALUE_CHARS_MAX),
              ...(suggestion !== undefined && suggestion.length <= METADATA_VALUE_CHARS_MAX ? { suggestion } : {}),
              raisedBy: RAISED_BY_SERVICE,
            },
          });
        }
      }
      if (refused.length > 0) {
        throw new UnprocessableError(`The write breaks ${refused.length === 1 ? 'a naming policy' : `${refused.length} naming policies`}: ${refused.slice(0, 3).map((p) => `${p.field} ${p.message}`).join('; ')}`, refused);
      }
      if (findings.length > 0) await appendFindings(tx, tenant, findings);
    },
  };
}
