// Goal: query parameters are typed like bodies: each value read by its schema's type (plain
// decimal integers, `true`/`false`), defaults filled in, unknown parameters ignored, a refused
// value a 400 naming the parameter with its value; and /openapi.json lists every query
// parameter of every operation with its schema. Method: compileQuery on a schema, one line per
// case through check(); then the real server: its /openapi.json against the routes' query
// schemas, and bad values on GET routes answered 400 naming the parameter.
import t from 'tap';
import { Type } from '@sinclair/typebox';
import { BadRequestError } from '../engine/errors.ts';
import { compileQuery, queryParameters } from './query-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const SCHEMA = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  recursive: Type.Boolean({ default: false }),
  id: Type.Optional(Type.Integer({ minimum: 0, maximum: 9007199254740991 })),
  q: Type.String({ minLength: 1 }),
  cursor: Type.Optional(Type.String()),
});
const read = compileQuery(SCHEMA);

function check(query: string, expected: Record<string, unknown> | { field: string; message: string }): void {
  let got: unknown;
  try {
    got = read(new URLSearchParams(query));
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    got = { field: error.fields[0]?.field, message: error.message };
  }
  t.strictSame(got, expected, `?${query}`);
}

check('q=x', { limit: 100, recursive: false, q: 'x' });
check('q=x&limit=1&recursive=true&id=0&cursor=c', { limit: 1, recursive: true, id: 0, q: 'x', cursor: 'c' });
check('q=x&limit=1000&recursive=false', { limit: 1000, recursive: false, q: 'x' });
check('q=x&limit=5&limit=abc', { limit: 5, recursive: false, q: 'x' });
check('q=x&unknown=1&=2', { limit: 100, recursive: false, q: 'x' });
check('q=%20', { limit: 100, recursive: false, q: ' ' });
check('q=x&id=9007199254740991', { limit: 100, recursive: false, id: 9007199254740991, q: 'x' });
for (const bad of ['0', '1001', '-1', 'A', '', ' 5', '+5', '1e3', '0x10', '1.0', '05', '-0', 'NaN', 'Infinity']) {
  check(`q=x&limit=${encodeURIComponent(bad)}`, { field: 'limit', message: `Query parameter limit must be an integer from 1 to 1000, got "${bad}"` });
}
check(`q=x&limit=${'9'.repeat(50)}`, { field: 'limit', message: `Query parameter limit must be an integer from 1 to 1000, got "${'9'.repeat(40)}…"` });
check('q=x&id=9007199254740992', { field: 'id', message: 'Query parameter id must be an integer from 0 to 9007199254740991, got "9007199254740992"' });
for (const bad of ['yes', 'TRUE', '1', '']) check(`q=x&recursive=${bad}`, { field: 'recursive', message: `Query parameter recursive must be true or false, got "${bad}"` });
check('limit=1', { field: 'q', message: 'Query parameter q is required' });
check('q=', { field: 'q', message: 'Query parameter q must be a string of at least 1 character, got ""' });

t.strictSame(queryParameters(SCHEMA).map((p) => [p['name'], p['in'], p['required']]), [
  ['limit', 'query', false], ['recursive', 'query', false], ['id', 'query', false], ['q', 'query', true], ['cursor', 'query', false],
], 'one `in: query` parameter per property; required only without a default');
t.strictSame(queryParameters(SCHEMA)[0]?.['schema'], { minimum: 1, maximum: 1000, default: 100, type: 'integer' }, 'the property schema as JSON');

t.test('the server: /openapi.json lists every query parameter; a bad one is a 400 naming it', async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const doc = (await srv.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { parameters: { name: string; in: string; schema: unknown }[] }>> };
  let routesWithQuery = 0;
  for (const route of srv.server.routes) {
    const listed = doc.paths[route.path]?.[route.method]?.parameters.filter((p) => p.in === 'query') ?? [];
    const declared = Object.entries(route.query?.properties ?? {});
    if (declared.length > 0) routesWithQuery++;
    t.strictSame(listed.map((p) => [p.name, p.schema]), declared.map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema))]), `${route.method} ${route.path}: its query parameters with their schemas`);
  }
  t.ok(routesWithQuery >= 10, `query schemas declared (${routesWithQuery} routes)`);
  const list = doc.paths['/timeseries']?.['get']?.parameters.map((p) => p.name);
  t.strictSame(list, ['limit', 'dataSetId', 'cursor'], 'GET /timeseries: limit, dataSetId, cursor');

  const token = srv.token({ org: srv.newTenant() });
  for (const [url, field] of [['/datasets?limit=0', 'limit'], ['/subscriptions?limit=x', 'limit'], ['/policies?limit=1001', 'limit'], ['/events/list/types?limit=1.5', 'limit'], ['/events/search/type', 'q']]) {
    const res = await srv.request('GET', url as string, { token });
    t.equal(res.status, 400, `GET ${url}: 400`);
    t.equal(res.body.error?.type, 'BadRequestError', `GET ${url}: BadRequestError`);
    t.equal(res.body.error?.fields?.[0]?.field, field, `GET ${url}: names ${field}`);
  }
  const plain = await srv.request('GET', '/timeseries?dataSetId=x', { token });
  t.equal(plain.status, 400, 'GET /timeseries?dataSetId=x: 400');
  t.equal(plain.text, 'Query parameter dataSetId must be an integer from 0 to 9007199254740991, got "x"', 'as plain text (SPEC), naming the parameter');
});
