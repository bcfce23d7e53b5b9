"""GraphsTuple: a batch of graphs as flat arrays, and batching, unbatching and padding.

``nodes``/``edges``/``globals`` are arrays (or pytrees of them) whose first axis runs
over all nodes, edges and graphs; ``senders``/``receivers`` index nodes; ``n_node`` and
``n_edge`` give each graph's counts. Padding to fixed sizes makes any batch jit-stable.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

import numlir.numpy as jnp
from numlir import device_get, tree_util


class GraphsTuple(NamedTuple):
    nodes: Any
    edges: Any
    receivers: Any
    senders: Any
    globals: Any
    n_node: Any
    n_edge: Any


def _concat(xnp, nests):
    return tree_util.tree_map(lambda *xs: xnp.concatenate(xs), *nests)


def _batch(xnp, graphs: Sequence[GraphsTuple]) -> GraphsTuple:
    """``graphs`` as one GraphsTuple, computed with the array module ``xnp``.

    The module decides the dtypes, so it is the one jraph uses for the same function:
    ``batch`` runs on numlir.numpy as jraph's runs on jax.numpy (canonical dtypes: int32
    indices and counts without x64, whatever NumPy's int64 came in), and ``pad_with_graphs``
    on NumPy as jraph's does (its offsets are NumPy sums, so its indices come out int64).
    Senders and receivers are offset by the nodes of the graphs before them."""
    node_counts = [xnp.sum(g.n_node) for g in graphs[:-1]]
    offsets = xnp.cumsum(xnp.array([0] + node_counts))

    def indices(field):
        return xnp.concatenate([getattr(g, field) + o for g, o in zip(graphs, offsets)])

    return GraphsTuple(
        nodes=_concat(xnp, [g.nodes for g in graphs]),
        edges=_concat(xnp, [g.edges for g in graphs]),
        receivers=indices("receivers"), senders=indices("senders"),
        globals=_concat(xnp, [g.globals for g in graphs]),
        n_node=xnp.concatenate([g.n_node for g in graphs]),
        n_edge=xnp.concatenate([g.n_edge for g in graphs]))


def batch(graphs: Sequence[GraphsTuple]) -> GraphsTuple:
    """One GraphsTuple holding ``graphs`` (numlir arrays, with jraph's dtypes); senders and
    receivers are offset to the concatenated nodes."""
    return _batch(jnp, graphs)


def _split(nest, cuts, count: int) -> list:
    """``count`` nests, the i-th holding piece i of every leaf of ``nest`` split at ``cuts``."""
    pieces = tree_util.tree_map(lambda x: jnp.split(x, cuts), nest)
    return [tree_util.tree_map(lambda _, parts, i=i: parts[i], nest, pieces)
            for i in range(count)]


def unbatch(graph: GraphsTuple) -> list[GraphsTuple]:
    """The graphs of a batch, each with its own node numbering (concrete arrays only).

    As jraph's: the pieces are numlir arrays; ``n_node``/``n_edge`` are rows of the batch's
    own arrays (shape ``(1,)``), and only the graphs after the first have their node offset
    subtracted, so under x64 the first keeps its index dtype where the rest promote."""
    count = graph.n_node.shape[0]
    node_cuts, edge_cuts = jnp.cumsum(graph.n_node[:-1]), jnp.cumsum(graph.n_edge[:-1])
    nodes, edges = _split(graph.nodes, node_cuts, count), _split(graph.edges, edge_cuts, count)
    globals_ = _split(graph.globals, count, count)
    senders = jnp.split(graph.senders, edge_cuts)
    receivers = jnp.split(graph.receivers, edge_cuts)
    for i in range(1, count):
        senders[i] = senders[i] - node_cuts[i - 1]
        receivers[i] = receivers[i] - node_cuts[i - 1]
    return [GraphsTuple(nodes=nodes[i], edges=edges[i], receivers=receivers[i],
                        senders=senders[i], globals=globals_[i], n_node=n_node, n_edge=n_edge)
            for i, (n_node, n_edge) in enumerate(zip(graph.n_node[:, None],
                                                      graph.n_edge[:, None]))]


def pad_with_graphs(graph: GraphsTuple, n_node: int, n_edge: int, n_graph: int = 2) -> GraphsTuple:
    """``graph`` padded to exactly ``n_node`` nodes, ``n_edge`` edges and ``n_graph``
    graphs: one padding graph takes the spare nodes and edges (its edges join its first
    node to itself), the rest are empty. Computed on the host in NumPy, as jraph pads: the
    result is NumPy arrays with jraph's dtypes (int64 senders and receivers)."""
    if n_graph < 2:
        raise ValueError(f"n_graph is {n_graph}, which is smaller than minimum value of 2.")
    graph = device_get(graph)
    pad_nodes = int(n_node - np.sum(np.asarray(graph.n_node)))
    pad_edges = int(n_edge - np.sum(np.asarray(graph.n_edge)))
    pad_graphs = int(n_graph - np.asarray(graph.n_node).shape[0])
    if pad_nodes <= 0 or pad_edges < 0 or pad_graphs <= 0:
        raise RuntimeError("Given graph is too large for the given padding. difference: "
                           f"n_node {pad_nodes}, n_edge {pad_edges}, n_graph {pad_graphs}")

    def zeros(count):
        return lambda leaf: np.zeros((count,) + np.shape(leaf)[1:], np.asarray(leaf).dtype)

    empty = np.zeros(pad_graphs - 1, np.int32)
    padding = GraphsTuple(
        nodes=tree_util.tree_map(zeros(pad_nodes), graph.nodes),
        edges=tree_util.tree_map(zeros(pad_edges), graph.edges),
        receivers=np.zeros(pad_edges, np.int32), senders=np.zeros(pad_edges, np.int32),
        globals=tree_util.tree_map(zeros(pad_graphs), graph.globals),
        n_node=np.concatenate([np.array([pad_nodes], np.int32), empty]),
        n_edge=np.concatenate([np.array([pad_edges], np.int32), empty]))
    return _batch(np, [graph, padding])


def get_graph_padding_mask(padded_graph: GraphsTuple):
    """True for the real graphs of a pad_with_graphs result (all but the trailing padding)."""
    n_graph = np.asarray(padded_graph.n_node).shape[0]
    n_padding = _padding_graphs(padded_graph)
    return np.arange(n_graph) < n_graph - n_padding


def _padding_graphs(padded: GraphsTuple) -> int:
    # The trailing empty graphs, plus the padding graph that holds the spare nodes.
    n_node = np.asarray(padded.n_node)
    trailing = 0
    for count in n_node[::-1]:
        if count != 0:
            break
        trailing += 1
    return trailing + 1


def get_node_padding_mask(padded_graph: GraphsTuple):
    n_node = np.asarray(padded_graph.n_node)
    real = int(np.sum(n_node[:len(n_node) - _padding_graphs(padded_graph)]))
    return np.arange(int(np.sum(n_node))) < real


def get_edge_padding_mask(padded_graph: GraphsTuple):
    n_node, n_edge = np.asarray(padded_graph.n_node), np.asarray(padded_graph.n_edge)
    real = int(np.sum(n_edge[:len(n_node) - _padding_graphs(padded_graph)]))
    return np.arange(int(np.sum(n_edge))) < real
