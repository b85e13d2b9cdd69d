// Time series: search by text and terms (series-query.ts; on Enter and after typing pauses) or
// page through the whole list, pick series to plot, and open the chart.
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiPost, errorMessage } from '../api.ts';
import { displayName } from '../format.ts';
import { routeHash } from '../router.ts';
import { hasFilter, parseSeriesQuery } from '../series-query.ts';
import type { DataSetRef, Page, TimeSeries } from '../types.ts';
import { ApiErrorAlert, Loading } from './api-error.tsx';

const PAGE_SIZE = 100;
const SEARCH_PAUSE_MS = 300;

interface Listing { items: TimeSeries[]; nextCursor?: string }

/** Free words go to the ranked search (with the terms as its filter); terms alone page the filter. */
function fetchSeries(query: string, cursor: string | undefined, signal: AbortSignal): Promise<Listing> {
  const { text, filter } = parseSeriesQuery(query);
  const filtered = hasFilter(filter) ? { filter } : {};
  if (text) return apiPost<Page<TimeSeries>>('/timeseries/search', { search: { query: text }, ...filtered, limit: PAGE_SIZE }, signal);
  return apiPost<Page<TimeSeries>>('/timeseries/filter', { ...filtered, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }, signal);
}

function dataSetText(id: number | undefined, dataSets: 'all' | DataSetRef[] | undefined): string {
  if (id === undefined) return '';
  const known = Array.isArray(dataSets) ? dataSets.find((dataSet) => dataSet.id === id) : undefined;
  return known ? displayName(known) : String(id);
}

/** The chart of these series; `resources` (a resource page's) mark those resources' events. */
export function chartHash(ids: number[], resources: number[] = []): string {
  return routeHash(['chart'], { ids: ids.join(','), ...(resources.length > 0 ? { resources: resources.join(',') } : {}) });
}

export function TimeSeriesView({ dataSets }: { dataSets: 'all' | DataSetRef[] | undefined }) {
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checked, setChecked] = useState<Set<number>>(new Set());
  const pause = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    const controller = new AbortController();
    setError(null);
    fetchSeries(query, cursor, controller.signal).then(
      (page) => setListing(page),
      (failure: unknown) => { if (!controller.signal.aborted) { setListing(null); setError(errorMessage(failure)); } },
    );
    return () => controller.abort();
  }, [query, cursor]);

  const runSearch = (text: string) => {
    clearTimeout(pause.current);
    setCursor(undefined);
    setQuery(text.trim());
  };
  const onInput = (text: string) => {
    setTyped(text);
    clearTimeout(pause.current);
    pause.current = setTimeout(() => runSearch(text), SEARCH_PAUSE_MS);
  };
  const toggle = (id: number, on: boolean) => {
    const next = new Set(checked);
    if (on) next.add(id); else next.delete(id);
    setChecked(next);
  };

  return (
    <section>
      <h1>Time series</h1>
      <div class="toolbar">
        <label for="series-search">Search time series</label>
        <input id="series-search" type="search" value={typed} aria-describedby="series-search-hint"
          onInput={(e) => onInput(e.currentTarget.value)}
          onKeyDown={(e) => { if (e.key === 'Enter') runSearch(e.currentTarget.value); }} />
        <button type="button" disabled={checked.size === 0} onClick={() => { location.hash = chartHash([...checked]); }}>Open chart</button>
      </div>
      <p id="series-search-hint" class="hint">Words match name, external ID and description; narrow with <code>unit:bar</code>, <code>dataset:plant</code>, <code>label:site-3</code> or <code>meta:key=value</code>; quote values with spaces.</p>
      <ApiErrorAlert message={error} />
      {!listing && !error && <Loading what="time series" />}
      {listing && (
        <>
          <table class="data-table">
            <caption>{query ? `Time series matching “${query}”` : 'All time series'}</caption>
            <thead><tr><th scope="col">Plot</th><th scope="col">Name</th><th scope="col">External ID</th><th scope="col">Unit</th><th scope="col">Value type</th><th scope="col">Data set</th></tr></thead>
            <tbody>
              {listing.items.map((series) => (
                <tr key={series.id} data-testid="series-row">
                  <td><input type="checkbox" aria-label={`Plot ${displayName(series)}`} checked={checked.has(series.id)} onChange={(e) => toggle(series.id, e.currentTarget.checked)} /></td>
                  <td><a href={chartHash([series.id])}>{displayName(series)}</a></td>
                  <td>{series.externalId ?? ''}</td>
                  <td>{series.unit ?? series.unitExternalId ?? ''}</td>
                  <td>{series.valueType}</td>
                  <td>{dataSetText(series.dataSetId, dataSets)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {listing.items.length === 0 && <p>No time series found.</p>}
          {listing.nextCursor && <button type="button" onClick={() => setCursor(listing.nextCursor)}>Next page</button>}
          {cursor && <button type="button" onClick={() => setCursor(undefined)}>First page</button>}
        </>
      )}
    </section>
  );
}
