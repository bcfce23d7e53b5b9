"""jnp.pad statistic modes (maximum/minimum/mean/median, stat_length) and
reflect_type='odd', and lax.gather/scatter with batching dimensions, against jax
(values and dtypes), eager and under jit."""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

RNG = np.random.default_rng(7)


def _rand(shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-9, 10, size=shape).astype(dtype)
    return (RNG.standard_normal(shape) * 3).astype(dtype)


def _check(got, want):
    got, want_np = np.asarray(got), np.asarray(want)
    assert got.dtype == want_np.dtype, (got.dtype, want_np.dtype)
    assert got.shape == want_np.shape, (got.shape, want_np.shape)
    np.testing.assert_allclose(got, want_np, rtol=1e-5, atol=1e-5)


PAD_CASES = [
    ((5,), 3, "maximum", {}, np.float32),
    ((5,), (2, 4), "minimum", {}, np.int32),
    ((4,), (1, 2), "mean", {}, np.int32),
    ((6,), (3, 3), "mean", {"stat_length": 2}, np.int32),
    ((6,), (2, 1), "median", {"stat_length": (1, 4)}, np.float32),
    ((7,), 2, "median", {}, np.int32),
    ((3, 4), 1, "mean", {}, np.float32),
    ((3, 4), ((1, 2), (0, 3)), "maximum", {"stat_length": ((1, 2), (3, 1))}, np.float32),
    ((3, 4), ((2, 0), (1, 1)), "minimum", {"stat_length": 10}, np.int32),
    ((2, 3, 4), ((1, 0), (0, 2), (1, 1)), "mean", {"stat_length": ((1, 1), (2, 2), (3, 1))},
     np.int32),
    ((2, 3, 4), 1, "median", {"stat_length": 2}, np.float32),
    ((1, 5), (2, 3), "maximum", {"stat_length": (2, 1)}, np.int32),
    ((3, 1), ((1, 1), (0, 2)), "maximum", {}, np.float32),
    ((5,), 3, "reflect", {"reflect_type": "odd"}, np.float32),
    ((5,), (7, 9), "reflect", {"reflect_type": "odd"}, np.float32),
    ((5,), (4, 2), "symmetric", {"reflect_type": "odd"}, np.int32),
    ((3,), (8, 7), "symmetric", {"reflect_type": "odd"}, np.float32),
    ((1,), (2, 3), "reflect", {"reflect_type": "odd"}, np.float32),
    ((1,), (2, 3), "symmetric", {"reflect_type": "odd"}, np.int32),
    ((2,), (5, 4), "reflect", {"reflect_type": "odd"}, np.int32),
    ((3, 4), ((1, 2), (5, 0)), "reflect", {"reflect_type": "odd"}, np.float32),
    ((3, 4), ((3, 3), (1, 6)), "symmetric", {"reflect_type": "odd"}, np.float32),
    ((2, 3, 4), ((1, 1), (0, 4), (2, 0)), "reflect", {"reflect_type": "odd"}, np.int32),
    ((4,), 2, "reflect", {"reflect_type": "even"}, np.float32),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("shape,pw,mode,kw,dtype", PAD_CASES)
def test_pad_modes(shape, pw, mode, kw, dtype, jit):
    x = _rand(shape, dtype)
    f = lambda a: jnp.pad(a, pw, mode=mode, **kw)  # noqa: E731
    if jit:
        f = numlir.jit(f)
    _check(f(x), jnp_ref.pad(x, pw, mode=mode, **kw))


@pytest.mark.parametrize("mode,kw", [
    ("mean", {"stat_length": 0}),
    ("maximum", {"stat_length": (2, 0)}),
    ("edge", {"reflect_type": "odd"}),
    ("wrap", {"stat_length": 1}),
])
def test_pad_errors(mode, kw):
    x = _rand((4,), np.float32)
    with pytest.raises(ValueError):
        jnp_ref.pad(x, 1, mode=mode, **kw)
    with pytest.raises(ValueError):
        jnp.pad(x, 1, mode=mode, **kw)


def _gather_case(name):
    # (operand shape, indices, GatherDimensionNumbers kwargs, slice_sizes)
    if name == "one_batch":
        return ((3, 5), RNG.integers(0, 5, (3, 2, 1)),
                dict(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                     operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1))
    if name == "batch_middle_window":
        return ((4, 3, 6), RNG.integers(0, 4, (2, 3, 1)),
                dict(offset_dims=(2,), collapsed_slice_dims=(0,), start_index_map=(0,),
                     operand_batching_dims=(1,), start_indices_batching_dims=(1,)), (1, 1, 3))
    if name == "two_batch":
        return ((2, 3, 7), RNG.integers(0, 7, (3, 4, 2, 1)),
                dict(offset_dims=(), collapsed_slice_dims=(2,), start_index_map=(2,),
                     operand_batching_dims=(0, 1), start_indices_batching_dims=(2, 0)),
                (1, 1, 1))
    if name == "two_index":
        return ((3, 4, 5), RNG.integers(0, 3, (3, 2, 2)),
                dict(offset_dims=(), collapsed_slice_dims=(1, 2), start_index_map=(2, 1),
                     operand_batching_dims=(0,), start_indices_batching_dims=(0,)),
                (1, 1, 1))
    raise AssertionError(name)


GATHER_NAMES = ["one_batch", "batch_middle_window", "two_batch", "two_index"]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", GATHER_NAMES)
def test_gather_batching_dims(name, jit):
    shape, idx, dn, sizes = _gather_case(name)
    x = _rand(shape, np.float32)
    idx = idx.astype(np.int32)
    f = lambda a, i: lax.gather(a, i, lax.GatherDimensionNumbers(**dn), sizes,  # noqa: E731
                                mode="clip")
    if jit:
        f = numlir.jit(f)
    want = jax.lax.gather(x, idx, jax.lax.GatherDimensionNumbers(**dn), sizes, mode="clip")
    _check(f(x, idx), want)


SCATTER_CASES = {
    # operand shape, indices, updates shape, ScatterDimensionNumbers kwargs
    "one_batch": ((3, 5), (3, 4, 1), (3, 4),
                  dict(update_window_dims=(), inserted_window_dims=(1,),
                       scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                       scatter_indices_batching_dims=(0,))),
    "batch_with_window": ((4, 3, 6), (2, 3, 1), (2, 3, 6),
                          dict(update_window_dims=(2,), inserted_window_dims=(0,),
                               scatter_dims_to_operand_dims=(0,), operand_batching_dims=(1,),
                               scatter_indices_batching_dims=(1,))),
    "two_batch": ((2, 3, 4), (3, 5, 2, 1), (3, 5, 2),
                  dict(update_window_dims=(), inserted_window_dims=(2,),
                       scatter_dims_to_operand_dims=(2,), operand_batching_dims=(0, 1),
                       scatter_indices_batching_dims=(2, 0))),
}


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", list(SCATTER_CASES))
def test_scatter_add_batching_dims(name, jit):
    shape, ishape, ushape, dn = SCATTER_CASES[name]
    x = _rand(shape, np.float32)
    bound = min(shape[d] for d in dn["scatter_dims_to_operand_dims"])
    idx = RNG.integers(0, bound, ishape).astype(np.int32)
    upd = _rand(ushape, np.float32)
    f = lambda a, i, u: lax.scatter_add(a, i, u, lax.ScatterDimensionNumbers(**dn))  # noqa
    if jit:
        f = numlir.jit(f)
    want = jax.lax.scatter_add(x, idx, upd, jax.lax.ScatterDimensionNumbers(**dn))
    _check(f(x, idx, upd), want)


def test_gather_batching_dims_size_mismatch():
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,),
                                    start_index_map=(1,), operand_batching_dims=(0,),
                                    start_indices_batching_dims=(0,))
    with pytest.raises(Exception):
        lax.gather(np.zeros((3, 5), np.float32), np.zeros((2, 1), np.int32), dn, (1, 1))
