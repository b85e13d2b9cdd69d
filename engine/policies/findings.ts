// The current state of each policy finding (beyond SPEC): folded server-side from
// the whole policy_finding stream exactly as SPEC's lifecycle rules say, so clients need not
// page the raw stream and fold it themselves. Paged by finding externalId.
import type { PolicyFinding, PolicyFindingsRequest } from '../../schemas/policies.ts';
import { BadRequestError } from '../errors.ts';
import { readableIds, type Access } from '../grants/access.ts';
import { DESCENDANT_DATA_SETS } from '../grants/access.sql.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import type { Queryable } from '../stores/queryable.ts';
import { findingPrefix } from './policy-evaluation.ts';
import { FOLDED_FINDINGS } from './findings.sql.ts';

interface FoldedRow {
  external_id: string;
  id: string;
  status: string | null;
  event_time: number;
  data_set_id: number | null;
  metadata: Record<string, string>;
  related_resources: { id: number; externalId: string }[];
  description: string | null;
}

const FINDING = /^policy_finding_(.+)_([0-9]+)$/s;
const cursors = cursorCodec('policy-findings', 1, (s: unknown): s is string => typeof s === 'string' && s.length <= 300 && !s.includes('\u0000'));

function toFinding(r: FoldedRow): PolicyFinding {
  const [, policy = '', node = ''] = FINDING.exec(r.external_id) ?? [];
  return {
    externalId: r.external_id, policyExternalId: policy, nodeId: node,
    // A finding's state is what its last event asserts; anything but RESOLVED is still open.
    state: r.status === 'RESOLVED' ? 'RESOLVED' : 'OPEN',
    lastEventId: r.id, lastEventTime: r.event_time,
    ...(r.metadata['offendingValue'] !== undefined ? { offendingValue: r.metadata['offendingValue'] } : {}),
    ...(r.metadata['suggestion'] !== undefined ? { suggestion: r.metadata['suggestion'] } : {}),
    ...(r.data_set_id !== null ? { dataSetId: String(r.data_set_id) } : {}),
    ...(r.description !== null ? { description: r.description } : {}),
  };
}

export async function listFindings(db: Queryable, access: Access, request: PolicyFindingsRequest & { limit: number }): Promise<{ items: PolicyFinding[]; nextCursor?: string }> {
  let after: string | null = null;
  if (request.cursor !== undefined) {
    const decoded = cursors.decode(request.cursor);
    if (!decoded.ok) throw new BadRequestError('Invalid cursor: send back a nextCursor of this list', [{ field: 'cursor', message: 'not a cursor of this list' }]);
    after = decoded.state;
  }
  const filter = request.filter ?? {};
  let dataSets: number[] | null = null;
  if (filter.dataSetIds !== undefined) {
    const { rows } = await db.query<{ id: number }>(DESCENDANT_DATA_SETS, [access.tenant, filter.dataSetIds.map((d) => d.id), []]);
    dataSets = rows.map((r) => r.id);
  }
  const prefix = filter.policyExternalId !== undefined ? findingPrefix(filter.policyExternalId) : null;
  const { rows } = await db.query<FoldedRow>(FOLDED_FINDINGS, [access.tenant, after, prefix, filter.state ?? null, readableIds(access), dataSets, request.limit + 1, filter.nodeId !== undefined ? String(filter.nodeId) : null]);
  const page = rows.slice(0, request.limit);
  const last = page[page.length - 1];
  return { items: page.map(toFinding), ...(rows.length > request.limit && last ? { nextCursor: cursors.encode(last.external_id) } : {}) };
}
