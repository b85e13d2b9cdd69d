// The node records' entry point: time series (SPEC "Time series", other than the data point
// family), data sets, labels and the units catalogue, which the time series records refer to
// and which share the node quota. engine.ts binds them here; route modules take the facade of
// their family from here.
import { bindDataSetEngine, bindLabelEngine, type DataSetEngine, type LabelEngine } from './dataset-engine.ts';
import { bindTimeSeriesEngine, type TimeSeriesEngine, type TimeSeriesEngineDeps } from './timeseries-engine.ts';
import { unitEngine, type UnitEngine } from './unit-engine.ts';

export type { DataSetEngine, LabelEngine } from './dataset-engine.ts';
export type { TimeSeriesEngine } from './timeseries-engine.ts';
export type { UnitEngine } from './unit-engine.ts';

export interface MetaEngine {
  timeseries: TimeSeriesEngine;
  datasets: DataSetEngine;
  labels: LabelEngine;
  units: UnitEngine;
}

export function bindMetaEngine(deps: TimeSeriesEngineDeps): MetaEngine {
  return {
    timeseries: bindTimeSeriesEngine(deps),
    datasets: bindDataSetEngine(deps.relational, deps.quotas),
    labels: bindLabelEngine(deps.relational, deps.quotas),
    units: unitEngine,
  };
}
