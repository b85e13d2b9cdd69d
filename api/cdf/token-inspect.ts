// GET /api/v1/token/inspect in CDF's shape: the token's subject, its one project (the
// organization) and the capabilities its data set grants give, one ACL per CDF resource type
// this service serves. A grant on every data set is CDF's `all` scope; a list of data sets is
// its `datasetScope`. Reads and writes are separate capabilities, since their scopes may differ.
import { Type } from '@sinclair/typebox';
import type { Access } from '../../engine/grants/access.ts';
import { ok, type Route } from '../route.ts';

/** The ACLs of the resource types served under the CDF surface. */
const ACLS = ['timeSeriesAcl', 'eventsAcl', 'assetsAcl', 'relationshipsAcl', 'datasetsAcl', 'labelsAcl'] as const;

type Scope = { all: Record<string, never> } | { datasetScope: { ids: number[] } };

function scopeOf(ids: ReadonlySet<number> | null): Scope {
  return ids === null ? { all: {} } : { datasetScope: { ids: [...ids].sort((a, b) => a - b) } };
}

export function cdfCapabilities(access: Access): Record<string, unknown>[] {
  const projectScope = { projects: [access.tenant] };
  const out: Record<string, unknown>[] = [];
  for (const acl of ACLS) {
    out.push({ [acl]: { actions: ['READ'], scope: scopeOf(access.readable) }, projectScope });
    out.push({ [acl]: { actions: ['WRITE'], scope: scopeOf(access.writable) }, projectScope });
  }
  return out;
}

const TokenInspection = Type.Object({
  subject: Type.String(),
  projects: Type.Array(Type.Object({ projectUrlName: Type.String(), groups: Type.Array(Type.Integer()) })),
  capabilities: Type.Array(Type.Record(Type.String(), Type.Unknown())),
}, { description: 'CDF token inspection: the subject, the one project (the token\'s organization), and the capabilities its data set grants give.' });

export function tokenInspectRoutes(): Route[] {
  return [{
    method: 'get', path: '/api/v1/token/inspect', operationId: 'cdfInspectToken', tag: 'CDF Token',
    summary: 'Inspect the calling token (CDF shape)',
    errorForm: 'cdf',
    responses: { 200: { description: 'the token\'s subject, project and capabilities', schema: TokenInspection }, 401: { description: 'no or bad token' } },
    handle: async ({ caller, access }) => ok({
      subject: caller.sub,
      projects: [{ projectUrlName: caller.tenant, groups: [] }],
      capabilities: cdfCapabilities(access),
    }),
  }];
}
