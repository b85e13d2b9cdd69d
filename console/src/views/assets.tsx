// The asset tree: root resources, children (outgoing CONTAINS edges) loaded on expand, and the
// WAI-ARIA tree keyboard model (arrows move, expand and collapse; Enter opens; Home/End).
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiPost, errorMessage } from '../api.ts';
import { displayName } from '../format.ts';
import type { EdgePage, GraphNode, Page, Resource } from '../types.ts';
import { useApi } from '../use-api.ts';
import { ApiErrorAlert, Loading } from './api-error.tsx';

const ROOTS_MAX = 1000;
const CHILDREN_MAX = 1000;

interface TreeNode { id: number; name: string }

async function fetchChildren(id: number): Promise<TreeNode[]> {
  const page = await apiPost<EdgePage>('/edges/filter', { filter: { startId: id, type: 'CONTAINS' }, limit: CHILDREN_MAX });
  const nodes = new Map<number, GraphNode>((page.nodes ?? []).map((node) => [node.id, node]));
  return page.items
    .map((edge) => nodes.get(edge.end) ?? { id: edge.end, kind: 'resource' as const })
    .filter((node) => node.kind === 'resource')
    .map((node) => ({ id: node.id, name: displayName(node) }));
}

/** The items a keyboard user can reach: roots and the children of expanded items, in order. */
function visibleItems(roots: TreeNode[], expanded: Set<number>, children: Map<number, TreeNode[]>, parentOf: Map<string, number | null>, path = ''): string[] {
  const keys: string[] = [];
  for (const node of roots) {
    const key = `${path}/${node.id}`;
    keys.push(key);
    parentOf.set(key, null);
    if (expanded.has(node.id)) {
      for (const child of visibleItems(children.get(node.id) ?? [], expanded, children, parentOf, key)) {
        if (!parentOf.get(child)) parentOf.set(child, node.id);
        keys.push(child);
      }
    }
  }
  return keys;
}

export function AssetsView() {
  const roots = useApi((signal) => apiPost<Page<Resource>>('/resources/filter', { filter: { isRoot: true }, limit: ROOTS_MAX }, signal), []);
  const [expanded, setExpanded] = useState<Set<number>>(new Set());
  const [children, setChildren] = useState<Map<number, TreeNode[]>>(new Map());
  const [loadingIds, setLoadingIds] = useState<Set<number>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const tree = useRef<HTMLUListElement>(null);

  const rootNodes = (roots.data?.items ?? []).map((resource) => ({ id: resource.id, name: displayName(resource) }));
  const parentOf = new Map<string, number | null>();
  const order = visibleItems(rootNodes, expanded, children, parentOf);
  const activeKey = focusKey && order.includes(focusKey) ? focusKey : order[0] ?? null;

  useEffect(() => {
    if (!focusKey) return;
    tree.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
  }, [focusKey]);

  const setOpen = async (id: number, open: boolean) => {
    const next = new Set(expanded);
    if (!open) { next.delete(id); setExpanded(next); return; }
    next.add(id);
    setExpanded(next);
    if (children.has(id)) return;
    setLoadingIds((ids) => new Set(ids).add(id));
    try {
      const loaded = await fetchChildren(id);
      setChildren((known) => new Map(known).set(id, loaded));
    } catch (failure) {
      setError(errorMessage(failure));
      setExpanded((ids) => { const without = new Set(ids); without.delete(id); return without; });
    } finally {
      setLoadingIds((ids) => { const without = new Set(ids); without.delete(id); return without; });
    }
  };

  const onKeyDown = (event: KeyboardEvent, key: string, id: number) => {
    const at = order.indexOf(key);
    const isLeaf = children.get(id)?.length === 0;
    const moves: Record<string, () => void> = {
      ArrowDown: () => setFocusKey(order[Math.min(order.length - 1, at + 1)] ?? key),
      ArrowUp: () => setFocusKey(order[Math.max(0, at - 1)] ?? key),
      Home: () => setFocusKey(order[0] ?? key),
      End: () => setFocusKey(order[order.length - 1] ?? key),
      ArrowRight: () => { if (!expanded.has(id)) { if (!isLeaf) void setOpen(id, true); } else setFocusKey(order[at + 1]?.startsWith(`${key}/`) ? order[at + 1]! : key); },
      ArrowLeft: () => {
        if (expanded.has(id)) { void setOpen(id, false); return; }
        const parentKey = key.slice(0, key.lastIndexOf('/'));
        if (parentKey) setFocusKey(parentKey);
      },
      Enter: () => { location.hash = `#/assets/${id}`; },
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    event.stopPropagation();
    move();
  };

  const renderNodes = (nodes: TreeNode[], path: string, level: number) => nodes.map((node) => {
    const key = `${path}/${node.id}`;
    const known = children.get(node.id);
    const isOpen = expanded.has(node.id);
    return (
      <li key={key} role="treeitem" data-key={key} aria-level={level} tabIndex={key === activeKey ? 0 : -1}
        aria-expanded={known && known.length === 0 ? undefined : isOpen} aria-busy={loadingIds.has(node.id) || undefined}
        onKeyDown={(e) => onKeyDown(e, key, node.id)} onFocus={(e) => { if (e.target === e.currentTarget) setFocusKey(key); }}>
        <span class="tree-row">
          {known && known.length === 0
            ? <span class="tree-toggle" aria-hidden="true" />
            : <button type="button" class="tree-toggle" tabIndex={-1} aria-hidden="true" onClick={() => void setOpen(node.id, !isOpen)}>{isOpen ? '▾' : '▸'}</button>}
          <a href={`#/assets/${node.id}`} tabIndex={-1}>{node.name}</a>
          {loadingIds.has(node.id) && <span class="muted"> loading…</span>}
        </span>
        {isOpen && known && known.length > 0 && <ul role="group">{renderNodes(known, key, level + 1)}</ul>}
      </li>
    );
  });

  return (
    <section>
      <h1>Assets</h1>
      <ApiErrorAlert message={roots.error ?? error} />
      {roots.loading && !roots.data && <Loading what="root resources" />}
      {roots.data && rootNodes.length === 0 && <p>No root resources.</p>}
      {rootNodes.length > 0 && (
        <ul role="tree" aria-label="Asset tree" class="tree" ref={tree}>{renderNodes(rootNodes, '', 1)}</ul>
      )}
    </section>
  );
}
