// The data point side of the service as the API sees it: the columnar store, the ingest log
// and the parsing workers, opened and closed together. Filled in by the data point engine.
import type { ServiceConfig } from '../engine/config.ts';
import type { RelationalStore } from '../engine/stores/relational.ts';
import type { HealthCheck } from './operational.ts';

export interface DatapointEngine {
  healthChecks: HealthCheck[];
  purgeSeries(tenant: string, seriesIds: number[]): void;
  close(): Promise<void>;
}

export async function openDatapointEngine(_config: Readonly<ServiceConfig>, _relational: RelationalStore): Promise<DatapointEngine> {
  return { healthChecks: [], purgeSeries() {}, async close() {} };
}
