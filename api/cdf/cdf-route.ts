// How a CDF route is declared: the path under `/api/v1/projects/{project}`, CDF's error form,
// and the project check every CDF call makes before the engine sees it. The project in the path
// must be the token's organization (our tenant): another project is a 403 and nothing is read
// or written, never an answer from the token's tenant.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { ForbiddenError } from '../../engine/errors.ts';
import type { Reply, RequestContext, Route } from '../route.ts';

export const CDF_PROJECT_PATH = '/api/v1/projects/{project}';

/** The 403 for a project that is not the token's. */
export function assertOwnProject(ctx: Pick<RequestContext, 'params' | 'caller'>): void {
  const project = ctx.params['project'];
  if (project !== ctx.caller.tenant) throw new ForbiddenError(`The token does not grant access to project '${project ?? ''}'`);
}

type Declared<Body, Query> = Omit<Route<Body, Query>, 'errorForm' | 'path'> & { path: `/${string}` };

/** A CDF route: `path` is relative to the project (`/timeseries/list`); `operationId` gets the `cdf` prefix. */
export function cdfRoute<Body = unknown, Query = Record<string, unknown>>(route: Declared<Body, Query>): Route<Body, Query> {
  const { handle } = route;
  return {
    ...route,
    path: `${CDF_PROJECT_PATH}${route.path}`,
    operationId: `cdf${route.operationId[0]?.toUpperCase() ?? ''}${route.operationId.slice(1)}`,
    tag: `CDF ${route.tag}`,
    errorForm: 'cdf',
    responses: { ...route.responses, 403: route.responses[403] ?? { description: 'the project is not the token\'s, or no grant' } },
    handle: (ctx: RequestContext<Body, Query>): Promise<Reply> => {
      assertOwnProject(ctx);
      return handle(ctx);
    },
  };
}

/** A CDF route with a JSON body typed from its schema. */
export function cdfJsonRoute<S extends TSchema>(route: Omit<Declared<Static<S>, Record<string, unknown>>, 'body'> & { body: S }): Route<Static<S>> {
  return cdfRoute<Static<S>>(route);
}

/** A CDF route without a body whose query is typed from its schema. */
export function cdfQueryRoute<Q extends TObject>(route: Omit<Declared<undefined, Static<Q>>, 'query'> & { query: Q }): Route<undefined, Static<Q>> {
  return cdfRoute<undefined, Static<Q>>(route);
}
