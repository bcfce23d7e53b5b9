"""Graph network models: GraphNetwork (Battaglia et al., 2018), GraphConvolution (GCN) and
GAT, as functions from GraphsTuple to GraphsTuple (jraph's names and semantics).

Under jit the node, edge and graph counts come from array shapes, so padded graphs
(pad_with_graphs) keep every call the same shape.
"""

from __future__ import annotations

import functools

import numlir.nn as nn
import numlir.numpy as jnp
from numlir import lax, tree_util
from numlir.graph import _segments as seg


def _leaves(tree):
    return tree_util.tree_leaves(tree)


def _per_row(values, counts, total: int):
    """Each graph's value repeated for each of its ``counts`` rows (nodes or edges)."""
    return tree_util.tree_map(
        lambda g: jnp.repeat(g, counts, axis=0, total_repeat_length=total), values)


def GraphNetwork(update_edge_fn, update_node_fn, update_global_fn=None,
                 aggregate_edges_for_nodes_fn=seg.segment_sum,
                 aggregate_nodes_for_globals_fn=seg.segment_sum,
                 aggregate_edges_for_globals_fn=seg.segment_sum,
                 attention_logit_fn=None, attention_normalize_fn=seg.segment_softmax,
                 attention_reduce_fn=None):
    """Edge, then node, then global updates; each update sees its neighbours' aggregates."""
    if (attention_logit_fn is None) != (attention_reduce_fn is None):
        raise ValueError("attention_logit_fn and attention_reduce_fn must both be supplied.")

    def apply(graph):
        nodes, edges, receivers, senders, globals_, n_node, n_edge = graph
        sum_n_node = _leaves(nodes)[0].shape[0]
        sum_n_edge = senders.shape[0]
        if any(x.shape[0] != sum_n_node for x in _leaves(nodes)):
            raise ValueError("All node arrays in nest must contain the same number of nodes.")
        sent = tree_util.tree_map(lambda n: n[senders], nodes)
        received = tree_util.tree_map(lambda n: n[receivers], nodes)
        edge_globals = _per_row(globals_, n_edge, sum_n_edge)
        if update_edge_fn:
            edges = update_edge_fn(edges, sent, received, edge_globals)
        if attention_logit_fn:
            logits = attention_logit_fn(edges, sent, received, edge_globals)
            normalize = functools.partial(attention_normalize_fn, segment_ids=receivers,
                                          num_segments=sum_n_node)
            edges = attention_reduce_fn(edges, tree_util.tree_map(normalize, logits))
        if update_node_fn:
            sent = tree_util.tree_map(
                lambda e: aggregate_edges_for_nodes_fn(e, senders, sum_n_node), edges)
            received = tree_util.tree_map(
                lambda e: aggregate_edges_for_nodes_fn(e, receivers, sum_n_node), edges)
            nodes = update_node_fn(nodes, sent, received, _per_row(globals_, n_node, sum_n_node))
        if update_global_fn:
            n_graph = n_node.shape[0]
            graph_ids = jnp.arange(n_graph)
            node_graph = jnp.repeat(graph_ids, n_node, axis=0, total_repeat_length=sum_n_node)
            edge_graph = jnp.repeat(graph_ids, n_edge, axis=0, total_repeat_length=sum_n_edge)
            pooled_nodes = tree_util.tree_map(
                lambda n: aggregate_nodes_for_globals_fn(n, node_graph, n_graph), nodes)
            pooled_edges = tree_util.tree_map(
                lambda e: aggregate_edges_for_globals_fn(e, edge_graph, n_graph), edges)
            globals_ = update_global_fn(pooled_nodes, pooled_edges, globals_)
        return type(graph)(nodes=nodes, edges=edges, receivers=receivers, senders=senders,
                           globals=globals_, n_node=n_node, n_edge=n_edge)

    return apply


def GraphConvolution(update_node_fn, aggregate_nodes_fn=seg.segment_sum,
                     add_self_edges: bool = False, symmetric_normalization: bool = True):
    """Kipf & Welling's GCN: transform the nodes, then sum them over incoming edges,
    normalized by the square roots of sender and receiver degrees."""

    def apply(graph):
        nodes = update_node_fn(graph.nodes)
        total = _leaves(nodes)[0].shape[0]
        senders, receivers = graph.senders, graph.receivers
        if add_self_edges:
            receivers = jnp.concatenate((receivers, jnp.arange(total)), axis=0)
            senders = jnp.concatenate((senders, jnp.arange(total)), axis=0)
        if symmetric_normalization:
            def degree(ids):
                return seg.segment_sum(jnp.ones_like(senders), ids, total)

            sender_degree, receiver_degree = degree(senders), degree(receivers)
            nodes = tree_util.tree_map(
                lambda x: x * lax.rsqrt(jnp.maximum(sender_degree, 1.0))[:, None], nodes)
            nodes = tree_util.tree_map(
                lambda x: aggregate_nodes_fn(x[senders], receivers, total), nodes)
            nodes = tree_util.tree_map(
                lambda x: x * lax.rsqrt(jnp.maximum(receiver_degree, 1.0))[:, None], nodes)
        else:
            nodes = tree_util.tree_map(
                lambda x: aggregate_nodes_fn(x[senders], receivers, total), nodes)
        return graph._replace(nodes=nodes)

    return apply


def GAT(attention_query_fn, attention_logit_fn, node_update_fn=None):
    """Graph attention (Velickovic et al., 2017): each node sums its senders' queries,
    weighted by a softmax of ``attention_logit_fn`` over its incoming edges."""
    if node_update_fn is None:
        def node_update_fn(x):
            return jnp.reshape(nn.leaky_relu(x), (x.shape[0], -1))

    def apply(graph):
        nodes, edges, receivers, senders = graph.nodes, graph.edges, graph.receivers, graph.senders
        if not hasattr(nodes, "shape") or not nodes.shape:
            raise IndexError("GAT requires node features")
        total = nodes.shape[0]
        nodes = attention_query_fn(nodes)
        sent, received = nodes[senders], nodes[receivers]
        weights = seg.segment_softmax(attention_logit_fn(sent, received, edges),
                                      segment_ids=receivers, num_segments=total)
        nodes = seg.segment_sum(sent * weights, receivers, num_segments=total)
        return graph._replace(nodes=node_update_fn(nodes))

    return apply
