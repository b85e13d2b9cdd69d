// The function record as the engine takes and answers it, and its stored row. A function is
// a named expression over time series with, optionally, the time series it keeps up to date
// (its target); its evaluation is not this module's. The HTTP schemas mirror these types.
import type { Identifier } from '../errors.ts';

/** The time series a function keeps up to date, by externalId (resolved and checked on write). */
export interface FunctionTarget {
  externalId: string;
}

/** A function as answered: absent optional fields are left out; `target` and `targetStatus` are null when unset. */
export interface FunctionRecord {
  id: number;
  externalId: string;
  name: string;
  description?: string;
  dataSetId?: number;
  metadata: Record<string, string>;
  /** At most FUNCTION_EXPRESSION_CHARS_MAX characters, accepted by parseExpression. */
  expression: string;
  /** The target as its writer named it. */
  target: FunctionTarget | null;
  /** Read-only: why keeping the target up to date stopped; null while it runs or before it ran. */
  targetStatus: Record<string, unknown> | null;
  /** Epoch ms. */
  createdTime: number;
  /** Epoch ms. */
  lastUpdatedTime: number;
}

export interface FunctionCreate {
  externalId: string;
  name: string;
  description?: string;
  dataSetId?: number;
  metadata?: Record<string, string>;
  expression: string;
  /** Absent or null: the function keeps no series. */
  target?: FunctionTarget | null;
}

/** SPEC's update verbs over the function's fields: `set`, `setNull`, and for metadata `add` / `remove`. */
export interface FunctionUpdateFields {
  externalId?: { set?: string; setNull?: boolean };
  name?: { set?: string; setNull?: boolean };
  description?: { set?: string; setNull?: boolean };
  dataSetId?: { set?: number; setNull?: boolean };
  metadata?: { set?: Record<string, string>; setNull?: boolean; add?: Record<string, string>; remove?: string[] };
  expression?: { set?: string; setNull?: boolean };
  target?: { set?: FunctionTarget; setNull?: boolean };
}

export interface FunctionUpdateItem extends Identifier {
  update: FunctionUpdateFields;
}

/** A page of functions, newest created first. */
export interface FunctionPage {
  items: FunctionRecord[];
  nextCursor?: string;
}

/** A row of `functions` (migration 015) as FUNCTION_COLUMNS reads it. */
export interface FunctionRow {
  id: number;
  external_id: string;
  name: string;
  description: string | null;
  data_set_id: number | null;
  metadata: Record<string, string>;
  expression: string;
  target_external_id: string | null;
  target_series_id: number | null;
  target_status: Record<string, unknown> | null;
  created_time: number;
  last_updated_time: number;
}

export function toFunctionRecord(row: FunctionRow): FunctionRecord {
  const record: FunctionRecord = {
    id: row.id,
    externalId: row.external_id,
    name: row.name,
    metadata: row.metadata,
    expression: row.expression,
    target: row.target_external_id === null ? null : { externalId: row.target_external_id },
    targetStatus: row.target_status,
    createdTime: row.created_time,
    lastUpdatedTime: row.last_updated_time,
  };
  if (row.description !== null) record.description = row.description;
  if (row.data_set_id !== null) record.dataSetId = row.data_set_id;
  return record;
}
