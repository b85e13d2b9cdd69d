// The asset graph's entry point (SPEC "Resources", "Edges"): the resource and the edge use
// cases bound together, since both write through the one reachability guard of a tenant's
// graph (graph-guard.ts) and charge the same node and relationship quotas. engine.ts binds the
// graph here; route modules take the facade of their family from here.
import { bindEdgeEngine, type EdgeEngine, type EdgeEngineDeps } from './edge-engine.ts';
import { bindResourceEngine, type ResourceEngine, type ResourceEngineDeps } from './resource-engine.ts';

export type { EdgeEngine } from './edge-engine.ts';
export type { ResourceEngine } from './resource-engine.ts';

export interface GraphEngine {
  resources: ResourceEngine;
  edges: EdgeEngine;
}

export type GraphEngineDeps = ResourceEngineDeps & EdgeEngineDeps;

export function bindGraphEngine(deps: GraphEngineDeps): GraphEngine {
  return { resources: bindResourceEngine(deps), edges: bindEdgeEngine(deps) };
}
