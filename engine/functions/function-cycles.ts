// Functions may not keep their targets in a cycle: when F reads G's target and G reads F's,
// each recompute's writes call for the other's, and the two follow each other for as long as
// their values keep changing, which they may never stop doing. A function reading its own
// target is the shortest such cycle (function-target.ts refuses it with its own message);
// this check refuses the longer ones when a write would close them. The other functions of a
// cycle are never named: the writer may not be able to read them.
import { BadRequestError, type FieldProblem } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import { parseExpression } from './expression.ts';
import { KEPT_GRAPH, LOCK_TENANT_FUNCTION_GRAPH, SERIES_IDS } from './function-cycles.sql.ts';

/** A function as the batch leaves it: `id` null for a new one. */
export interface KeptFunction {
  index: number;
  field: string;
  id: number | null;
  expression: string;
  targetSeriesId: number | null;
}

interface Node {
  key: string;
  expression: string;
  target: number;
  /** The batch item, for the functions the write sets. */
  written?: KeptFunction;
}

/**
 * Throws one BadRequestError naming every item of the batch that would sit on a cycle of
 * kept targets once the batch is applied. Takes the tenant's function-graph lock first, so
 * run it inside the write's transaction.
 */
export async function assertNoTargetCycles(tx: Queryable, tenant: string, written: readonly KeptFunction[]): Promise<void> {
  if (!written.some((w) => w.targetSeriesId !== null)) return; // a function without a target closes no cycle
  await tx.query(LOCK_TENANT_FUNCTION_GRAPH, [tenant]);
  const { rows } = await tx.query<{ id: number; expression: string; target_series_id: number }>(KEPT_GRAPH, [tenant]);
  const nodes = new Map<string, Node>();
  for (const row of rows) nodes.set(`f${row.id}`, { key: `f${row.id}`, expression: row.expression, target: Number(row.target_series_id) });
  for (const w of written) {
    const key = w.id === null ? `new${w.index}` : `f${w.id}`;
    if (w.targetSeriesId === null) nodes.delete(key);
    else nodes.set(key, { key, expression: w.expression, target: w.targetSeriesId, written: w });
  }
  const keeperOf = new Map([...nodes.values()].map((node) => [node.target, node]));
  const inputs = await inputSeries(tx, tenant, [...nodes.values()]);
  // Edge F -> G: G reads the series F keeps, so F's writes call for G's recompute.
  const readers = new Map<Node, Node[]>();
  for (const node of nodes.values()) {
    for (const series of inputs.get(node) ?? []) {
      const keeper = keeperOf.get(series);
      if (!keeper || keeper === node) continue;
      const list = readers.get(keeper);
      if (list) list.push(node);
      else readers.set(keeper, [node]);
    }
  }
  const onCycle = writtenOnCycles(nodes.values(), readers);
  if (onCycle.length === 0) return;
  const problems: FieldProblem[] = onCycle.map((w) => ({
    field: w.field, index: w.index,
    message: 'the expression reads, through other functions\' targets, the series this function keeps; kept targets cannot form a cycle',
  }));
  throw new BadRequestError(`Invalid target: ${problems.slice(0, 5).map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
}

/** The series ids each function's expression reads (externalIds resolved in one statement). */
async function inputSeries(tx: Queryable, tenant: string, nodes: readonly Node[]): Promise<Map<Node, number[]>> {
  const parsed = nodes.map((node) => {
    const result = parseExpression(node.expression);
    return { node, inputs: result.ok ? result.inputs : [] };
  });
  const externalIds = [...new Set(parsed.flatMap(({ inputs }) => inputs.flatMap((input) => (input.externalId !== undefined ? [input.externalId] : []))))];
  const { rows } = externalIds.length === 0 ? { rows: [] } : await tx.query<{ id: number; external_id: string }>(SERIES_IDS, [tenant, externalIds]);
  const idOf = new Map(rows.map((row) => [row.external_id, Number(row.id)]));
  return new Map(parsed.map(({ node, inputs }) => [node, inputs.flatMap((input) => {
    const id = input.id !== undefined ? input.id : idOf.get(input.externalId as string);
    return id === undefined ? [] : [id];
  })]));
}

/** The written functions that lie on a cycle (Tarjan's strongly connected components, iterative). */
function writtenOnCycles(nodes: Iterable<Node>, readers: ReadonlyMap<Node, Node[]>): KeptFunction[] {
  const index = new Map<Node, number>();
  const low = new Map<Node, number>();
  const stack: Node[] = [];
  const onStack = new Set<Node>();
  const found: KeptFunction[] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: Node; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: Node; next: number };
      const out = readers.get(frame.node) ?? [];
      if (frame.next < out.length) {
        const to = out[frame.next++] as Node;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: Node[] = [];
      for (;;) {
        const member = stack.pop() as Node;
        onStack.delete(member);
        component.push(member);
        if (member === frame.node) break;
      }
      // Self-loops are not edges here (a function reading its own target has its own refusal).
      if (component.length > 1) for (const member of component) if (member.written) found.push(member.written);
    }
  }
  return found.sort((a, b) => a.index - b.index);
}
