// Goal: GraphStructure.stranded names exactly the resources a change leaves unreachable from
// every root, and apply() leaves the structure a fresh load of the changed graph would be.
// Method: fast-check builds random graphs of resources (some roots), time series and data
// sets (never stranded, but paths pass through them) that satisfy the invariant, and random
// changes (edges and resources removed with every edge they touch, roots demoted or promoted,
// resources and edges added); an independent search from the roots over plain arrays is the
// oracle.
import fc from 'fast-check';
import t from 'tap';
import { GraphStructure, type GraphChange, type GraphEdge } from './graph-structure.ts';

interface PlainGraph {
  resources: Map<number, boolean>;
  others: number[];
  edges: GraphEdge[];
}

function unreachableResources(g: PlainGraph): number[] {
  const reached = new Set<number>([...g.resources].filter(([, root]) => root).map(([id]) => id));
  let grew = true;
  while (grew) {
    grew = false;
    for (const e of g.edges) {
      if (reached.has(e.start) && !reached.has(e.end)) {
        reached.add(e.end);
        grew = true;
      }
    }
  }
  return [...g.resources.keys()].filter((id) => !reached.has(id)).sort((a, b) => a - b);
}

function load(g: PlainGraph): GraphStructure {
  const s = new GraphStructure(0);
  for (const [id, root] of g.resources) s.addResource(id, root);
  for (const e of g.edges) s.addEdge(e);
  return s;
}

function applyPlain(g: PlainGraph, change: GraphChange): PlainGraph {
  const removedEdges = new Set((change.removedEdges ?? []).map((e) => e.id));
  const removedNodes = new Set(change.removedNodes ?? []);
  const resources = new Map([...g.resources].filter(([id]) => !removedNodes.has(id)));
  for (const n of change.addedNodes ?? []) resources.set(n.id, n.isRoot);
  for (const c of change.rootChanges ?? []) if (resources.has(c.id)) resources.set(c.id, c.isRoot);
  return { resources, others: g.others, edges: [...g.edges.filter((e) => !removedEdges.has(e.id)), ...(change.addedEdges ?? [])] };
}

const graphAndChange = fc.record({
  resources: fc.integer({ min: 1, max: 40 }),
  others: fc.integer({ min: 0, max: 6 }),
  rootShare: fc.double({ min: 0, max: 0.3, noNaN: true }),
  edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 90 }),
  seed: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 64, maxLength: 64 }),
  removeEdgeShare: fc.double({ min: 0, max: 0.5, noNaN: true }),
  removeNodeShare: fc.double({ min: 0, max: 0.3, noNaN: true }),
  added: fc.integer({ min: 0, max: 6 }),
  addedEdges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 12 }),
}).map((p) => {
  let k = 0;
  const rand = () => (p.seed[k++ % p.seed.length] as number);
  const resources = new Map<number, boolean>();
  for (let id = 1; id <= p.resources; id++) resources.set(id, rand() < p.rootShare);
  const others = Array.from({ length: p.others }, (_, i) => 1000 + i);
  const nodes = [...resources.keys(), ...others];
  let edgeId = 1;
  const edges = p.edges.map(([a, b]) => ({ id: edgeId++, start: nodes[a % nodes.length] as number, end: nodes[b % nodes.length] as number }));
  const base: PlainGraph = { resources, others, edges };
  // The invariant every stored graph keeps: a resource no root reaches becomes a root.
  for (const id of unreachableResources(base)) resources.set(id, true);
  const removedNodes = [...resources.keys()].filter(() => rand() < p.removeNodeShare);
  const gone = new Set(removedNodes);
  const removedEdges = edges.filter((e) => gone.has(e.start) || gone.has(e.end) || rand() < p.removeEdgeShare);
  const survivors = [...resources.keys()].filter((id) => !gone.has(id));
  const rootChanges = survivors.filter(() => rand() < 0.15).map((id) => ({ id, isRoot: rand() < 0.3 }));
  const addedNodes = Array.from({ length: p.added }, (_, i) => ({ id: 500 + i, isRoot: rand() < 0.2 }));
  const ends = [...survivors, ...others, ...addedNodes.map((n) => n.id)];
  const addedEdges = p.addedEdges.map(([a, b]) => ({ id: edgeId++, start: ends[a % ends.length] as number, end: ends[b % ends.length] as number }));
  const change: GraphChange = { removedNodes, removedEdges, rootChanges, addedNodes, addedEdges };
  return { base, change };
});

t.test('stranded() names exactly the resources no root reaches after the change', async (t) => {
  fc.assert(fc.property(graphAndChange, ({ base, change }) => {
    const expected = unreachableResources(applyPlain(base, change));
    const actual = load(base).stranded(change);
    if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`stranded ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }), { numRuns: 2_000 });
  t.pass('2,000 random graphs and changes agree with the oracle');
});

t.test('apply() leaves the structure a fresh load of the changed graph would be', async (t) => {
  fc.assert(fc.property(graphAndChange, graphAndChange, ({ base, change }, next) => {
    const applied = load(base);
    applied.apply(change);
    const after = applyPlain(base, change);
    const fresh = load(after);
    // Probe both with a second change over the changed graph's own ids.
    const ids = [...after.resources.keys()];
    const removedNodes = ids.filter((_, i) => (next.change.removedNodes ?? []).length > i % 7 && i % 3 === 0);
    const gone = new Set(removedNodes);
    const probe: GraphChange = {
      removedNodes,
      removedEdges: after.edges.filter((e, i) => gone.has(e.start) || gone.has(e.end) || i % 4 === 1),
      rootChanges: ids.filter((_, i) => i % 5 === 2).map((id) => ({ id, isRoot: false })),
    };
    const a = JSON.stringify(applied.stranded(probe));
    const b = JSON.stringify(fresh.stranded(probe));
    if (a !== b) throw new Error(`applied ${a}, fresh ${b}`);
    if (applied.edgeCount !== fresh.edgeCount || applied.resourceCount !== fresh.resourceCount) throw new Error('counts differ');
  }), { numRuns: 500 });
  t.pass('500 applied changes match a fresh load');
});

t.test('a leaf delete needs no search; a removed hierarchy edge strands the subtree below it', async (t) => {
  // root 1 → 2 → 3 → 4, and 1 → 5 → 4 (4 has two parents).
  const s = new GraphStructure(0);
  s.addResource(1, true);
  for (const id of [2, 3, 4, 5]) s.addResource(id, false);
  const e = (id: number, start: number, end: number) => ({ id, start, end });
  for (const edge of [e(1, 1, 2), e(2, 2, 3), e(3, 3, 4), e(4, 1, 5), e(5, 5, 4)]) s.addEdge(edge);
  t.same(s.stranded({ removedNodes: [4], removedEdges: [e(3, 3, 4), e(5, 5, 4)] }), [], 'a leaf');
  t.same(s.stranded({ removedEdges: [e(1, 1, 2)] }), [2, 3], 'the edge above 2 strands 2 and 3; 4 keeps its path through 5');
  t.same(s.stranded({ removedEdges: [e(1, 1, 2), e(4, 1, 5)] }), [2, 3, 4, 5], 'both paths to 4 cut');
  t.same(s.stranded({ removedNodes: [2, 3], removedEdges: [e(1, 1, 2), e(2, 2, 3), e(3, 3, 4)] }), [], 'a subtree deleted whole');
  t.same(s.stranded({ rootChanges: [{ id: 1, isRoot: false }] }), [1, 2, 3, 4, 5], 'the only root demoted');
  t.same(s.stranded({ addedNodes: [{ id: 6, isRoot: false }] }), [6], 'a new resource nothing points at');
  t.same(s.stranded({ addedNodes: [{ id: 6, isRoot: false }, { id: 7, isRoot: false }], addedEdges: [e(6, 4, 6), e(7, 6, 7)] }), [], 'new resources hung below an existing one');
  t.same(s.stranded({ addedNodes: [{ id: 6, isRoot: false }], addedEdges: [e(6, 900, 6)] }), [6], 'below a time series no root reaches');
  s.addEdge(e(8, 3, 900));
  t.same(s.stranded({ addedNodes: [{ id: 6, isRoot: false }], addedEdges: [e(6, 900, 6)] }), [], 'below a time series a root reaches');
});
