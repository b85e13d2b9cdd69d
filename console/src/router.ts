// Hash routes (#/timeseries, #/chart?ids=1,2, #/assets/7, #/files/a/b): parseRoute is pure;
// useRoute re-renders on hashchange. Hash routing keeps the service's static serving trivial.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path segments after '#/', each percent-decoded. */
  segments: string[];
  params: URLSearchParams;
  /**
   * Counts hash changes: a view that rewrites its own address with replaceState (the chart's
   * range) is told by it that the address was navigated to again, even to the same text.
   */
  navigation?: number;
}

export function parseRoute(hash: string): Route {
  const body = hash.replace(/^#\/?/, '');
  const queryAt = body.indexOf('?');
  const path = queryAt === -1 ? body : body.slice(0, queryAt);
  const query = queryAt === -1 ? '' : body.slice(queryAt + 1);
  const segments = path.split('/').filter((segment) => segment !== '').map(safeDecode);
  return { segments, params: new URLSearchParams(query) };
}

function safeDecode(segment: string): string {
  try { return decodeURIComponent(segment); } catch { return segment; }
}

/** A hash for path segments, each encoded, plus query parameters. */
export function routeHash(segments: string[], params?: Record<string, string>): string {
  const path = segments.map(encodeURIComponent).join('/');
  // Commas stay readable (`ids=1,2`): they are legal in a fragment, and links use that form.
  const query = params ? new URLSearchParams(params).toString().replace(/%2C/gi, ',') : '';
  return `#/${path}${query ? `?${query}` : ''}`;
}

export function useRoute(): Route {
  const [state, setState] = useState({ hash: location.hash, navigation: 0 });
  useEffect(() => {
    const onChange = () => setState((previous) => ({ hash: location.hash, navigation: previous.navigation + 1 }));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return { ...parseRoute(state.hash), navigation: state.navigation };
}
