// Data point routes (SPEC /timeseries/data family).
import type { Route } from './route.ts';
import type { Services } from './services.ts';
import type { DatapointEngine } from './datapoint-engine.ts';

export function datapointRoutes(_services: Services, _engine: DatapointEngine): Route[] {
  return [];
}
