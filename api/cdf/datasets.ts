// CDF's data set routes (POST /datasets, /datasets/list, /byids, /update, /aggregate) and label
// routes (POST /labels, /labels/list, /labels/delete) over the engine's data sets and labels;
// forms in datasets-form.ts.
import {
  CdfDataSetAggregateRequest, CdfDataSetCreateRequest, CdfDataSetItems, CdfDataSetListRequest, CdfDataSetPage, CdfDataSetUpdateRequest,
  CdfLabelCreateRequest, CdfLabelDeleteRequest, CdfLabelItems, CdfLabelListRequest, CdfLabelPage,
} from '../../schemas/cdf/datasets.ts';
import { CDF_PAGE_LIMIT_DEFAULT, CdfByIdsRequest, CdfCountItems } from '../../schemas/cdf/timeseries.ts';
import { BadRequestError } from '../../engine/errors.ts';
import type { DataSetEngine, LabelEngine } from '../../engine/meta/meta-engine.ts';
import { ok, type Route } from '../route.ts';
import { cdfJsonRoute } from './cdf-route.ts';
import { fromCdfDataSetCreate, fromCdfDataSetFilter, fromCdfDataSetUpdate, fromCdfLabelCreate, toCdfDataSet } from './datasets-form.ts';

export function cdfDataSetRoutes(datasets: DataSetEngine, labels: LabelEngine): Route[] {
  return [
    cdfJsonRoute({
      method: 'post', path: '/datasets', operationId: 'createDataSets', tag: 'Data sets',
      summary: 'Create data sets (all-or-nothing), in request order',
      body: CdfDataSetCreateRequest,
      responses: {
        201: { description: 'created, in request order', schema: CdfDataSetItems },
        400: { description: 'no externalId, or writeProtected' }, 403: { description: 'a root data set needs write access to every data set' },
        409: { description: 'externalIds already exist (`duplicated`)' }, 422: { description: 'an externalId repeated in the request (`duplicated`)' },
      },
      handle: async ({ access, body }) => {
        const created = await datasets.create(access, body.items.map(fromCdfDataSetCreate), { refuseRepeats: true });
        return ok({ items: created.map(toCdfDataSet) }, 201);
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/datasets/list', operationId: 'listDataSets', tag: 'Data sets',
      summary: 'List readable data sets with a filter and cursor paging',
      body: CdfDataSetListRequest,
      responses: { 200: { description: 'a page; `nextCursor` while more follow', schema: CdfDataSetPage }, 400: { description: 'invalid filter or cursor' } },
      handle: async ({ access, body }) => {
        const filter = fromCdfDataSetFilter(body.filter);
        if (filter === null) return ok({ items: [] });
        const page = await datasets.filter(access, { ...filter, limit: body.limit ?? CDF_PAGE_LIMIT_DEFAULT, cursor: body.cursor });
        return ok({ items: page.items.map(toCdfDataSet), ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/datasets/byids', operationId: 'dataSetsByIds', tag: 'Data sets',
      summary: 'Retrieve data sets by id or externalId, in request order',
      body: CdfByIdsRequest,
      responses: { 200: { description: 'found data sets, in request order', schema: CdfDataSetItems }, 400: { description: 'unknown ids (`missing`) without ignoreUnknownIds' } },
      handle: async ({ access, body }) => ok({ items: (await datasets.byIds(access, body.items, { listMissing: body.ignoreUnknownIds !== true })).map(toCdfDataSet) }),
    }),
    cdfJsonRoute({
      method: 'post', path: '/datasets/update', operationId: 'updateDataSets', tag: 'Data sets',
      summary: 'Update data sets with set / setNull / add / remove (all-or-nothing)',
      body: CdfDataSetUpdateRequest,
      responses: {
        200: { description: 'data sets after update, in request order', schema: CdfDataSetItems },
        400: { description: 'unknown ids (`missing`), writeProtected, a cleared externalId' }, 403: { description: 'no write grant' },
        409: { description: 'the new externalId is taken (`duplicated`)' }, 422: { description: 'a data set named twice (`duplicated`)' },
      },
      handle: async ({ access, body }) => {
        const updated = await datasets.update(access, body.items.map(fromCdfDataSetUpdate), { refuseRepeats: true, listMissing: true });
        return ok({ items: updated.map(toCdfDataSet) });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/datasets/aggregate', operationId: 'aggregateDataSets', tag: 'Data sets',
      summary: 'Count the readable data sets a filter matches',
      body: CdfDataSetAggregateRequest,
      responses: { 200: { description: '`[{count}]`', schema: CdfCountItems } },
      handle: async ({ access, body }) => {
        const filter = fromCdfDataSetFilter(body.filter);
        return ok({ items: [{ count: filter === null ? 0 : await datasets.count(access, filter) }] });
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/labels', operationId: 'createLabels', tag: 'Labels',
      summary: 'Create label definitions (all-or-nothing), in request order',
      body: CdfLabelCreateRequest,
      responses: {
        201: { description: 'created', schema: CdfLabelItems }, 400: { description: 'a dataSetId' },
        409: { description: 'externalIds already exist (`duplicated`)' }, 422: { description: 'an externalId repeated in the request (`duplicated`)' },
      },
      handle: async ({ access, body }) => {
        const items = body.items.map(fromCdfLabelCreate);
        const created = await labels.create(access, items, { refuseRepeats: true });
        const byExternalId = new Map(created.map((label) => [label.externalId, label]));
        return ok({ items: items.map((item) => byExternalId.get(item.externalId)) }, 201);
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/labels/list', operationId: 'listLabels', tag: 'Labels',
      summary: 'List label definitions by externalId, with a filter and cursor paging',
      body: CdfLabelListRequest,
      responses: { 200: { description: 'a page; `nextCursor` while more follow', schema: CdfLabelPage }, 400: { description: 'a dataSetIds filter' } },
      handle: async ({ access, body }) => {
        if (body.filter?.dataSetIds !== undefined) {
          throw new BadRequestError('filter.dataSetIds: labels belong to the project, not to a data set, here (docs/cdf.md)', [{ field: 'filter.dataSetIds', message: 'not supported' }]);
        }
        return ok(await labels.list(access, { prefix: body.filter?.externalIdPrefix, name: body.filter?.name, limit: body.limit ?? CDF_PAGE_LIMIT_DEFAULT, cursor: body.cursor }));
      },
    }),
    cdfJsonRoute({
      method: 'post', path: '/labels/delete', operationId: 'deleteLabels', tag: 'Labels',
      summary: 'Delete label definitions (unknown ones are skipped); records keep the labels they carry',
      body: CdfLabelDeleteRequest,
      responses: { 200: { description: 'deleted' } },
      handle: async ({ access, body }) => {
        await labels.delete(access, body.items.map((item) => item.externalId));
        return ok({});
      },
    }),
  ];
}
