// The structure of one tenant's graph held in memory: which nodes are resources, which are
// roots, and which edge joins what. It answers one question for the graph guard: after a
// proposed change, which surviving resources can no root reach any more (SPEC edge rule 7)? Reachability follows edges of any type in their direction and may
// pass through time series and data sets, which are never stranded themselves.
//
// Why the check is local: if every node that loses an incoming edge (or its root flag) is
// still reachable after the change, every node reachable before still is: take any old path
// to it, and its suffix after the last removed element starts at such a node. So a change
// that removes nothing reachable-relevant (deleting a leaf: its edges all end at itself)
// needs no search at all. Otherwise each such node first looks for a root backwards along
// surviving edges (in a plant hierarchy, a few hundred steps find one), and only when that
// fails or grows too wide does one search from every root decide and name the stranded.

export interface GraphEdge {
  id: number;
  start: number;
  end: number;
}

/** What one write did to the structure; every deleted edge row is listed in removedEdges. */
export interface GraphChange {
  /** Resources created. */
  addedNodes?: readonly { id: number; isRoot: boolean }[];
  /** Resources whose root flag was set. */
  rootChanges?: readonly { id: number; isRoot: boolean }[];
  addedEdges?: readonly GraphEdge[];
  removedEdges?: readonly GraphEdge[];
  /** Resources deleted. */
  removedNodes?: readonly number[];
}

export class GraphStructure {
  /** Resource id → is a root. */
  private readonly resources = new Map<number, boolean>();
  /** Edge id → [start, end]. */
  private readonly edges = new Map<number, readonly [number, number]>();
  /** Node id → ids of the edges starting there. */
  private readonly outgoing = new Map<number, number[]>();
  /** Node id → ids of the edges ending there. */
  private readonly incoming = new Map<number, number[]>();

  /** @param version the tenant's graph_versions row this structure reflects. */
  constructor(public version: number) {}

  get edgeCount(): number {
    return this.edges.size;
  }

  get resourceCount(): number {
    return this.resources.size;
  }

  addResource(id: number, isRoot: boolean): void {
    this.resources.set(id, isRoot);
  }

  addEdge(edge: GraphEdge): void {
    if (this.edges.has(edge.id)) return;
    this.edges.set(edge.id, [edge.start, edge.end]);
    listAdd(this.outgoing, edge.start, edge.id);
    listAdd(this.incoming, edge.end, edge.id);
  }

  private removeEdge(id: number): void {
    const edge = this.edges.get(id);
    if (!edge) return;
    this.edges.delete(id);
    listRemove(this.outgoing, edge[0], id);
    listRemove(this.incoming, edge[1], id);
  }

  /** Applies a committed change. */
  apply(change: GraphChange): void {
    for (const edge of change.removedEdges ?? []) this.removeEdge(edge.id);
    for (const id of change.removedNodes ?? []) this.resources.delete(id);
    for (const node of change.addedNodes ?? []) this.resources.set(node.id, node.isRoot);
    for (const { id, isRoot } of change.rootChanges ?? []) if (this.resources.has(id)) this.resources.set(id, isRoot);
    for (const edge of change.addedEdges ?? []) this.addEdge(edge);
  }

  /**
   * The resources `change` would strand, sorted by id: those reachable from no root after it.
   * Empty when the change keeps every resource reachable. Nothing is modified.
   */
  stranded(change: GraphChange): number[] {
    const after = new ChangedView(this, change);
    // Nodes whose reachability the change may have taken away (see the header).
    const suspects = new Set<number>();
    for (const edge of change.removedEdges ?? []) if (!after.removedNodes.has(edge.end)) suspects.add(edge.end);
    for (const { id, isRoot } of change.rootChanges ?? []) if (!isRoot) suspects.add(id);
    const newNodes = (change.addedNodes ?? []).filter((n) => !n.isRoot).map((n) => n.id);
    if (suspects.size === 0 && this.newNodesReachable(after, newNodes)) return [];
    for (const id of newNodes) suspects.add(id);
    const budget = Math.max(BACKWARD_VISITS_MIN, this.resources.size + this.edges.size);
    const unreached = after.unreachedBackwards(suspects, budget);
    if (unreached !== undefined && unreached.size === 0) return [];
    return (unreached && this.strandedBelow(after, unreached, budget)) ?? this.strandedFromRoots(after, suspects);
  }

  /**
   * The stranded resources when some suspects have no path from a root: everything stranded
   * lies in the forward closure F of those suspects. Every surviving resource outside F is
   * still reachable (its old path's suffix starts at a reached suspect, or uses nothing the
   * change removed), so inside F what is reached is what hangs from a root in F or from an
   * edge entering F from a resource outside it (or from a time series or data set outside it
   * that a backward search shows reached). Proportional to F, not to the graph: a refused
   * delete of a site's root walks the site. Undefined when a search ran out of budget.
   */
  private strandedBelow(after: ChangedView, unreached: ReadonlySet<number>, budget: number): number[] | undefined {
    const below = new Set<number>(unreached);
    const stack = [...unreached];
    while (stack.length > 0) {
      after.forEachEnd(stack.pop() as number, (end) => {
        if (!below.has(end)) {
          below.add(end);
          stack.push(end);
        }
      });
    }
    const reached = new Set<number>();
    for (const node of below) {
      let fed = after.isRoot(node);
      if (!fed) {
        const outside: number[] = [];
        after.forEachStart(node, (start) => {
          if (!below.has(start)) outside.push(start);
        });
        for (const start of outside) {
          if (after.isResource(start)) { fed = true; break; }
          const verdict = after.unreachedBackwards([start], budget);
          if (verdict === undefined) return undefined;
          if (verdict.size === 0) { fed = true; break; }
        }
      }
      if (fed) {
        reached.add(node);
        stack.push(node);
      }
    }
    while (stack.length > 0) {
      after.forEachEnd(stack.pop() as number, (end) => {
        if (below.has(end) && !reached.has(end)) {
          reached.add(end);
          stack.push(end);
        }
      });
    }
    return [...below].filter((node) => !reached.has(node) && after.isResource(node)).sort((a, b) => a - b);
  }

  /** The stranded resources by one walk from every root: the fallback when searches run out of budget. */
  private strandedFromRoots(after: ChangedView, suspects: ReadonlySet<number>): number[] {
    const reached = after.reachableFromRoots();
    // Only what lies downstream of an unreached suspect can have been stranded by this change.
    const stranded = new Set<number>();
    const stack = [...suspects].filter((id) => !reached.has(id));
    const seen = new Set(stack);
    while (stack.length > 0) {
      const node = stack.pop() as number;
      if (after.isResource(node)) stranded.add(node);
      after.forEachEnd(node, (end) => {
        if (!reached.has(end) && !seen.has(end)) {
          seen.add(end);
          stack.push(end);
        }
      });
    }
    return [...stranded].sort((a, b) => a - b);
  }

  /**
   * Cheap path for pure additions: new resources are reachable when a walk over the new edges,
   * from new roots and from existing resources (reachable by the invariant), covers them all.
   * False when unsure (a new edge from a time series or data set, whose reachability is not
   * known without a search): the caller then searches.
   */
  private newNodesReachable(after: ChangedView, newNonRoots: number[]): boolean {
    if (newNonRoots.length === 0) return true;
    const pending = new Set(newNonRoots);
    const added = new Map<number, number[]>();
    const stack: number[] = [];
    for (const node of after.change.addedNodes ?? []) if (node.isRoot) stack.push(node.id);
    for (const edge of after.change.addedEdges ?? []) {
      const list = added.get(edge.start);
      if (list) list.push(edge.end);
      else added.set(edge.start, [edge.end]);
      if (this.resources.has(edge.start) && !after.removedNodes.has(edge.start)) stack.push(edge.start);
      else if (!after.isResource(edge.start) && pending.has(edge.end)) return false;
    }
    const seen = new Set(stack);
    while (stack.length > 0 && pending.size > 0) {
      const node = stack.pop() as number;
      pending.delete(node);
      for (const end of added.get(node) ?? []) {
        if (!seen.has(end)) {
          seen.add(end);
          stack.push(end);
        }
      }
    }
    return pending.size === 0;
  }

  /** @internal ChangedView's access to the base structure. */
  baseResources(): ReadonlyMap<number, boolean> {
    return this.resources;
  }

  /** @internal */
  baseEdge(id: number): readonly [number, number] | undefined {
    return this.edges.get(id);
  }

  /** @internal */
  baseOutgoing(node: number): readonly number[] | undefined {
    return this.outgoing.get(node);
  }

  /** @internal */
  baseIncoming(node: number): readonly number[] | undefined {
    return this.incoming.get(node);
  }
}

/** Backward searches may visit at least this many nodes in all before the search from the roots takes over. */
const BACKWARD_VISITS_MIN = 10_000;

function listAdd(lists: Map<number, number[]>, key: number, id: number): void {
  const list = lists.get(key);
  if (list) list.push(id);
  else lists.set(key, [id]);
}

function listRemove(lists: Map<number, number[]>, key: number, id: number): void {
  const list = lists.get(key);
  if (!list) return;
  const at = list.indexOf(id);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) lists.delete(key);
}

/** The structure as a change would leave it, without modifying it. */
class ChangedView {
  readonly removedNodes: ReadonlySet<number>;
  private readonly removedEdges: ReadonlySet<number>;
  private readonly addedOut = new Map<number, number[]>();
  private readonly addedIn = new Map<number, number[]>();
  private readonly addedResources: ReadonlyMap<number, boolean>;
  private readonly rootChanges: ReadonlyMap<number, boolean>;

  constructor(private readonly base: GraphStructure, readonly change: GraphChange) {
    this.removedNodes = new Set(change.removedNodes ?? []);
    this.removedEdges = new Set((change.removedEdges ?? []).map((e) => e.id));
    for (const edge of change.addedEdges ?? []) {
      listAdd(this.addedOut, edge.start, edge.end);
      listAdd(this.addedIn, edge.end, edge.start);
    }
    this.addedResources = new Map((change.addedNodes ?? []).map((n) => [n.id, n.isRoot]));
    this.rootChanges = new Map((change.rootChanges ?? []).map((c) => [c.id, c.isRoot]));
  }

  isResource(id: number): boolean {
    if (this.removedNodes.has(id)) return false;
    return this.addedResources.has(id) || this.base.baseResources().has(id);
  }

  forEachEnd(node: number, visit: (end: number) => void): void {
    if (this.removedNodes.has(node)) return;
    for (const edgeId of this.base.baseOutgoing(node) ?? []) {
      if (this.removedEdges.has(edgeId)) continue;
      const end = (this.base.baseEdge(edgeId) as readonly [number, number])[1];
      if (!this.removedNodes.has(end)) visit(end);
    }
    for (const end of this.addedOut.get(node) ?? []) if (!this.removedNodes.has(end)) visit(end);
  }

  forEachStart(node: number, visit: (start: number) => void): void {
    if (this.removedNodes.has(node)) return;
    for (const edgeId of this.base.baseIncoming(node) ?? []) {
      if (this.removedEdges.has(edgeId)) continue;
      const start = (this.base.baseEdge(edgeId) as readonly [number, number])[0];
      if (!this.removedNodes.has(start)) visit(start);
    }
    for (const start of this.addedIn.get(node) ?? []) if (!this.removedNodes.has(start)) visit(start);
  }

  isRoot(id: number): boolean {
    if (this.removedNodes.has(id)) return false;
    const changed = this.rootChanges.get(id);
    if (changed !== undefined) return changed && this.isResource(id);
    return this.addedResources.get(id) ?? this.base.baseResources().get(id) ?? false;
  }

  /** Nodes known reached from a root after the change, and nodes known not to be (their whole backward closure has no root). */
  private readonly reachedMemo = new Set<number>();
  private readonly deadMemo = new Set<number>();
  private visits = 0;

  /**
   * The targets no root reaches after the change, found by searching backwards from each
   * (what one search learns serves the next: a reached node ends a search, and every node a
   * failed search saw is itself unreachable). Undefined when the searches together visit
   * more than `budget` nodes.
   */
  unreachedBackwards(targets: Iterable<number>, budget: number): Set<number> | undefined {
    const unreached = new Set<number>();
    for (const target of targets) {
      if (this.reachedMemo.has(target)) continue;
      if (this.deadMemo.has(target)) {
        unreached.add(target);
        continue;
      }
      const seen = new Set<number>([target]);
      const queue = [target];
      let found = false;
      for (let head = 0; head < queue.length && !found; head++) {
        const node = queue[head] as number;
        if (this.reachedMemo.has(node) || this.isRoot(node)) {
          found = true;
          break;
        }
        if (++this.visits > budget) return undefined;
        this.forEachStart(node, (start) => {
          if (!seen.has(start) && !this.deadMemo.has(start)) {
            seen.add(start);
            queue.push(start);
          }
        });
      }
      if (found) {
        this.reachedMemo.add(target);
      } else {
        for (const node of seen) this.deadMemo.add(node);
        unreached.add(target);
      }
    }
    return unreached;
  }

  reachableFromRoots(): Set<number> {
    const reached = new Set<number>();
    const stack: number[] = [];
    const consider = (id: number, isRoot: boolean) => {
      const root = this.rootChanges.get(id) ?? isRoot;
      if (root && !this.removedNodes.has(id) && !reached.has(id)) {
        reached.add(id);
        stack.push(id);
      }
    };
    for (const [id, isRoot] of this.base.baseResources()) consider(id, isRoot);
    for (const [id, isRoot] of this.addedResources) consider(id, isRoot);
    while (stack.length > 0) {
      const node = stack.pop() as number;
      this.forEachEnd(node, (end) => {
        if (!reached.has(end)) {
          reached.add(end);
          stack.push(end);
        }
      });
    }
    return reached;
  }
}
