// Goal: no request, however malformed, knocks the service over or earns a 500. For every
// operation in /openapi.json, fast-check builds hostile requests: arbitrary JSON, valid bodies
// mutated at depth (wrong types, nulls, huge strings, deep nesting, extra keys), raw text with
// duplicate keys, invalid UTF-8, truncation or nesting past the limit, wrong content types,
// malformed path parameters and query strings; and each body-taking operation gets an
// oversized body through Node's fetch. Then, exhaustively: every query parameter /openapi.json
// lists and every string field of every request body (found by walking the route's schema,
// placed in an otherwise valid body) gets a NUL, a lone surrogate and an over-long value; and
// the streamed-body routes get bodies past the JSON body limit answered early (403, a bad
// path, a NUL) and accepted, each answer read by fetch. Checks: every request is answered (no
// dropped connection), no 5xx (a 503 only with JSON and Retry-After), every error body is JSON
// (but the plain-text 400 SPEC documents for GET /timeseries), a 2xx only for a body its
// route's schema accepts and never for one with a duplicate key, a 2xx only for numeric query
// parameters their schema accepts, a NUL in a query parameter or in a JSON field never a 2xx,
// a lone surrogate in a JSON field a 400 naming its path, and GET /health is 200 after each
// operation. Method: the real server in this process; operations from /openapi.json and
// schemas from the running server's route table. Seeded: HOSTILE_INPUT_SEED chooses another
// seed, HOSTILE_INPUT_RUNS the runs per operation.
import t from 'tap';
import fc from 'fast-check';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { randomBytes } from 'node:crypto';
import { BODY_BYTES_MAX, JSON_DEPTH_MAX } from '../engine/limits.ts';
import type { Route } from './route.ts';
import { ROOMY_POLICY } from './testing/datapoints-fixture.ts';
import { startTestServer } from './testing/test-server.ts';

const SEED = Number(process.env['HOSTILE_INPUT_SEED'] ?? 7_007);
const RUNS = Number(process.env['HOSTILE_INPUT_RUNS'] ?? 30);
t.comment(`fast-check seed ${SEED}, ${RUNS} runs per operation (HOSTILE_INPUT_SEED, HOSTILE_INPUT_RUNS to choose others)`);

// Files on for the tenant the requests use (its routes reach their handlers), off for another.
const ORG = `hostile-${randomBytes(4).toString('hex')}`;
const srv = await startTestServer({ serviceConfig: { ...ROOMY_POLICY, tenants: { [ORG]: { files: true } } } });
t.teardown(() => srv.close());
const token = srv.token({ org: ORG, read: ['*'], write: ['*'] });
const filesOffToken = srv.token({ org: srv.newTenant(), read: ['*'], write: ['*'] });
/** Per request: an answer must come, however slow a loaded machine is. */
const ANSWER_DEADLINE_MS = 60_000;

interface Operation {
  method: string;
  path: string;
  operationId: string;
  pathParams: string[];
  queryParams: string[];
  /** Each query parameter /openapi.json lists, with its schema's type and whether it is required. */
  querySpecs: { name: string; type: unknown; required: boolean }[];
  takesBody: boolean;
  route: Route | undefined;
  bodyCheck: TypeCheck<TSchema> | undefined;
  sampleBody: unknown;
}

async function operations(): Promise<Operation[]> {
  const doc = await (await fetch(`${srv.url}/openapi.json`)).json() as { paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string; required?: boolean; schema?: { type?: unknown } }[]; requestBody?: unknown; responses: Record<string, unknown> }>> };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.responses['101']) continue; // WebSocket upgrades: not plain HTTP requests
      const route = srv.server.routes.find((r) => r.method === method && r.path === path);
      const schema = route?.body ?? route?.rawBodySchema;
      out.push({
        method, path, operationId: op.operationId, route,
        pathParams: (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        querySpecs: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ name: p.name, type: p.schema?.type, required: p.required === true })),
        takesBody: method !== 'get' && op.requestBody !== undefined,
        bodyCheck: schema ? TypeCompiler.Compile(schema) : undefined,
        sampleBody: schema ? sampleOf(schema) : {},
      });
    }
  }
  return out;
}

/** A value of the schema to mutate (TypeBox's defaults), or {} where it cannot make one. */
function sampleOf(schema: TSchema): unknown {
  try {
    return Value.Create(schema);
  } catch {
    return {};
  }
}

// ---- hostile values ----

const deepNesting = fc.integer({ min: JSON_DEPTH_MAX - 2, max: 3_000 }).chain((depth) => fc.constantFrom(
  '['.repeat(depth) + ']'.repeat(depth),
  '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  '['.repeat(depth),
));
const hugeString = fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n));
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.constant(-0), fc.constant(2 ** 64),
  fc.string(), fc.string({ unit: 'binary' }), hugeString, fc.constant('\u0000'), fc.constant({}), fc.constant([]),
  fc.jsonValue({ maxDepth: 3 }), deepNesting.map((text) => ({ rawJson: text })),
);

/** Paths into a value: each array index and object key, depth first. */
function pathsOf(value: unknown): (string | number)[][] {
  const out: (string | number)[][] = [[]];
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (pending.length > 0 && out.length < 200) {
    const next = pending.pop() as { value: unknown; path: (string | number)[] };
    if (next.value === null || typeof next.value !== 'object') continue;
    for (const [key, item] of Object.entries(next.value)) {
      const path = [...next.path, Array.isArray(next.value) ? Number(key) : key];
      out.push(path);
      pending.push({ value: item, path });
    }
  }
  return out;
}

/** JSON text of `value` with `replacement` at `path` (`rawJson` replacements spliced in as text). */
function mutatedText(value: unknown, path: (string | number)[], replacement: unknown, extraKey?: string): string {
  const encode = (v: unknown): string => (v !== null && typeof v === 'object' && 'rawJson' in v ? String((v as { rawJson: string }).rawJson) : JSON.stringify(v) ?? 'null');
  const walk = (v: unknown, depth: number): string => {
    if (depth === path.length) {
      if (extraKey === undefined) return encode(replacement);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return encode(replacement);
      const members = Object.entries(v).map(([k, item]) => `${JSON.stringify(k)}:${JSON.stringify(item)}`);
      return `{${[...members, `${JSON.stringify(extraKey)}:${encode(replacement)}`].join(',')}}`;
    }
    const step = path[depth] as string | number;
    if (Array.isArray(v)) return `[${v.map((item, i) => (i === step ? walk(item, depth + 1) : JSON.stringify(item) ?? 'null')).join(',')}]`;
    const entries = Object.entries(v as Record<string, unknown>);
    return `{${entries.map(([k, item]) => `${JSON.stringify(k)}:${k === step ? walk(item, depth + 1) : JSON.stringify(item)}`).join(',')}}`;
  };
  return walk(value, 0);
}

/** JSON text of `value` with the first key of the object at `path` written twice. */
function duplicateKeyText(value: unknown, path: (string | number)[]): string | undefined {
  let at: unknown = value;
  for (const step of path) at = (at as Record<string | number, unknown>)[step];
  if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
  const members = Object.entries(at).map(([k, item]) => `${JSON.stringify(k)}:${JSON.stringify(item)}`);
  const duplicated = members.length > 0 ? [members[0] as string, ...members] : ['"k":1', '"k":2'];
  return mutatedText(value, path, { rawJson: `{${duplicated.join(',')}}` });
}

const INVALID_UTF8 = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]];
const CONTENT_TYPES = ['application/json', 'application/json', 'application/json', 'text/plain', '', 'application/x-www-form-urlencoded',
  'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'application/problem+json', 'application/jsonx', '*/*'];

interface HostileRequest {
  path: string;
  query: string;
  contentType: string;
  body: Uint8Array | undefined;
  /** What was done, for failure messages. */
  how: string;
}

const encoder = new TextEncoder();

function bodyArbitrary(op: Operation): fc.Arbitrary<{ bytes: Uint8Array; how: string }> {
  const sample = op.sampleBody;
  const paths = pathsOf(sample);
  const text = (how: string) => (s: string) => ({ bytes: encoder.encode(s), how });
  return fc.oneof(
    fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)).map(text('arbitrary JSON')),
    fc.anything({ maxDepth: 3 }).map((v) => { try { return JSON.stringify(v) ?? 'undefined'; } catch { return '{}'; } }).map(text('anything, stringified')),
    fc.tuple(fc.constantFrom(...paths), hostileValue).map(([path, v]) => mutatedText(sample, path, v)).map(text('a sample with one value replaced')),
    fc.tuple(fc.constantFrom(...paths), fc.string({ maxLength: 20 }), hostileValue).map(([path, key, v]) => mutatedText(sample, path, v, key)).map(text('a sample with an extra key')),
    fc.constantFrom(...paths).map((path) => duplicateKeyText(sample, path) ?? '{"items":[],"items":[]}').map(text('a duplicate key')),
    fc.tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([at, bad]) => {
      const good = encoder.encode(JSON.stringify(sample));
      const cut = at % (good.length + 1);
      return { bytes: new Uint8Array([...good.subarray(0, cut), ...bad, ...good.subarray(cut)]), how: `invalid UTF-8 at byte ${cut}` };
    }),
    fc.nat().map((n) => { const s = JSON.stringify(sample); return s.slice(0, n % (s.length + 1)); }).map(text('truncated JSON')),
    deepNesting.map((s) => `{"items":${s}}`).map(text('deep nesting')),
    fc.constantFrom('null', '0', '"x"', 'true', '[]', '', ' ', '{}', '[null]', '{"items":null}', '{"items":[null]}', '{"items":{}}').map(text('a scalar or an empty shape')),
  );
}

const segment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('%', '%zz', '%C0%AF', '%ED%A0%80', '%FF', '%00', '%2F', '%25', '1', '0', '-1', '9007199254740993', '1e3', '..%2F..', 'a%20b', '%E2%82'),
  fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => s.length > 0).map(encodeURIComponent),
  fc.stringMatching(/^[A-Za-z0-9%._~-]{1,40}$/),
);

function queryArbitrary(op: Operation): fc.Arbitrary<string> {
  const names = op.queryParams.length > 0 ? fc.constantFrom(...op.queryParams, 'x', '') : fc.constantFrom('x', 'limit', '');
  const value = fc.oneof(segment, fc.constantFrom('', '1', '10000', '10001', '0', '-5', '1.5', 'NaN', 'Infinity', ' 5', '0x10', '1e4', '%zz&', '=='));
  return fc.oneof(
    fc.constant(''),
    fc.array(fc.tuple(names, value), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
    fc.stringMatching(/^[A-Za-z0-9%&=+;._-]{0,60}$/),
  );
}

function requestArbitrary(op: Operation): fc.Arbitrary<HostileRequest> {
  const params = fc.tuple(...op.pathParams.map(() => segment));
  const body = op.takesBody ? fc.tuple(bodyArbitrary(op), fc.constantFrom(...CONTENT_TYPES)) : fc.constant(undefined);
  return fc.tuple(params, queryArbitrary(op), body).map(([values, query, withBody]) => {
    let i = 0;
    const path = op.path.replace(/\{\w+\}/g, () => values[i++] as string);
    return { path, query, contentType: withBody?.[1] ?? '', body: withBody?.[0].bytes, how: withBody?.[0].how ?? 'no body' };
  });
}

// ---- sending and judging ----

interface Answer { status: number; headers: Headers; text: string }

async function send(op: Operation, request: HostileRequest): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (request.body !== undefined && request.contentType) headers['content-type'] = request.contentType;
  const res = await fetch(`${srv.url}${request.path}${request.query ? `?${request.query}` : ''}`, {
    method: op.method.toUpperCase(), headers, body: request.body as BodyInit | undefined, signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * A 2xx for a query the route's declared parameters refuse: the first value of each numeric
 * parameter, read as a plain decimal number, must pass its schema (handlers read the first).
 */
function queryProblemOf(op: Operation, query: string): string | undefined {
  const params = new URLSearchParams(query);
  for (const [name, schema] of Object.entries(op.route?.query?.properties ?? {})) {
    const raw = params.get(name);
    const type = (schema as { type?: string }).type;
    if (raw === null || (type !== 'integer' && type !== 'number')) continue;
    const value = /^-?(0|[1-9]\d*)(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Value.Check(schema, value)) return `query ${name}=${raw} accepted, its schema refuses it`;
  }
  return undefined;
}

/** What is wrong with an answer, or undefined. */
function problemOf(op: Operation, request: HostileRequest, answer: Answer): string | undefined {
  const plainTextAllowed = op.method === 'get' && op.path === '/timeseries' && answer.status === 400;
  if (answer.status >= 500 && !(answer.status === 503 && answer.headers.get('retry-after'))) return `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.status >= 400 && !plainTextAllowed) {
    try {
      JSON.parse(answer.text);
    } catch {
      return `status ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`;
    }
  }
  // JSON leaves duplicate keys undefined; every JSON route refuses them (docs/api.md). A
  // streamed body (PUT /files) is bytes stored as sent, whatever they spell.
  if (answer.status >= 200 && answer.status < 300 && request.how === 'a duplicate key' && !op.route?.streamBody) return `status ${answer.status} for a body with a duplicate key`;
  if (answer.status >= 200 && answer.status < 300) {
    const queryProblem = queryProblemOf(op, request.query);
    if (queryProblem) return `status ${answer.status}: ${queryProblem}`;
  }
  if (answer.status >= 200 && answer.status < 300 && op.takesBody && op.bodyCheck && request.body !== undefined) {
    let sent: unknown;
    try {
      sent = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(request.body));
    } catch {
      return `status ${answer.status} for a body that is not UTF-8 JSON`;
    }
    if (!op.bodyCheck.Check(sent)) {
      const first = [...op.bodyCheck.Errors(sent)][0];
      return `status ${answer.status} for a body the schema refuses (${first?.path} ${first?.message})`;
    }
  }
  return undefined;
}

const ops = await operations();
t.ok(ops.length >= 10, `${ops.length} operations from /openapi.json`);

for (const op of ops) {
  t.test(`${op.method.toUpperCase()} ${op.path}`, async (t) => {
    let requests = 0;
    await fc.assert(fc.asyncProperty(requestArbitrary(op), async (request) => {
      requests++;
      const answer = await send(op, request);
      const problem = problemOf(op, request, answer);
      if (problem) throw new Error(`${op.operationId} ${request.path}?${request.query} (${request.how}, Content-Type "${request.contentType}"): ${problem}`);
    }), { seed: SEED, numRuns: RUNS });
    t.pass(`${requests} hostile requests answered without a 5xx`);
  });
}

// ---- NUL, lone surrogates and over-long values in every parameter and string field ----

/** Past every field cap (the longest is GeoJSON's 65,536 characters), within the body limit. */
const OVER_LONG_BODY_CHARS = 70_000;
/** Past every query parameter's cap, within what the HTTP parser takes in a request line. */
const OVER_LONG_QUERY_CHARS = 20_000;

interface HostileText { name: string; text: string; kind: 'nul' | 'surrogate' | 'long' }
const HOSTILE_TEXTS: HostileText[] = [
  { name: 'a NUL', text: 'ab\u0000cd', kind: 'nul' },
  { name: 'a lone surrogate', text: 'ab\ud800cd', kind: 'surrogate' },
  { name: 'an over-long value', text: 'x'.repeat(OVER_LONG_BODY_CHARS), kind: 'long' },
];
/** Query values as sent: a lone surrogate can only come as the UTF-8 bytes of one, which decode as U+FFFD. */
const HOSTILE_QUERY_VALUES: { name: string; raw: string; kind: HostileText['kind'] }[] = [
  { name: 'a NUL', raw: '%00', kind: 'nul' },
  { name: 'a NUL inside', raw: 'ab%00cd', kind: 'nul' },
  { name: 'a lone surrogate', raw: 'ab%ED%A0%80cd', kind: 'surrogate' },
  { name: 'an over-long value', raw: 'x'.repeat(OVER_LONG_QUERY_CHARS), kind: 'long' },
];

interface StringSite {
  /** The field's path as error bodies name it: `items.0.name`, `(body)` for the root. */
  path: string;
  /** A body valid but for `text` at this field. */
  build(text: string): unknown;
}

const joinPath = (head: string, tail: string): string => (tail === '' ? head : `${head}.${tail}`);

/** Every string field a body of this schema can hold, each with a builder of an otherwise valid body. */
function stringSites(schema: TSchema, depth = 0): StringSite[] {
  const s = schema as Record<string, unknown>;
  if (depth > 10) return [];
  if (s['type'] === 'string' && s['const'] === undefined && s['enum'] === undefined) return [{ path: '', build: (text) => text }];
  const out: StringSite[] = [];
  for (const alternative of (s['anyOf'] ?? s['oneOf'] ?? []) as TSchema[]) out.push(...stringSites(alternative, depth + 1));
  if (s['type'] === 'array' && s['items']) {
    for (const site of stringSites(s['items'] as TSchema, depth + 1)) out.push({ path: joinPath('0', site.path), build: (text) => [site.build(text)] });
  }
  if (s['type'] === 'object') {
    const base = () => sampleOf(schema) as Record<string, unknown>;
    for (const [key, property] of Object.entries((s['properties'] ?? {}) as Record<string, TSchema>)) {
      for (const site of stringSites(property, depth + 1)) out.push({ path: joinPath(key, site.path), build: (text) => ({ ...base(), [key]: site.build(text) }) });
    }
    const [valueSchema] = Object.values((s['patternProperties'] ?? {}) as Record<string, TSchema>);
    if (valueSchema) {
      for (const site of stringSites(valueSchema, depth + 1)) out.push({ path: joinPath('k', site.path), build: (text) => ({ ...base(), k: site.build(text) }) });
      out.push({ path: '(key)', build: (text) => ({ ...base(), [text]: sampleOf(valueSchema) }) });
    }
  }
  const seen = new Set<string>();
  return out.filter((site) => !seen.has(site.path) && seen.add(site.path));
}

/** Path with placeholders filled: `1` for ids (a record that may exist), `x` otherwise. */
const concretePath = (op: Operation): string => op.path.replace(/\{(\w+)\}/g, (_, name: string) => (/id$/i.test(name) ? '1' : 'x'));

/** The required query parameters but `except`, with plain values of their type. */
function requiredQuery(op: Operation, except?: string): string[] {
  return op.querySpecs.filter((q) => q.required && q.name !== except).map((q) => `${q.name}=${q.type === 'integer' || q.type === 'number' ? '1' : 'abc'}`);
}

async function sendRaw(method: string, url: string, init: { body?: BodyInit; contentType?: string; token?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? token}` };
  if (init.contentType) headers['content-type'] = init.contentType;
  const res = await fetch(url, { method: method.toUpperCase(), headers, body: init.body, signal: AbortSignal.timeout(ANSWER_DEADLINE_MS) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** What is wrong with the answer to a hostile text, or undefined. */
function textProblemOf(op: Operation, answer: Answer, kind: HostileText['kind'], where: 'query' | 'body', field: string): string | undefined {
  const plainTextAllowed = op.method === 'get' && op.path === '/timeseries' && answer.status === 400;
  if (answer.status >= 500 && !(answer.status === 503 && answer.headers.get('retry-after'))) return `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  let body: { error?: { message?: string; fields?: { field: string }[] } } | undefined;
  if (answer.status >= 400 && !plainTextAllowed) {
    try {
      body = JSON.parse(answer.text) as typeof body;
    } catch {
      return `status ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`;
    }
  }
  // PostgreSQL text holds no NUL: on a route whose body the front end checks, and in any query
  // parameter, it never gets through.
  const strictBody = where === 'body' && op.route?.body !== undefined;
  if (kind === 'nul' && (where === 'query' || strictBody) && answer.status < 400) return `status ${answer.status}: a NUL accepted`;
  if (kind === 'surrogate' && strictBody) {
    if (answer.status !== 400) return `status ${answer.status}, not 400: ${answer.text.slice(0, 200)}`;
    // A key is named by the object that holds it.
    const expected = field === '(key)' ? '(body)' : field.replace(/\.\(key\)$/, '');
    // CDF's error body has no `fields` (api/cdf/cdf-errors.ts): its message names the path (the body itself as "request body").
    if (op.route?.errorForm === 'cdf') {
      const message = body?.error?.message ?? '';
      if (!message.includes(expected === '(body)' ? 'request body' : expected)) return `400 whose message does not name ${expected}: ${message}`;
    } else {
      const fields = body?.error?.fields?.map((f) => f.field) ?? [];
      if (!fields.includes(expected)) return `400 naming ${JSON.stringify(fields)}, not ${expected}`;
    }
  }
  return undefined;
}

for (const op of ops) {
  const sites = op.takesBody && op.route && !op.route.streamBody && (op.route.body ?? op.route.rawBodySchema)
    ? stringSites((op.route.body ?? op.route.rawBodySchema) as TSchema) : [];
  if (op.querySpecs.length === 0 && sites.length === 0) continue;
  t.test(`${op.method.toUpperCase()} ${op.path}: NUL, lone surrogate and over-long text in ${op.querySpecs.length} query parameters and ${sites.length} string fields`, async (t) => {
    const path = concretePath(op);
    const problems: string[] = [];
    let sent = 0;
    for (const spec of op.querySpecs) {
      for (const value of HOSTILE_QUERY_VALUES) {
        const query = [...requiredQuery(op, spec.name), `${spec.name}=${value.raw}`].join('&');
        const json = op.takesBody && !op.route?.streamBody;
        const body = json ? JSON.stringify(op.sampleBody) : op.route?.streamBody ? 'x' : undefined;
        const answer = await sendRaw(op.method, `${srv.url}${path}?${query}`, { body, contentType: json ? 'application/json' : undefined });
        sent++;
        const problem = textProblemOf(op, answer, value.kind, 'query', spec.name);
        if (problem) problems.push(`query ${spec.name}: ${value.name}: ${problem}`);
      }
    }
    const query = requiredQuery(op).join('&');
    for (const site of sites) {
      for (const hostile of HOSTILE_TEXTS) {
        // JSON.stringify writes a lone surrogate as the escape \ud800 (well-formed JSON.stringify).
        const text = JSON.stringify(site.build(hostile.text));
        const answer = await sendRaw(op.method, `${srv.url}${path}${query ? `?${query}` : ''}`, { body: text, contentType: 'application/json' });
        sent++;
        const problem = textProblemOf(op, answer, hostile.kind, 'body', site.path === '' ? '(body)' : site.path);
        if (problem) problems.push(`${site.path}: ${hostile.name}: ${problem}`);
      }
    }
    t.strictSame(problems, [], `${sent} requests: each answered, no 5xx, JSON errors, NULs and lone surrogates refused`);
    t.equal((await fetch(`${srv.url}/health`)).status, 200, 'GET /health 200 afterwards');
  });
}

t.test('streamed-body routes: bodies past the JSON body limit, answered early or accepted, the answer read by fetch', async (t) => {
  const bigBody = () => new Uint8Array(BODY_BYTES_MAX + 1).fill(0x61);
  for (const op of ops.filter((o) => o.route?.streamBody)) {
    const name = `${op.method.toUpperCase()} ${op.path}`;
    const base = `${srv.url}${concretePath(op)}`;
    // PUT /files' `path` is optional in its query schema (the feature check answers first, with
    // a 403) but its handler needs one: counted as needed here.
    const needed = op.querySpecs.filter((q) => q.required || q.name === 'path');
    const fine = needed.map((q) => `${q.name}=hostile-${q.name}`).join('&');
    const early = [
      { what: 'a tenant without the feature', url: `${base}?${fine}`, token: filesOffToken },
      ...op.querySpecs.map((q) => ({ what: `a NUL in ${q.name}`, url: `${base}?${[...requiredQuery(op, q.name), `${q.name}=a%00b`].join('&')}`, token })),
      ...needed.map((q) => ({ what: `no ${q.name}`, url: `${base}?${needed.filter((n) => n !== q).map((n) => `${n.name}=hostile-${n.name}`).join('&')}`, token })),
    ];
    for (const request of early) {
      const answer = await sendRaw(op.method, request.url, { body: bigBody(), contentType: 'application/octet-stream', token: request.token });
      t.ok(answer.status >= 400 && answer.status < 500, `${name}, ${request.what}: a 4xx read (${answer.status})`);
      t.doesNotThrow(() => JSON.parse(answer.text), `${name}, ${request.what}: a JSON error body`);
    }
    const accepted = await sendRaw(op.method, `${base}?${fine}`, { body: bigBody(), contentType: 'application/octet-stream' });
    t.ok(accepted.status >= 200 && accepted.status < 300, `${name}: ${BODY_BYTES_MAX + 1} bytes accepted, no body cap (${accepted.status} ${accepted.text.slice(0, 200)})`);
  }
  t.equal((await fetch(`${srv.url}/health`)).status, 200, 'GET /health 200 afterwards');
});

t.test('oversized bodies sent by fetch: the 413 and its limitBytes are read', async (t) => {
  for (const op of ops.filter((o) => o.takesBody && o.route && !o.route.streamBody)) {
    const limit = op.route?.bodyBytesMax ?? BODY_BYTES_MAX;
    const path = op.path.replace(/\{\w+\}/g, 'x');
    const res = await fetch(srv.url + path, {
      method: op.method.toUpperCase(), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new Uint8Array(limit + 1).fill(0x20), signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
    });
    const body = await res.json() as { limitBytes?: number; error?: { message?: string } };
    t.equal(res.status, 413, `${op.method.toUpperCase()} ${op.path}: 413`);
    // CDF's error body has no limitBytes (api/cdf/cdf-errors.ts): its message names the limit.
    if (op.route?.errorForm === 'cdf') t.match(body.error?.message, String(limit), `${op.method.toUpperCase()} ${op.path}: the limit ${limit} in the message`);
    else t.equal(body.limitBytes, limit, `${op.method.toUpperCase()} ${op.path}: limitBytes ${limit}`);
  }
});

t.test('the server is healthy afterwards', async (t) => {
  const res = await fetch(`${srv.url}/health`);
  t.equal(res.status, 200, 'GET /health 200');
});
