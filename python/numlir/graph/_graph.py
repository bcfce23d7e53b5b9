"""GraphsTuple: a batch of graphs as flat arrays, and batching, unbatching and padding.

``nodes``/``edges``/``globals`` are arrays (or pytrees of them) whose first axis runs
over all nodes, edges and graphs; ``senders``/``receivers`` index nodes; ``n_node`` and
``n_edge`` give each graph's counts. Padding to fixed sizes makes any batch jit-stable.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from numlir import tree_util


class GraphsTuple(NamedTuple):
    nodes: Any
    edges: Any
    receivers: Any
    senders: Any
    globals: Any
    n_node: Any
    n_edge: Any


def _concat(nests):
    return tree_util.tree_map(lambda *xs: np.concatenate([np.asarray(x) for x in xs]), *nests)


def batch(graphs: Sequence[GraphsTuple]) -> GraphsTuple:
    """One GraphsTuple holding ``graphs``; senders and receivers are offset to the
    concatenated nodes."""
    offsets = np.cumsum([0] + [int(np.sum(np.asarray(g.n_node))) for g in graphs[:-1]])
    return GraphsTuple(
        nodes=_concat([g.nodes for g in graphs]),
        edges=_concat([g.edges for g in graphs]),
        receivers=np.concatenate([np.asarray(g.receivers) + o for g, o in zip(graphs, offsets)]),
        senders=np.concatenate([np.asarray(g.senders) + o for g, o in zip(graphs, offsets)]),
        globals=_concat([g.globals for g in graphs]),
        n_node=np.concatenate([np.asarray(g.n_node) for g in graphs]),
        n_edge=np.concatenate([np.asarray(g.n_edge) for g in graphs]))


def _split(nest, boundaries):
    return tree_util.tree_map(lambda x: np.split(np.asarray(x), boundaries), nest)


def unbatch(graph: GraphsTuple) -> list[GraphsTuple]:
    """The graphs of a batch, each with its own node numbering (concrete arrays only)."""
    n_node, n_edge = np.asarray(graph.n_node), np.asarray(graph.n_edge)
    node_cuts, edge_cuts = np.cumsum(n_node[:-1]), np.cumsum(n_edge[:-1])
    count = len(n_node)
    parts = {
        "nodes": _split(graph.nodes, node_cuts), "edges": _split(graph.edges, edge_cuts),
        "globals": _split(graph.globals, count),
    }
    senders = np.split(np.asarray(graph.senders), edge_cuts)
    receivers = np.split(np.asarray(graph.receivers), edge_cuts)
    starts = np.concatenate([[0], node_cuts])

    def pick(nest, i):
        return tree_util.tree_map(lambda pieces: pieces[i], nest,
                                  is_leaf=lambda x: isinstance(x, list))

    return [GraphsTuple(nodes=pick(parts["nodes"], i), edges=pick(parts["edges"], i),
                        receivers=receivers[i] - starts[i], senders=senders[i] - starts[i],
                        globals=pick(parts["globals"], i), n_node=n_node[i:i + 1],
                        n_edge=n_edge[i:i + 1])
            for i in range(count)]


def pad_with_graphs(graph: GraphsTuple, n_node: int, n_edge: int, n_graph: int = 2) -> GraphsTuple:
    """``graph`` padded to exactly ``n_node`` nodes, ``n_edge`` edges and ``n_graph``
    graphs: one padding graph takes the spare nodes and edges (its edges join its first
    node to itself), the rest are empty."""
    if n_graph < 2:
        raise ValueError(f"n_graph is {n_graph}, which is smaller than minimum value of 2.")
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
    return batch([graph, padding])


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
