"""What of a walked autograd graph is drawn: runs of ``MIN_REPEATS`` or more identical blocks
(ten identical layers) drawn once in a frame, at most ``max_nodes`` boxes kept in walking order
with one "... N more" box for the rest, and each box's row (its longest distance from an output).

Its input is the walk of ``_graph_walk.py``; its output the nodes, edges and blocks that
``autograd_graph.Graph`` holds.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ._graph_nodes import Block, Node, _shape_key
from ._graph_walk import _Raw

MIN_REPEATS = 3  # a run of identical blocks is collapsed from this many repeats on


def _finish(raw: _Raw, max_nodes: int, collapse: bool) -> tuple[list, list, list, int]:
    """The drawn graph: (nodes, edges, blocks, how many nodes were left out)."""
    keys = list(raw.order)
    inputs = {k: [c for c, _, _ in raw.inputs[k]] for k in keys}
    hidden: set = set()
    block_keys: list[tuple[int, list, int]] = []
    roots = [k for k in keys if raw.nodes[k].is_output]
    redirect: dict = {}  # a hidden repeat's spine vertex -> its stand-in in the drawn block
    if collapse:
        runs, redirect = _find_runs(roots[0], inputs, raw.nodes)
        for _, _, gone in runs:
            hidden |= gone
        # A hidden vertex that a drawn one uses directly (a weight shared by every repeat) is
        # drawn after all; a hidden spine vertex is replaced by its stand-in instead.
        # One pass over a worklist: each vertex made visible is checked once for its own inputs
        # (rescanning every vertex until nothing changes was quadratic on long chains).
        todo = [k for k in keys if k not in hidden]
        while todo:
            k = todo.pop()
            for c in inputs[k]:
                if c in hidden and c not in redirect:
                    hidden.discard(c)
                    todo.append(c)
        for repeats, shown, gone in runs:
            block_keys.append((repeats, shown, len(gone & hidden)))
    edges = []
    for k in keys:
        if k in hidden:
            continue
        for c in inputs[k]:
            c = redirect.get(c, c)
            if c in hidden:
                continue
            edges.append((c, k))
    # Keep the first max_nodes visible vertices in walking order (outputs first).
    visible = [k for k in keys if k not in hidden]
    used: set = set()
    order = []
    by_consumer = {}
    for c, k in edges:
        by_consumer.setdefault(k, []).append(c)
    queue = deque(roots)
    used.update(roots)
    while queue:
        k = queue.popleft()
        order.append(k)
        for c in by_consumer.get(k, ()):
            if c not in used:
                used.add(c)
                queue.append(c)
    left_out = len(visible) - min(len(order), max_nodes)
    kept = order[:max_nodes]
    kept_set = set(kept)
    nodes = []
    new_id = {}
    for k in kept:
        n = raw.nodes[k]
        n.id = new_id[k] = len(nodes)
        nodes.append(n)
    out_edges = list(dict.fromkeys((new_id[c], new_id[k]) for c, k in edges
                                   if c in kept_set and k in kept_set))  # fmt: skip
    if left_out > 0 or not raw.walked_all:
        more = Node(len(nodes), "more", f"... {left_out} more nodes not drawn")
        frontier = {new_id[k] for c, k in edges if k in kept_set and c not in kept_set}
        nodes.append(more)
        out_edges.extend((more.id, f) for f in sorted(frontier))
        left_out = max(left_out, 1)
    blocks = [
        Block(repeats, [new_id[k] for k in shown if k in kept_set], gone)
        for repeats, shown, gone in block_keys
    ]
    blocks = [b for b in blocks if b.node_ids]
    _depths(nodes, out_edges)
    return nodes, out_edges, blocks, max(left_out, 0)


def _depths(nodes: list[Node], edges: list[tuple[int, int]]) -> None:
    """Each node's longest distance from an output (Kahn's order over consumer -> input)."""
    users = {n.id: 0 for n in nodes}
    inputs: dict[int, list] = {n.id: [] for n in nodes}
    for a, b in edges:
        users[a] += 1
        inputs[b].append(a)
    by_id = {n.id: n for n in nodes}
    ready = [i for i, u in users.items() if u == 0]
    for n in nodes:
        n.depth = 0
    while ready:
        i = ready.pop()
        for a in inputs[i]:
            by_id[a].depth = max(by_id[a].depth, by_id[i].depth + 1)
            users[a] -= 1
            if users[a] == 0:
                ready.append(a)


def _find_runs(root: Any, inputs: dict, nodes: dict) -> tuple[list, dict]:
    """Runs of MIN_REPEATS or more identical blocks along the graph's spine.

    The spine: from the output, always into the input with the deepest graph behind it (for a
    stack of layers, the layers). Each spine vertex owns the side vertices only it reaches
    (its parameters, a bias cast, ...). Two spine vertices are alike when their ops, output
    shapes and dtypes, and the side graphs they own (leaf shapes included, names excluded)
    are; a block is a stretch of p spine vertices, and a run is a block repeated. The drawn
    block is the last repeat (nearest the inputs); edges into the hidden repeats go to their
    stand-in in it: returned as (runs, redirect), a run as (repeats, drawn keys, hidden keys)."""
    redirect: dict = {}
    height = _heights(root, inputs, nodes)
    spine = [root]
    at = {root: 0}  # spine vertex -> its position (a dict: membership in O(1), not a list scan)
    while True:
        deeper = [c for c in inputs[spine[-1]] if nodes[c].kind != "leaf"]
        if not deeper:
            break
        nxt = max(deeper, key=lambda c: height[c])
        if nxt in at:  # (cannot happen in a DAG; a guard)
            break
        at[nxt] = len(spine)
        spine.append(nxt)
    owner: dict = {}
    for i, k in enumerate(spine):
        stack = [c for c in inputs[k] if c not in at]
        while stack:
            v = stack.pop()
            if v in owner or v in at:
                continue
            owner[v] = i
            stack.extend(c for c in inputs[v] if c not in at)
    interned: dict = {}
    memo: dict = {}

    def side_sig(v: Any, base: int, depth: int = 0) -> int:
        if (v, base) in memo:
            return memo[v, base]
        n = nodes[v]
        if depth > 50:
            parts: tuple = ("deep", v)
        else:
            kids = tuple(("spine", at[c] - base) if c in at else side_sig(c, base, depth + 1)
                         for c in inputs[v])  # fmt: skip
            parts = (n.kind, n.name if n.kind != "leaf" else "", _shape_key(n.shape), n.dtype,
                     n.segment is not None, kids)  # fmt: skip
        memo[v, base] = interned.setdefault(parts, len(interned))
        return memo[v, base]

    sigs = []
    for i, k in enumerate(spine):
        n = nodes[k]
        kids = tuple(("spine", at[c] - i) if c in at else side_sig(c, i) for c in inputs[k])
        sigs.append(interned.setdefault(
            (n.kind, n.name, _shape_key(n.shape), n.dtype, n.segment is not None, kids),
            len(interned)))  # fmt: skip
    total = len(spine)
    runs = []
    for p in range(1, min(total // MIN_REPEATS, 64) + 1):
        i = 0
        while i + p < total:
            j = i
            while j + p < total and sigs[j] == sigs[j + p]:
                j += 1
            repeats = (j - i) // p + 1
            if repeats >= MIN_REPEATS:
                runs.append(((repeats - 1) * p, p, i, repeats))
                i += repeats * p
            else:
                i += 1
    runs.sort(key=lambda r: (-r[0], r[1]))
    taken: set = set()
    members: dict[int, list] = {}
    for i, k in enumerate(spine):
        members.setdefault(i, []).append(k)
    for v, i in owner.items():
        members[i].append(v)
    found = []
    for _, p, start, repeats in runs:
        span = set(range(start, start + repeats * p))
        if span & taken:
            continue
        taken |= span
        last = start + (repeats - 1) * p
        shown = [v for i in range(last, last + p) for v in members[i]]
        gone = {v for i in range(start, last) for v in members[i]}
        for m in range(start, last):
            redirect[spine[m]] = spine[last + (m - start) % p]
        # A leaf shared with the drawn block (a weight used in every repeat) stays drawn.
        gone -= set(shown)
        found.append((repeats, shown, gone))
    return found, redirect


def _heights(root: Any, inputs: dict, nodes: dict) -> dict:
    """Per vertex, the longest path from it down to a leaf (post-order, without recursion)."""
    height: dict = {}
    stack = [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            height[v] = 1 + max((height.get(c, 0) for c in inputs[v]), default=-1)
            continue
        if v in height:
            continue
        stack.append((v, True))
        stack.extend((c, False) for c in inputs[v] if c not in height)
    return height
