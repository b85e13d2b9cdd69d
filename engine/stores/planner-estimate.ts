// The PostgreSQL planner's own estimate of a statement, without running it (EXPLAIN: about a
// millisecond). Used where two correct plans of one read exist and which is cheaper depends
// on the data: the statistics ANALYZE keeps know, the code does not.
import type { Queryable } from './queryable.ts';

export interface PlannerEstimate {
  /** The rows the statement's top node is expected to return. */
  rows: number;
  /** Its total cost in the planner's units: comparable between plans of one database. */
  cost: number;
}

export async function plannerEstimate(db: Queryable, sql: string, values: readonly unknown[]): Promise<PlannerEstimate> {
  const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number; 'Total Cost': number } }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, [...values]);
  const plan = rows[0]?.['QUERY PLAN'][0].Plan;
  return { rows: plan?.['Plan Rows'] ?? Infinity, cost: plan?.['Total Cost'] ?? Infinity };
}
