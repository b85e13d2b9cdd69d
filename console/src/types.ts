// The API records the console reads, as docs/api.md describes them;
// only the fields the console uses.

export interface TimeSeries {
  id: number;
  externalId?: string;
  name?: string;
  description?: string;
  valueType: string;
  unit?: string;
  unitExternalId?: string;
  dataSetId?: number;
}

export interface DataSetRef { id: number; externalId?: string; name?: string }

export interface TokenInspection {
  subject: string;
  organization: string;
  /** Epoch ms. */
  expiresAt?: number;
  datasets: { read: 'all' | DataSetRef[]; write: 'all' | DataSetRef[] };
}

export interface Page<T> { items: T[]; nextCursor?: string }

export interface PlantEvent {
  id: string;
  externalId?: string;
  type?: string;
  subType?: string;
  description?: string;
  source?: string;
  status?: string;
  /** Epoch ms. */
  eventTime: number;
  startTime?: number;
  endTime?: number;
  metadata?: Record<string, string>;
  relatedResources?: { id: string; externalId: string }[];
  dataSetId?: string;
}

export interface Resource {
  id: number;
  externalId?: string;
  name?: string;
  description?: string;
  isRoot?: boolean;
  dataSetId?: number;
  labels?: unknown[];
  metadata?: Record<string, string>;
}

export interface Edge { id: number; start: number; end: number; type: string }
export interface GraphNode { id: number; kind: 'resource' | 'timeseries' | 'dataset'; externalId?: string; name?: string }
export interface EdgePage extends Page<Edge> { nodes?: GraphNode[] }

export interface Policy {
  id: number;
  externalId: string;
  name: string;
  target: string;
  field: string;
  pattern: string;
  mode: string;
}

export interface PolicyFinding {
  externalId: string;
  policyExternalId: string;
  nodeId: string;
  state: 'OPEN' | 'RESOLVED';
  offendingValue?: string;
  suggestion?: string;
  dataSetId?: string;
  lastEventTime: number;
  description?: string;
}

export interface StoredFile {
  path: string;
  folder: string;
  name: string;
  size: number;
  contentType: string;
  sha256: string;
  createdTime: number;
}
