// Sign-in: paste an access token, or (when the dev identity provider has clients, per
// /console/config.json) exchange client credentials at /oauth/token. The token is checked with
// /token/inspect before the shell opens, so a bad one shows its reason here.
import { useEffect, useState } from 'preact/hooks';
import { apiGet, errorMessage } from '../api.ts';
import { describeApiFailure } from '../api-error-message.ts';
import { signIn, signOut } from '../auth.ts';
import type { TokenInspection } from '../types.ts';

async function fetchOauthEnabled(): Promise<boolean> {
  try {
    const response = await fetch('/console/config.json');
    if (!response.ok) return false;
    const config = (await response.json()) as { oauth?: unknown };
    return config.oauth === true;
  } catch {
    return false;
  }
}

async function tokenFromClientCredentials(clientId: string, clientSecret: string): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  const response = await fetch('/oauth/token', { method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  const text = await response.text();
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  if (!response.ok) {
    throw new Error(describeApiFailure({ status: response.status, body: parsed, retryAfterHeader: response.headers.get('Retry-After'), receivedAtMs: Date.now() }));
  }
  const token = (parsed as { access_token?: unknown } | undefined)?.access_token;
  if (typeof token !== 'string' || token === '') throw new Error('The identity provider answered without an access token');
  return token;
}

/** Keeps the token only when the service accepts it; a refusal signs out with its reason. */
async function signInChecked(token: string): Promise<void> {
  signIn(token);
  try {
    await apiGet<TokenInspection>('/token/inspect');
  } catch (error) {
    signOut(errorMessage(error));
  }
}

export function SignIn({ reason }: { reason: string | null }) {
  const [token, setToken] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [oauth, setOauth] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => { void fetchOauthEnabled().then(setOauth); }, []);
  const shown = failure ?? reason;

  const submitToken = async () => {
    if (!token.trim()) { setFailure('Enter an access token'); return; }
    await signInChecked(token.trim());
  };
  const submitClient = async () => {
    try {
      await signInChecked(await tokenFromClientCredentials(clientId, clientSecret));
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  // One form, two ways in: Enter in the client fields means the client credentials.
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const submitter = event.submitter as HTMLButtonElement | null;
    const byClient = submitter?.value === 'client' || (oauth && !token.trim() && clientId.trim() !== '');
    setBusy(true); setFailure(null);
    await (byClient ? submitClient() : submitToken());
    setBusy(false);
  };

  return (
    <main class="sign-in">
      <h1>PlantData console</h1>
      <form aria-label="Sign in" onSubmit={onSubmit}>
        {shown && <p role="alert" class="api-error">{shown}</p>}
        <label for="access-token">Access token</label>
        <input id="access-token" type="password" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        <button type="submit" value="token" disabled={busy}>Sign in</button>
        {oauth && (
          <fieldset>
            <legend>Or, with the development identity provider</legend>
            <label for="client-id">Client ID</label>
            <input id="client-id" autocomplete="off" value={clientId} onInput={(e) => setClientId(e.currentTarget.value)} />
            <label for="client-secret">Client secret</label>
            <input id="client-secret" type="password" autocomplete="off" value={clientSecret} onInput={(e) => setClientSecret(e.currentTarget.value)} />
            <button type="submit" value="client" disabled={busy}>Sign in with client credentials</button>
          </fieldset>
        )}
      </form>
    </main>
  );
}
