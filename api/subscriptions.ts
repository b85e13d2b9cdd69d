// Subscription routes (SPEC "Subscription stream"; docs/api.md fixes the shapes SPEC leaves open):
// create, list, byids, update, delete. The stream itself is api/datapoints-listen.ts.
import {
  SubscriptionCollection, SubscriptionCreateRequest, SubscriptionDeleteRequest, SubscriptionIdentifiers, SubscriptionListQuery, SubscriptionListRequest, SubscriptionPage,
  SubscriptionUpdateRequest,
} from '../schemas/subscriptions.ts';
import type { SubscriptionEngine } from '../engine/subscriptions/subscription-engine.ts';
import { jsonRoute, noContent, ok, queryRoute, type Route } from './route.ts';

const TAG = 'Subscriptions';

export function subscriptionRoutes(subscriptions: SubscriptionEngine): Route[] {
  return [
    jsonRoute({
      method: 'post', path: '/subscriptions/create', operationId: 'createSubscriptions', tag: TAG,
      summary: 'Create subscriptions (all-or-nothing; 201)',
      description: 'A subscription names its series (`timeseriesIds`, `timeseriesExternalIds`; at most 10,000 together) and, with `dataSetId`, covers every series in that data set and its descendants, including ones created later. Unknown or unreadable series and data sets are a 400. Its externalIds are a space of their own (409 `DuplicateError`). It starts delivering with the first batch committed after it exists; messages wait in the broker until acked, with or without a listener.',
      body: SubscriptionCreateRequest,
      responses: {
        201: { description: 'the created subscriptions, in request order', schema: SubscriptionCollection },
        400: { description: 'unknown series or data set; more than 10,000 series' }, 409: { description: 'DuplicateError' }, 422: { description: 'field caps' },
      },
      handle: async ({ access, body }) => ok({ items: await subscriptions.create(access, body.items) }, 201),
    }),
    jsonRoute({
      method: 'post', path: '/subscriptions/list', operationId: 'listSubscriptions', tag: TAG,
      summary: 'List the tenant\'s subscriptions by id',
      body: SubscriptionListRequest,
      responses: { 200: { description: 'a page', schema: SubscriptionPage }, 400: { description: 'bad cursor' } },
      handle: async ({ access, body }) => ok(await subscriptions.list(access, body.limit ?? 100, body.cursor)),
    }),
    queryRoute({
      method: 'get', path: '/subscriptions', operationId: 'listSubscriptionsGet', tag: TAG,
      summary: 'List the tenant\'s subscriptions (GET form)',
      query: SubscriptionListQuery,
      responses: { 200: { description: 'a page', schema: SubscriptionPage }, 400: { description: 'bad limit or cursor' } },
      handle: async ({ access, query }) => ok(await subscriptions.list(access, query.limit, query.cursor)),
    }),
    jsonRoute({
      method: 'post', path: '/subscriptions/byids', operationId: 'subscriptionsByIds', tag: TAG,
      summary: 'Subscriptions by id or externalId; misses omitted',
      body: SubscriptionIdentifiers,
      responses: { 200: { description: 'in request order, each once', schema: SubscriptionCollection } },
      handle: async ({ access, body }) => ok({ items: await subscriptions.byIds(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/subscriptions/update', operationId: 'updateSubscriptions', tag: TAG,
      summary: 'Update subscriptions (all-or-nothing): rename, describe, add and remove series, set or clear the data set',
      description: '`name: { set }`, `description: { set | setNull }`, `dataSetId: { set | setNull }`, `timeseriesIds` / `timeseriesExternalIds: { add, remove }`. Removing a series that is not named is a no-op; adding an unknown one is a 400, as is going past 10,000 series.',
      body: SubscriptionUpdateRequest,
      responses: { 200: { description: 'after update, in request order', schema: SubscriptionCollection }, 400: { description: 'not found, unknown series or data set, set with setNull, over 10,000 series' } },
      handle: async ({ access, body }) => ok({ items: await subscriptions.update(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/subscriptions/delete', operationId: 'deleteSubscriptions', tag: TAG,
      summary: 'Delete subscriptions (idempotent; 204) with their unacked messages',
      body: SubscriptionDeleteRequest,
      responses: { 204: { description: 'deleted' } },
      async handle({ access, body }) {
        await subscriptions.delete(access, body.items);
        return noContent();
      },
    }),
  ];
}
