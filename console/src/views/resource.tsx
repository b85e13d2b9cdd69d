// A resource's page: its time series, events, edges out and in (typed, the other end linked)
// and its policy findings.
import { apiGet, apiPost, ApiError } from '../api.ts';
import { displayName, formatTime } from '../format.ts';
import type { EdgePage, GraphNode, Page, PlantEvent, PolicyFinding, Resource } from '../types.ts';
import { useApi } from '../use-api.ts';
import { ApiErrorAlert, Loading } from './api-error.tsx';
import { chartHash } from './timeseries.tsx';

const EDGES_MAX = 1000;
const EVENTS_MAX = 100;
const FINDINGS_MAX = 1000;

function nodeLink(node: GraphNode | undefined, id: number) {
  const name = node ? displayName(node) : String(id);
  if (node?.kind === 'timeseries') return <a href={chartHash([id])}>{name}</a>;
  if (node?.kind === 'dataset') return <span>{name} (data set)</span>;
  return <a href={`#/assets/${id}`}>{name}</a>;
}

/** Findings of one node; a service without the nodeId filter gets it applied here instead. */
async function fetchFindings(id: number, signal: AbortSignal): Promise<PolicyFinding[]> {
  try {
    return (await apiPost<Page<PolicyFinding>>('/policies/findings', { filter: { nodeId: id }, limit: FINDINGS_MAX }, signal)).items;
  } catch (failure) {
    if (!(failure instanceof ApiError) || failure.status !== 400) throw failure;
    const page = await apiPost<Page<PolicyFinding>>('/policies/findings', { limit: FINDINGS_MAX }, signal);
    return page.items.filter((finding) => finding.nodeId === String(id));
  }
}

function EdgeList({ page, otherEnd }: { page: EdgePage; otherEnd: 'start' | 'end' }) {
  const nodes = new Map((page.nodes ?? []).map((node) => [node.id, node]));
  if (page.items.length === 0) return <p>None.</p>;
  return (
    <table class="data-table">
      <thead><tr><th scope="col">Type</th><th scope="col">{otherEnd === 'end' ? 'To' : 'From'}</th></tr></thead>
      <tbody>
        {page.items.map((edge) => (
          <tr key={edge.id}><td>{edge.type}</td><td>{nodeLink(nodes.get(edge[otherEnd]), edge[otherEnd])}</td></tr>
        ))}
      </tbody>
    </table>
  );
}

export function ResourceView({ id: idText }: { id: string }) {
  const id = Number(idText);
  const resource = useApi((signal) => apiGet<Resource>(`/resources/${encodeURIComponent(idText)}`, signal), [idText]);
  const edgesOut = useApi((signal) => apiPost<EdgePage>('/edges/filter', { filter: { startId: id }, limit: EDGES_MAX }, signal), [idText]);
  const edgesIn = useApi((signal) => apiPost<EdgePage>('/edges/filter', { filter: { endId: id }, limit: EDGES_MAX }, signal), [idText]);
  const events = useApi((signal) => apiPost<Page<PlantEvent>>('/events/filter', { filter: { relatedResources: [{ id }] }, limit: EVENTS_MAX }, signal), [idText]);
  const findings = useApi((signal) => fetchFindings(id, signal), [idText]);

  const seriesNodes = (edgesOut.data?.nodes ?? []).filter((node) => node.kind === 'timeseries'
    && edgesOut.data!.items.some((edge) => edge.end === node.id));

  return (
    <article data-testid="resource-page">
      <h1>{resource.data ? displayName(resource.data) : `Resource ${idText}`}</h1>
      <ApiErrorAlert message={resource.error} />
      {resource.data && (
        <dl class="fields">
          {resource.data.externalId && <><dt>External ID</dt><dd>{resource.data.externalId}</dd></>}
          {resource.data.description && <><dt>Description</dt><dd>{resource.data.description}</dd></>}
          {resource.data.dataSetId !== undefined && <><dt>Data set</dt><dd>{String(resource.data.dataSetId)}</dd></>}
          {Object.entries(resource.data.metadata ?? {}).map(([key, value]) => <div key={key}><dt>{key}</dt><dd>{String(value)}</dd></div>)}
        </dl>
      )}
      <section>
        <h2>Time series</h2>
        <ApiErrorAlert message={edgesOut.error} />
        {edgesOut.data && (seriesNodes.length === 0 ? <p>None.</p> : (
          <>
            <ul>{seriesNodes.map((node) => <li key={node.id}><a href={chartHash([node.id], [id])}>{displayName(node)}</a></li>)}</ul>
            {seriesNodes.length > 1 && <a href={chartHash(seriesNodes.map((node) => node.id), [id])}>Plot all together</a>}
          </>
        ))}
      </section>
      <section>
        <h2>Events</h2>
        <ApiErrorAlert message={events.error} />
        {events.loading && !events.data && <Loading what="events" />}
        {events.data && (events.data.items.length === 0 ? <p>None.</p> : (
          <table class="data-table">
            <thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Subtype</th><th scope="col">Description</th></tr></thead>
            <tbody>{events.data.items.map((event) => (
              <tr key={event.id}><td>{formatTime(event.eventTime)}</td><td>{event.type ?? ''}</td><td>{event.subType ?? ''}</td><td>{event.description ?? ''}</td></tr>
            ))}</tbody>
          </table>
        ))}
      </section>
      <section>
        <h2>Edges out</h2>
        <ApiErrorAlert message={edgesOut.error} />
        {edgesOut.data && <EdgeList page={edgesOut.data} otherEnd="end" />}
      </section>
      <section>
        <h2>Edges in</h2>
        <ApiErrorAlert message={edgesIn.error} />
        {edgesIn.data && <EdgeList page={edgesIn.data} otherEnd="start" />}
      </section>
      <section>
        <h2>Policy findings</h2>
        <ApiErrorAlert message={findings.error} />
        {findings.data && (findings.data.length === 0 ? <p>None.</p> : (
          <table class="data-table">
            <thead><tr><th scope="col">State</th><th scope="col">Policy</th><th scope="col">Offending value</th><th scope="col">Suggestion</th></tr></thead>
            <tbody>{findings.data.map((finding) => (
              <tr key={finding.externalId}><td>{finding.state}</td><td>{finding.policyExternalId}</td><td>{finding.offendingValue ?? ''}</td><td>{finding.suggestion ?? ''}</td></tr>
            ))}</tbody>
          </table>
        ))}
      </section>
    </article>
  );
}
