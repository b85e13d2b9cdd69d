// Data set and label routes (shapes ours; SPEC names /datasets/create and /labels/create).
import { Type } from '@sinclair/typebox';
import {
  DataSetByIdsRequest, DataSetCollection, DataSetCreateRequest, DataSetListQuery, DataSetListRequest, DataSetPage, DataSetUpdateRequest, LabelListQuery,
} from '../schemas/datasets.ts';
import type { DataSetEngine, LabelEngine } from '../engine/meta/meta-engine.ts';
import { CAPS, EpochMs, Items, PagedResponse, ItemsResponse } from '../schemas/common.ts';
import { jsonRoute, noContent, ok, queryRoute, type Route } from './route.ts';

const Label = Type.Object({
  externalId: Type.String(), name: Type.String(), description: Type.Optional(Type.String()), createdTime: EpochMs,
});
const LabelCreate = Type.Object({
  externalId: Type.String({ minLength: 1, maxLength: CAPS.labelCharsMax }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
  description: Type.Optional(Type.String({ maxLength: 500 })),
}, { additionalProperties: false });
const LabelListRequest = Type.Object({
  filter: Type.Optional(Type.Object({ externalIdPrefix: Type.Optional(Type.String({ maxLength: CAPS.labelCharsMax })) })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String()),
});

export function dataSetRoutes(datasets: DataSetEngine, labels: LabelEngine): Route[] {
  return [
    jsonRoute({
      method: 'post', path: '/datasets/create', operationId: 'createDataSets', tag: 'Data sets',
      summary: 'Create data sets (all-or-nothing); a parent is linked by a BELONGS_TO edge',
      description: 'A root data set needs write access to every data set; a child needs write access to its parent. The parent may be created earlier in the same batch.',
      body: DataSetCreateRequest,
      responses: { 201: { description: 'created', schema: DataSetCollection }, 400: { description: 'unknown parent' }, 403: { description: 'no write grant' }, 409: { description: 'DuplicateError' }, 422: { description: 'field caps' } },
      handle: async ({ access, body }) => ok({ items: await datasets.create(access, body.items) }, 201),
    }),
    jsonRoute({
      method: 'post', path: '/datasets/list', operationId: 'listDataSets', tag: 'Data sets',
      summary: 'List readable data sets by id order, optionally by parent or externalId prefix',
      body: DataSetListRequest,
      responses: { 200: { description: 'a page', schema: DataSetPage } },
      handle: async ({ access, body }) => ok(await datasets.list(access, body)),
    }),
    queryRoute({
      method: 'get', path: '/datasets', operationId: 'listDataSetsGet', tag: 'Data sets',
      summary: 'List readable data sets (GET form)',
      query: DataSetListQuery,
      responses: { 200: { description: 'a page', schema: DataSetPage } },
      handle: async ({ access, query }) => ok(await datasets.list(access, { limit: query.limit, cursor: query.cursor })),
    }),
    jsonRoute({
      method: 'post', path: '/datasets/byids', operationId: 'dataSetsByIds', tag: 'Data sets',
      summary: 'Retrieve data sets by id or externalId; misses and unreadable ones omitted',
      body: DataSetByIdsRequest,
      responses: { 200: { description: 'found data sets', schema: DataSetCollection } },
      handle: async ({ access, body }) => ok({ items: await datasets.byIds(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/datasets/update', operationId: 'updateDataSets', tag: 'Data sets',
      summary: 'Update data sets (all-or-nothing), including re-parenting',
      body: DataSetUpdateRequest,
      responses: { 200: { description: 'after update', schema: DataSetCollection }, 400: { description: 'not found, cycle, set with setNull' }, 403: { description: 'no write grant' }, 409: { description: 'DuplicateError' } },
      handle: async ({ access, body }) => ok({ items: await datasets.update(access, body.items) }),
    }),
    jsonRoute({
      method: 'post', path: '/labels/create', operationId: 'createLabels', tag: 'Labels',
      summary: 'Create labels (all-or-nothing)',
      body: Items(LabelCreate),
      responses: { 201: { description: 'created', schema: ItemsResponse(Label) }, 409: { description: 'DuplicateError' }, 422: { description: 'field caps' } },
      handle: async ({ access, body }) => ok({ items: await labels.create(access, body.items) }, 201),
    }),
    jsonRoute({
      method: 'post', path: '/labels/list', operationId: 'listLabels', tag: 'Labels',
      summary: 'List labels by externalId, optionally by prefix',
      body: LabelListRequest,
      responses: { 200: { description: 'a page', schema: PagedResponse(Label) } },
      handle: async ({ access, body }) => ok(await labels.list(access, { prefix: body.filter?.externalIdPrefix, limit: body.limit, cursor: body.cursor })),
    }),
    queryRoute({
      method: 'get', path: '/labels', operationId: 'listLabelsGet', tag: 'Labels',
      summary: 'List labels (GET form)',
      query: LabelListQuery,
      responses: { 200: { description: 'a page', schema: PagedResponse(Label) } },
      handle: async ({ access, query }) => ok(await labels.list(access, { limit: query.limit, cursor: query.cursor })),
    }),
    jsonRoute({
      method: 'post', path: '/labels/delete', operationId: 'deleteLabels', tag: 'Labels',
      summary: 'Delete labels (idempotent); records keep the label strings they carry',
      body: Items(Type.Object({ externalId: Type.String({ minLength: 1, maxLength: CAPS.labelCharsMax }) })),
      responses: { 204: { description: 'deleted' } },
      async handle({ access, body }) {
        await labels.delete(access, body.items.map((i) => i.externalId));
        return noContent();
      },
    }),
  ];
}
