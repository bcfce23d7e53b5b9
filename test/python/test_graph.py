"""numlir.graph gives jraph's batches, paddings, segment reductions and model outputs."""

import jax
import jax.numpy as jjnp
import jraph
import numpy as np
import pytest

import numlir
import numlir.graph as ng
import numlir.numpy as jnp

RNG = np.random.default_rng(3)


def _graph(lib, n_node, n_edge, feat=3):
    nodes = RNG.normal(size=(n_node, feat)).astype(np.float32)
    edges = RNG.normal(size=(n_edge, 2)).astype(np.float32)
    senders = RNG.integers(0, n_node, n_edge).astype(np.int32)
    receivers = RNG.integers(0, n_node, n_edge).astype(np.int32)
    return lib.GraphsTuple(nodes=nodes, edges=edges, senders=senders, receivers=receivers,
                           globals=RNG.normal(size=(1, 4)).astype(np.float32),
                           n_node=np.array([n_node], np.int32), n_edge=np.array([n_edge], np.int32))


def _as(lib, g):
    return lib.GraphsTuple(*[np.asarray(x) for x in g])


GRAPHS = [_graph(ng, 4, 5), _graph(ng, 2, 1), _graph(ng, 3, 0)]


def _assert_graphs_equal(a, b):
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)


def test_batch_unbatch_and_padding_match_jraph():
    ours = ng.batch(GRAPHS)
    theirs = jraph.batch([_as(jraph, g) for g in GRAPHS])
    _assert_graphs_equal(ours, theirs)
    for a, b in zip(ng.unbatch(ours), jraph.unbatch(theirs)):
        _assert_graphs_equal(a, b)
    padded = ng.pad_with_graphs(ours, n_node=12, n_edge=9, n_graph=5)
    want = jraph.pad_with_graphs(theirs, n_node=12, n_edge=9, n_graph=5)
    _assert_graphs_equal(padded, want)
    for ours_fn, theirs_fn in ((ng.get_graph_padding_mask, jraph.get_graph_padding_mask),
                               (ng.get_node_padding_mask, jraph.get_node_padding_mask),
                               (ng.get_edge_padding_mask, jraph.get_edge_padding_mask)):
        np.testing.assert_array_equal(ours_fn(padded), np.asarray(theirs_fn(want)))
        # jraph's parameter name, so keyword calls written for jraph run unchanged
        np.testing.assert_array_equal(ours_fn(padded_graph=padded),
                                      np.asarray(theirs_fn(padded_graph=want)))
    with pytest.raises(RuntimeError, match="too large"):
        ng.pad_with_graphs(ours, n_node=9, n_edge=9, n_graph=5)


@pytest.mark.parametrize("name", ["segment_sum", "segment_mean", "segment_max", "segment_softmax"])
def test_segment_reductions_match_jraph(name):
    data = RNG.normal(size=(7, 3)).astype(np.float32)
    ids = np.array([0, 2, 2, 4, 0, 2, 4], np.int32)  # segments 1 and 3 are empty
    theirs = getattr(jraph, name) if hasattr(jraph, name) else getattr(jax.ops, name)
    want = np.asarray(theirs(data, ids, 5))
    for f in (getattr(ng, name), numlir.jit(getattr(ng, name), static_argnums=2)):
        np.testing.assert_allclose(np.asarray(f(data, ids, 5)), want, rtol=1e-5, atol=1e-6)


def _models(lib, jnp_mod):
    def edge_fn(edges, sent, received, globals_):
        return jnp_mod.concatenate([edges, sent * received, globals_[:, :1]], axis=1)

    def node_fn(nodes, sent, received, globals_):
        return jnp_mod.tanh(nodes + sent[:, :3] - received[:, :3]) * globals_[:, 1:2]

    def global_fn(nodes, edges, globals_):
        return globals_ + jnp_mod.sum(nodes, axis=1, keepdims=True) + edges[:, :1]

    return {
        "graph_network": lib.GraphNetwork(edge_fn, node_fn, global_fn),
        "graph_network_mean_max": lib.GraphNetwork(
            edge_fn, node_fn, global_fn,
            aggregate_edges_for_nodes_fn=lib.segment_mean,
            aggregate_nodes_for_globals_fn=lib.segment_max),
        "gcn": lib.GraphConvolution(lambda n: n * 2.0, add_self_edges=True),
        "gcn_plain": lib.GraphConvolution(lambda n: n + 1.0, symmetric_normalization=False),
        "gat": lib.GAT(lambda n: n * 0.5,
                       lambda s, r, e: jnp_mod.sum(s * r, axis=1, keepdims=True)),
    }


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", list(_models(ng, jnp)))
def test_models_match_jraph_on_a_padded_batch(name, jit):
    padded = ng.pad_with_graphs(ng.batch(GRAPHS), n_node=12, n_edge=9, n_graph=5)
    ours = _models(ng, jnp)[name]
    theirs = _models(jraph, jjnp)[name]
    want = theirs(jraph.GraphsTuple(*[jjnp.asarray(x) for x in padded]))
    got = (numlir.jit(ours) if jit else ours)(ng.GraphsTuple(*[jnp.asarray(x) for x in padded]))
    _assert_graphs_equal(got, want)


def test_repeat_with_traced_counts_and_a_static_length_matches_jax():
    for counts, total in (([2, 0, 3], 5), ([2, 0, 3], 3), ([2, 0, 3], 8), (2, 7)):
        got = numlir.jit(lambda x, c: jnp.repeat(x, c, axis=0, total_repeat_length=total))(
            jnp.arange(3.0), jnp.asarray(counts))
        want = jax.jit(lambda x, c: jjnp.repeat(x, c, axis=0, total_repeat_length=total))(
            jjnp.arange(3.0), jjnp.asarray(counts))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    with pytest.raises(numlir.ConcretizationTypeError, match="total_repeat_length"):
        numlir.jit(lambda x, c: jnp.repeat(x, c))(jnp.arange(3.0), jnp.asarray([1, 1, 1]))


def _typed_graphs(lib, xnp, index_dtype, float_dtype):
    """Three graphs (one without edges) whose arrays come from ``xnp`` (NumPy, or the
    library's own array module) in the given dtypes (None: the module's defaults)."""
    index_dtype = index_dtype or int  # an edgeless graph's index lists are empty, not float

    def one(n_node, edges):
        return lib.GraphsTuple(
            nodes=xnp.ones((n_node, 2), float_dtype), edges=xnp.ones((len(edges), 1), float_dtype),
            senders=xnp.array([s for s, _ in edges], index_dtype),
            receivers=xnp.array([r for _, r in edges], index_dtype),
            globals=xnp.ones((1, 3), float_dtype),
            n_node=xnp.array([n_node], index_dtype), n_edge=xnp.array([len(edges)], index_dtype))

    return [one(3, [(0, 1), (2, 0)]), one(2, [(1, 0)]), one(1, [])]


def _assert_same_fields(ours, theirs, where):
    """Every field of ``ours`` has the kind (NumPy or a library array), dtype, shape and
    values of jraph's."""
    for field in ours._fields:
        a, b = getattr(ours, field), getattr(theirs, field)
        got = (isinstance(a, np.ndarray), np.asarray(a).dtype, np.shape(a))
        want = (isinstance(b, np.ndarray), np.asarray(b).dtype, np.shape(b))
        assert got == want, (where, field, got, want)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


GRAPH_INPUTS = {  # how the graphs' arrays are made: NumPy defaults (int64, float64), int32 and
    "numpy_defaults": ("numpy", None, None),  # float32 from NumPy, or the library's arrays
    "numpy_int32": ("numpy", np.int32, np.float32),
    "library_arrays": ("library", None, None),
}


@pytest.mark.parametrize("enable_x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("inputs", list(GRAPH_INPUTS))
def test_graph_batch_indices_are_int32_like_jraph(inputs, enable_x64, request):
    # jraph batches with jax.numpy, so without x64 senders, receivers, n_node and n_edge are
    # int32 even from NumPy's int64 (numlir gave int64); under x64 they follow JAX's
    # promotion. unbatch is jax.numpy too; pad_with_graphs is NumPy on the host, so there
    # the offset indices are int64 in both.
    if enable_x64:
        request.getfixturevalue("x64")
    source, index_dtype, float_dtype = GRAPH_INPUTS[inputs]
    ours_in = _typed_graphs(ng, np if source == "numpy" else jnp, index_dtype, float_dtype)
    theirs_in = _typed_graphs(jraph, np if source == "numpy" else jjnp, index_dtype, float_dtype)
    ours, theirs = ng.batch(ours_in), jraph.batch(theirs_in)
    _assert_same_fields(ours, theirs, "batch")
    if not enable_x64:
        assert ours.senders.dtype == ours.receivers.dtype == ours.n_node.dtype == np.int32
    for i, (a, b) in enumerate(zip(ng.unbatch(ours), jraph.unbatch(theirs))):
        _assert_same_fields(a, b, f"unbatch {i}")
    padded = ng.pad_with_graphs(ours, n_node=9, n_edge=5, n_graph=5)
    want = jraph.pad_with_graphs(theirs, n_node=9, n_edge=5, n_graph=5)
    _assert_same_fields(padded, want, "pad_with_graphs")
    _assert_same_fields(ng.pad_with_graphs(ours_in[0], n_node=9, n_edge=5),
                        jraph.pad_with_graphs(theirs_in[0], n_node=9, n_edge=5),
                        "pad_with_graphs of one unbatched graph")
    for i, (a, b) in enumerate(zip(ng.unbatch(padded), jraph.unbatch(want))):
        _assert_same_fields(a, b, f"unbatch of the padded batch, graph {i}")
