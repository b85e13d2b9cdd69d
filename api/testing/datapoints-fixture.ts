// Test fixture for the data point API tests: a server whose rate limits and daily quotas do
// not get in the way (those have their own tests), series creation, and a raw read that pages
// through a whole range so tests can compare what is stored with what they wrote.
import type { Test } from 'tap';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { DatapointLatestResponse, DatapointListResponse } from '../../schemas/datapoints.ts';
import { schemaCheckedRequest, type CheckedRequest } from './response-schema.ts';
import { startTestServer, type TestServer } from './test-server.ts';

/** SERVICE_CONFIG for tests that send many requests: policy limits far above what they use. */
export const ROOMY_POLICY = {
  rateLimits: {
    organization: { writesPerMinute: 1_000_000, readsPerMinute: 1_000_000 },
    user: { writesPerMinute: 1_000_000, readsPerMinute: 1_000_000 },
  },
  dailyQuotas: { datapoints: 1_000_000_000, ingestedBytes: 64 * 1024 * 1024 * 1024 },
};

export interface DatapointTestServer extends TestServer {
  call: CheckedRequest;
}

export async function startDatapointServer(env: Record<string, string> = {}): Promise<DatapointTestServer> {
  const srv = await startTestServer({ serviceConfig: ROOMY_POLICY, env });
  return Object.assign(srv, { call: schemaCheckedRequest(srv) });
}

export interface SeriesSpec {
  externalId: string;
  valueType: string;
  dataSetId?: number;
}

/** Creates the series and returns their ids by externalId. */
export async function createSeries(srv: TestServer, token: string, specs: SeriesSpec[]): Promise<Record<string, number>> {
  const res = await srv.request('POST', '/timeseries/create', { token, body: { items: specs.map((s) => ({ name: s.externalId, ...s })) } });
  if (res.status !== 201) throw new Error(`creating series: ${res.status} ${res.text}`);
  return Object.fromEntries((res.body.items as { externalId: string; id: number }[]).map((i) => [i.externalId, i.id]));
}

export interface Point {
  timestamp: number;
  value: string;
}

export type SeriesIdentifier = { id: number } | { externalId: string };

/** Every raw point of a series in [start, end), paging with nextCursor (limit per page). */
export async function readAllPoints(t: Test, call: CheckedRequest, token: string, identifier: SeriesIdentifier, start = -2_208_988_800_000, end = 4_102_444_800_000, limit = 100_000): Promise<Point[]> {
  const out: Point[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page++) {
    const res = await call(t, 'POST', '/timeseries/data/list', { token, body: { items: [{ ...identifier, start, end, limit, ...(cursor ? { cursor } : {}) }] } });
    if (res.status !== 200) throw new Error(`reading points: ${res.status} ${res.text}`);
    const item = res.body.items[0] as { datapoints: Point[]; nextCursor?: string };
    out.push(...item.datapoints);
    cursor = item.nextCursor;
    if (!cursor) return out;
  }
  throw new Error('reading points: more than 1000 pages');
}

export { pollUntil } from '../../engine/testing/poll-until.ts';

const LIST_RESPONSE = TypeCompiler.Compile(DatapointListResponse);
const LATEST_RESPONSE = TypeCompiler.Compile(DatapointLatestResponse);

/**
 * For services in a child process, where the route table is not at hand: a 200 body of
 * /timeseries/data/list or /latest against the response schema the route declares.
 */
export function assertDatapointResponse(t: Test, route: 'list' | 'latest', body: unknown): void {
  const check = route === 'list' ? LIST_RESPONSE : LATEST_RESPONSE;
  t.strictSame([...check.Errors(body)].slice(0, 5).map((e) => `${e.path} ${e.message}`), [], `${route} 200 matches its response schema`);
}
