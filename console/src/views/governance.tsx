// Governance: the naming policies and their findings, filtered by state, each finding linked
// to the record it concerns.
import { useState } from 'preact/hooks';
import { apiGet, apiPost } from '../api.ts';
import { formatTime } from '../format.ts';
import type { Page, Policy, PolicyFinding, Resource, TimeSeries } from '../types.ts';
import { useApi } from '../use-api.ts';
import { ApiErrorAlert, Loading } from './api-error.tsx';

const POLICIES_MAX = 1000;
const FINDINGS_PAGE_SIZE = 100;

type StateFilter = '' | 'OPEN' | 'RESOLVED';

/** Where a finding's record opens: a resource's page or a series' chart, under its name. */
interface RecordLink { href: string; label: string }

/**
 * The records a page of findings concerns, by id: a policy targets resources or time series,
 * so both are asked for (each byids answers only its own kind, unknown ids omitted).
 */
async function recordLinks(findings: PolicyFinding[], signal: AbortSignal): Promise<Map<string, RecordLink>> {
  const items = [...new Set(findings.map((finding) => finding.nodeId))].map((id) => ({ id: Number(id) }));
  const links = new Map<string, RecordLink>();
  if (items.length === 0) return links;
  const [resources, series] = await Promise.all([
    apiPost<Page<Resource>>('/resources/byids', { items }, signal),
    apiPost<Page<TimeSeries>>('/timeseries/byids', { items }, signal),
  ]);
  for (const one of series.items) links.set(String(one.id), { href: `#/chart?ids=${one.id}`, label: one.name || one.externalId || String(one.id) });
  for (const one of resources.items) links.set(String(one.id), { href: `#/assets/${one.id}`, label: one.name || one.externalId || String(one.id) });
  return links;
}

export function GovernanceView() {
  const policies = useApi((signal) => apiGet<Page<Policy>>(`/policies?limit=${POLICIES_MAX}`, signal), []);
  const [state, setState] = useState<StateFilter>('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const findings = useApi((signal) => apiPost<Page<PolicyFinding>>('/policies/findings', {
    ...(state ? { filter: { state } } : {}), limit: FINDINGS_PAGE_SIZE, ...(cursor ? { cursor } : {}),
  }, signal), [state, cursor]);
  const links = useApi((signal) => recordLinks(findings.data?.items ?? [], signal), [findings.data]);

  return (
    <section>
      <h1>Governance</h1>
      <section>
        <h2>Policies</h2>
        <ApiErrorAlert message={policies.error} />
        {policies.loading && !policies.data && <Loading what="policies" />}
        {policies.data && (policies.data.items.length === 0 ? <p>No policies.</p> : (
          <table class="data-table">
            <thead><tr><th scope="col">External ID</th><th scope="col">Name</th><th scope="col">Target</th><th scope="col">Field</th><th scope="col">Pattern</th><th scope="col">Mode</th></tr></thead>
            <tbody>{policies.data.items.map((policy) => (
              <tr key={policy.id}><td>{policy.externalId}</td><td>{policy.name}</td><td>{policy.target}</td><td>{policy.field}</td><td><code>{policy.pattern}</code></td><td>{policy.mode}</td></tr>
            ))}</tbody>
          </table>
        ))}
      </section>
      <section>
        <h2>Findings</h2>
        <div class="toolbar">
          <label for="finding-state">State</label>
          <select id="finding-state" value={state} onChange={(e) => { setCursor(undefined); setState(e.currentTarget.value as StateFilter); }}>
            <option value="">All</option>
            <option value="OPEN">OPEN</option>
            <option value="RESOLVED">RESOLVED</option>
          </select>
        </div>
        <ApiErrorAlert message={findings.error} />
        {findings.loading && !findings.data && <Loading what="findings" />}
        {findings.data && (findings.data.items.length === 0 ? <p>No findings.</p> : (
          <table class="data-table">
            <thead><tr><th scope="col">State</th><th scope="col">Policy</th><th scope="col">Record</th><th scope="col">Offending value</th><th scope="col">Suggestion</th><th scope="col">Last change</th></tr></thead>
            <tbody>{findings.data.items.map((finding) => (
              <tr key={finding.externalId} data-testid="finding-row">
                <td><span class={`state state-${finding.state.toLowerCase()}`}>{finding.state}</span></td>
                <td>{finding.policyExternalId}</td>
                <td><FindingRecord nodeId={finding.nodeId} link={links.data?.get(finding.nodeId)} /></td>
                <td>{finding.offendingValue ?? ''}</td>
                <td>{finding.suggestion ?? ''}</td>
                <td>{formatTime(finding.lastEventTime)}</td>
              </tr>
            ))}</tbody>
          </table>
        ))}
        {findings.data?.nextCursor && <button type="button" onClick={() => setCursor(findings.data!.nextCursor)}>Next page</button>}
        {cursor && <button type="button" onClick={() => setCursor(undefined)}>First page</button>}
      </section>
    </section>
  );
}

/** The record's name linking to it; its id until the names arrive, or when it is gone or unreadable. */
function FindingRecord({ nodeId, link }: { nodeId: string; link: RecordLink | undefined }) {
  return link ? <a href={link.href}>{link.label}</a> : <a href={`#/assets/${encodeURIComponent(nodeId)}`}>{nodeId}</a>;
}
