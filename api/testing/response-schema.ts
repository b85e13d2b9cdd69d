// Test helper: checks a response against the schema its route declares for that status
// (every response body is a TypeBox schema). A 2xx whose status the route does not
// declare, a body that fails the declared schema, or a 204 with a body is a problem.
// Validators are compiled once per schema, as the server does.
import type { TSchema } from '@sinclair/typebox';
import type { Test } from 'tap';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { Route } from '../route.ts';
import type { TestResponse, TestServer } from './test-server.ts';

interface RouteMatcher {
  route: Route;
  pattern: RegExp;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function compile(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

function matchers(routes: Route[]): RouteMatcher[] {
  // Static paths before templated ones: POST /units/byids is not GET /units/{externalId}.
  return routes
    .map((route) => ({ route, params: (route.path.match(/\{/g) ?? []).length }))
    .sort((a, b) => a.params - b.params)
    .map(({ route }) => ({
      route,
      pattern: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
    }));
}

/** The declared route of a request, or undefined. `url` may carry a query string. */
export function routeOf(routes: Route[], method: string, url: string): Route | undefined {
  const path = url.split('?')[0] ?? url;
  const verb = method.toLowerCase();
  return matchers(routes).find((m) => m.route.method === verb && m.pattern.test(path))?.route;
}

/**
 * Problems of a 2xx response against its route's declaration; undefined for other statuses.
 * An empty array means the response conforms.
 */
export function responseSchemaProblems(routes: Route[], method: string, url: string, res: Pick<TestResponse, 'status' | 'body' | 'text'>): string[] | undefined {
  if (res.status < 200 || res.status > 299) return undefined;
  const route = routeOf(routes, method, url);
  if (!route) return [`no route declared for ${method} ${url}`];
  const spec = route.responses[res.status];
  if (!spec) return [`${route.operationId} does not declare status ${res.status}`];
  if (!spec.schema) return res.status === 204 && res.text !== '' ? [`${route.operationId}: 204 with a body`] : [];
  const check = compile(spec.schema);
  return [...check.Errors(res.body)].slice(0, 10).map((e) => `${route.operationId} ${res.status}: ${e.path || '/'} ${e.message}`);
}

export type CheckedRequest = (t: Test, method: string, path: string, opts?: Parameters<TestServer['request']>[2]) => Promise<TestResponse>;

/** srv.request plus one assertion, on every 2xx, that the body matches the route's response schema. */
export function schemaCheckedRequest(srv: TestServer): CheckedRequest {
  return async (t, method, path, opts) => {
    const res = await srv.request(method, path, opts);
    const problems = responseSchemaProblems(srv.server.routes, method, path, res);
    if (problems !== undefined) t.strictSame(problems, [], `${method} ${path.split('?')[0]} ${res.status} matches its response schema`);
    return res;
  };
}
