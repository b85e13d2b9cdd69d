// The access token's lifetime in the page: kept in sessionStorage only (never localStorage or
// a cookie), taken from a `#token=` fragment once, and dropped with a reason the sign-in view
// shows. Views learn about sign-in and sign-out through subscribe().

const TOKEN_KEY = 'plantdata.token';

export interface AuthState { token: string | null; reason: string | null }

let state: AuthState = { token: readStoredToken(), reason: null };
const listeners = new Set<(state: AuthState) => void>();

function readStoredToken(): string | null {
  try { return sessionStorage.getItem(TOKEN_KEY); } catch { return null; }
}

function publish(next: AuthState): void {
  state = next;
  for (const listener of listeners) listener(state);
}

export function authState(): AuthState { return state; }
export function currentToken(): string | null { return state.token; }

export function subscribeAuth(listener: (state: AuthState) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signIn(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
  publish({ token, reason: null });
}

/** Drops the token; reason (for example why the server refused it) is shown on sign-in. */
export function signOut(reason: string | null = null): void {
  sessionStorage.removeItem(TOKEN_KEY);
  if (state.token === null && reason === null) return;
  publish({ token: null, reason });
}

/**
 * Signs in from `#token=<jwt>` and removes the fragment at once (history.replaceState), so
 * the token never stays in the address bar, the history or a bookmark.
 */
export function takeTokenFromFragment(): void {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (!match) return;
  history.replaceState(null, '', `${location.pathname}${location.search}#/timeseries`);
  const token = decodeURIComponent(match[1]!);
  if (token) signIn(token);
}
