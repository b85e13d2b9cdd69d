// Test fixture: the official @cognite/sdk client pointed at a test server, as a CDF user
// configures it (appId, project, baseUrl, oidcTokenProvider), for one tenant and its grants.
// @cognite/sdk 10.5's declarations re-export through extensionless paths ('./src/index'), which
// NodeNext resolution cannot follow inside an ES module package, so the type checker sees no
// exports; the runtime module is whole. Tests hold the client as CdfClient (any).
// @ts-expect-error TS2305: see above
import { CogniteClient } from '@cognite/sdk';
import type { TestServer } from '../../testing/test-server.ts';

export interface CdfClientOptions {
  org: string;
  /** The project in the URL; the token's organization unless a test asks for another. */
  project?: string;
  read?: (number | string)[];
  write?: (number | string)[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CdfClient = any;

export function cdfClient(srv: TestServer, opts: CdfClientOptions): CdfClient {
  const token = srv.token({ org: opts.org, read: opts.read, write: opts.write });
  return new CogniteClient({ appId: 'plantdata-tests', project: opts.project ?? opts.org, baseUrl: srv.url, oidcTokenProvider: async () => token });
}

/** What an SDK call threw, as status and CDF error body fields (undefined when it did not throw). */
export async function sdkFailure(call: Promise<unknown>): Promise<{ status: number; message?: string; missing?: unknown[]; duplicated?: unknown[] } | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    const e = error as { status?: number; errorMessage?: string; message?: string; missing?: unknown[]; duplicated?: unknown[] };
    return { status: e.status ?? -1, message: e.errorMessage ?? e.message, missing: e.missing, duplicated: e.duplicated };
  }
}
