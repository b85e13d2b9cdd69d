// The CDF surface: CDF's REST API under /api/v1/projects/{project}, thin route modules over the
// same engine calls as SPEC's surface (docs/cdf.md lists what is served and how it differs).
import type { Engine } from '../../engine/engine.ts';
import type { Route } from '../route.ts';
import { cdfAssetRoutes } from './assets.ts';
import { cdfDatapointRoutes } from './datapoints.ts';
import { cdfDataSetRoutes } from './datasets.ts';
import { cdfEventRoutes } from './events.ts';
import { cdfRelationshipRoutes } from './relationships.ts';
import { cdfSyntheticRoutes } from './synthetic.ts';
import { cdfTimeSeriesRoutes } from './timeseries.ts';
import { tokenInspectRoutes } from './token-inspect.ts';

export function cdfRoutes(engine: Engine): Route[] {
  return [
    ...tokenInspectRoutes(), ...cdfTimeSeriesRoutes(engine.timeseries), ...cdfDataSetRoutes(engine.datasets, engine.labels),
    ...cdfDatapointRoutes(engine.datapoints), ...cdfSyntheticRoutes(engine.datapoints),
    ...cdfEventRoutes(engine.events), ...cdfAssetRoutes(engine.resources.assets), ...cdfRelationshipRoutes(engine.edges.relationships),
  ];
}
