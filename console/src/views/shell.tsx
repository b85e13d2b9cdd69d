// The signed-in frame: who is signed in (/token/inspect), the data sets they can read, Sign
// out, the main navigation, and the view the hash route names.
import { useEffect } from 'preact/hooks';
import { apiGet } from '../api.ts';
import { signOut } from '../auth.ts';
import { useRoute } from '../router.ts';
import type { TokenInspection } from '../types.ts';
import { useApi } from '../use-api.ts';
import { ApiErrorAlert } from './api-error.tsx';
import { AssetsView } from './assets.tsx';
import { ChartView } from './chart.tsx';
import { FilesView } from './files.tsx';
import { GovernanceView } from './governance.tsx';
import { ResourceView } from './resource.tsx';
import { TimeSeriesView } from './timeseries.tsx';

/** setTimeout takes at most 2^31-1 ms; a later expiry is re-checked when the page reloads. */
const TIMER_MS_MAX = 2_147_483_647;

const NAV_LINKS = [
  { hash: '#/timeseries', label: 'Time series', section: 'timeseries' },
  { hash: '#/assets', label: 'Assets', section: 'assets' },
  { hash: '#/governance', label: 'Governance', section: 'governance' },
  { hash: '#/files', label: 'Files', section: 'files' },
];

function readableDataSets(identity: TokenInspection): string {
  const read = identity.datasets?.read;
  if (read === 'all') return 'All data sets';
  if (!read || read.length === 0) return 'No data sets';
  return read.map((dataSet) => dataSet.name || dataSet.externalId || String(dataSet.id)).join(', ');
}

function useSignOutAtExpiry(expiresAt: number | undefined): void {
  useEffect(() => {
    if (expiresAt === undefined) return;
    const delayMs = expiresAt - Date.now();
    if (delayMs > TIMER_MS_MAX) return;
    const timer = setTimeout(() => signOut('Your access token expired; sign in again'), Math.max(0, delayMs));
    return () => clearTimeout(timer);
  }, [expiresAt]);
}

export function Shell() {
  const route = useRoute();
  const identity = useApi((signal) => apiGet<TokenInspection>('/token/inspect', signal), []);
  useSignOutAtExpiry(identity.data?.expiresAt);
  const section = route.segments[0] ?? 'timeseries';
  const activeSection = section === 'chart' ? 'timeseries' : section;

  return (
    <div class="shell">
      <header class="shell-header">
        <span class="brand">PlantData</span>
        <span data-testid="identity" class="identity">
          {identity.data ? `${identity.data.subject} · ${identity.data.organization}` : identity.loading ? 'Signing in…' : 'Unknown identity'}
        </span>
        <span data-testid="readable-datasets" class="datasets" title="Data sets you can read">
          {identity.data ? readableDataSets(identity.data) : ''}
        </span>
        <button type="button" onClick={() => signOut()}>Sign out</button>
      </header>
      <nav aria-label="Main" class="main-nav">
        <ul>
          {NAV_LINKS.map((link) => (
            <li key={link.hash}>
              <a href={link.hash} aria-current={link.section === activeSection ? 'page' : undefined}>{link.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        <ApiErrorAlert message={identity.error} />
        <RouteView segments={route.segments} params={route.params} navigation={route.navigation ?? 0} dataSets={identity.data?.datasets.read} />
      </main>
    </div>
  );
}

function RouteView({ segments, params, navigation, dataSets }: { segments: string[]; params: URLSearchParams; navigation: number; dataSets: TokenInspection['datasets']['read'] | undefined }) {
  const [section, ...rest] = segments;
  switch (section) {
    case undefined:
    case 'timeseries': return <TimeSeriesView dataSets={dataSets} />;
    case 'chart': return <ChartView key={params.get('ids') ?? ''} params={params} navigation={navigation} />;
    case 'assets': return rest[0] ? <ResourceView key={rest[0]} id={rest[0]} /> : <AssetsView />;
    case 'governance': return <GovernanceView />;
    case 'files': return <FilesView key={rest.join('/')} folderSegments={rest} />;
    default: return <><h1>Not found</h1><p>No view is called {section}. <a href="#/timeseries">Go to time series</a>.</p></>;
  }
}
