"""Indexing (``x[idx]``, ``x.at[idx]``) and the jax.lax slicing functions, against jax and
NumPy, eager and under jit.

Every case compiles executables, so the cases share a few operand shapes and each one
pins a distinct code path: static slices (negative steps, None, Ellipsis), scalar
indices (static and traced), integer arrays (broadcast, mixed with slices, out of
bounds), concrete boolean masks, scatter updates and the errors.
"""

import os

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jax import lax as lax_ref

import numlir
import numlir.numpy as jnp
from numlir import lax

HERE = os.path.abspath(__file__)
RNG = np.random.default_rng(0)
F32, F64, I32, I64, BOOL = np.float32, np.float64, np.int32, np.int64, np.bool_


def _rand(shape, dtype=F32):
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return RNG.random(shape) > 0.5
    if dtype.kind in "iu":
        return RNG.integers(-5, 6, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _same(got, want, np_want=None):
    assert isinstance(got, numlir.Array), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    assert got.weak_type == want.weak_type, (got, want)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    if np_want is not None:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(np_want).astype(got.dtype))


def _check(fn, *args, jit=True, np_check=True):
    """fn(*args) eager and under jit equals jax (value, dtype, weak type) and NumPy."""
    want = fn(*[jnp_ref.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
    np_want = fn(*args) if np_check else None
    _same(fn(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]), want, np_want)
    if jit:
        _same(numlir.jit(fn)(*args), want, np_want)


# --- basic indexing --------------------------------------------------------------------------

BASIC = [
    ((5,), 2), ((5,), -1), ((5,), slice(1, 4)), ((5,), slice(None, None, -1)),
    ((5,), slice(4, 0, -2)), ((5,), slice(-2, None)), ((5,), slice(3, 1)),  # empty
    ((5,), None), ((5,), Ellipsis), ((5,), (None, slice(None, None, 2), None)),
    ((3, 4), 1), ((3, 4), (1, -1)), ((3, 4), (slice(None), 2)), ((3, 4), (Ellipsis, 1)),
    ((3, 4), (slice(None, None, -1), slice(1, None, 2))), ((3, 4), (None, 1, None)),
    ((2, 3, 4), (1, Ellipsis, slice(None, 2))), ((2, 3, 4), (Ellipsis, None)),
    ((2, 3, 4), (slice(None), None, 2, slice(None, None, -3))),
    ((2, 3, 2, 3), (1, slice(None), -1)), ((2, 3, 2, 3), (Ellipsis, 0, slice(None, None, -1))),
    ((0, 3), (slice(None), 1)), ((3, 0), (1,)), ((), Ellipsis), ((), None), ((), ()),
]


@pytest.mark.parametrize("shape,idx", BASIC, ids=[f"{s}-{i}" for s, i in BASIC])
def test_basic_indexing_matches_numpy_and_jax(shape, idx):
    _check(lambda x: x[idx], _rand(shape))


@pytest.mark.parametrize("dtype", [I32, BOOL])
def test_basic_indexing_keeps_dtype(dtype):
    _check(lambda x: x[1:, ::-1][0], _rand((3, 4), dtype))


@pytest.mark.parametrize("dtype", [F64, I64])
def test_indexing_with_x64_dtypes(x64, dtype):
    x = _rand((3, 4), dtype)
    _check(lambda x: x[::-1, [0, 2]], x)
    _check(lambda x, i: x[i], x, np.int64(-1), np_check=False)


def test_demo_one_hot_via_newaxis_compare():
    def f(labels):
        return labels[:, None] == (jnp_ref if isinstance(labels, jax.Array) else jnp).arange(10)[None, :]

    labels = np.array([3, 0, 9, 1], np.int32)
    want = f(jnp_ref.asarray(labels))
    _same(f(jnp.asarray(labels)), want)
    _same(numlir.jit(f)(labels), want)


def test_traced_scalar_index_uses_dynamic_slice_and_wraps_negative():
    x = _rand((4, 3))
    for i in (2, -1, 7, -9):  # out of range clamps, as jax's dynamic_slice does
        want = jnp_ref.asarray(x)[jnp_ref.asarray(i, jnp_ref.int32), 1:]
        _same(numlir.jit(lambda x, i: x[i, 1:])(x, np.int32(i)), want)
    graph = numlir.make_graph(lambda x, i: x[i])(x, np.int32(0))
    assert "dynamic_slice" in str(graph) and "gather" not in str(graph)


def test_concrete_array_scalar_index_eager():
    x = _rand((4, 3))
    _same(jnp.asarray(x)[jnp.asarray(-1)], jnp_ref.asarray(x)[jnp_ref.asarray(-1)])


# --- integer-array (advanced) indexing ------------------------------------------------------------

ADVANCED = [
    ((5,), [[0, 4], [-1, 2]]), ((5,), ([1, 1, 3],)), ((3, 4), ([0, 2], [1, 3])),
    ((3, 4), (slice(None), [3, 0, 0])), ((3, 4), ([[0], [2]], [1, 2, 3])),  # broadcast
    ((3, 4), (1, [0, 3])), ((2, 3, 4), (slice(None), [0, 2], [1, 3])),  # adjacent: in place
    ((2, 3, 4), ([0, 1], slice(None), [1, 3])),  # separated: batch first
    ((2, 3, 4), ([1, 0], None, [2, 0])), ((2, 3, 4), (Ellipsis, [0, 3])),
    ((2, 3, 4), (None, [1], slice(None, None, -1), 1)), ((2, 3, 2, 3), (slice(1, None), [0, 1], 1)),
    ((3, 4), (np.array([], np.int32),)), ((3, 4), ([2, -3], slice(1, 3))),
]


@pytest.mark.parametrize("shape,idx", ADVANCED, ids=[f"{s}-{i}" for s, i in ADVANCED])
def test_integer_array_indexing_matches_numpy(shape, idx):
    idx = tuple(np.asarray(i, np.int32) if isinstance(i, list) else i for i in idx) \
        if isinstance(idx, tuple) else np.asarray(idx, np.int32)
    _check(lambda x: x[idx], _rand(shape))


def test_traced_index_arrays_under_jit():
    x = _rand((4, 5))
    i, j = np.array([[3], [-1]], np.int32), np.array([0, 4, -2], np.int32)
    _check(lambda x, i, j: x[i, j], x, i, j)
    _check(lambda x, i: x[:, i], x, j)


def test_out_of_bounds_index_arrays_clamp_like_jax():
    x = _rand((4, 3))
    _check(lambda x, i: x[i], x, np.array([5, -7, 1], np.int32), np_check=False)


def test_list_index_with_traced_scalars():
    x = _rand((5,))
    _check(lambda x, i: x[([i, 0, i],)], x, np.int32(3), np_check=False)


def test_non_tuple_list_index_is_rejected_like_jax():
    with pytest.raises(TypeError, match="non-tuple sequence"):
        jnp.zeros(3)[[0, 1]]


def test_boolean_mask_concrete():
    x = _rand((3, 4))
    mask = x > 0
    want = x[mask]
    got = jnp.asarray(x)[mask]
    _same(got, jnp_ref.asarray(x)[mask], want)
    _same(numlir.jit(lambda x: x[mask])(x), jnp_ref.asarray(x)[mask])
    _same(jnp.asarray(x)[1, mask[1]], jnp_ref.asarray(x)[1, mask[1]], x[1, mask[1]])
    _same(jnp.asarray(x)[jnp.asarray(mask[:, 0])], jnp_ref.asarray(x)[mask[:, 0]])


def test_scalar_boolean_index_adds_axis():
    x = _rand((3,))
    _check(lambda x: x[True], x, jit=False)
    _check(lambda x: x[False], x, jit=False)


# --- errors --------------------------------------------------------------------------------------------


def _line_of(fn, offset=1):
    return fn.__code__.co_firstlineno + offset


def test_out_of_range_static_index_is_index_error_with_line():
    def f(x):
        return x[3]

    with pytest.raises(IndexError) as info:
        numlir.jit(f)(np.zeros(3, np.float32))
    assert str(info.value) == f"index 3 is out of bounds for axis 0 with size 3 at {HERE}:{_line_of(f)}"


def test_too_many_indices():
    with pytest.raises(IndexError, match=r"Too many indices: array is 2-dimensional, but 3 were "
                                         r"indexed at .*test_indexing.py:\d+"):
        jnp.zeros((2, 3))[0, 0, 0]


def test_traced_boolean_mask_suggests_where():
    with pytest.raises(IndexError, match=r"boolean indices must be concrete.*numpy.where"):
        numlir.jit(lambda x: x[x > 0])(np.ones(3, np.float32))


def test_traced_slice_bound_is_an_error():
    with pytest.raises(IndexError, match=r"static start/stop/step.*dynamic_slice"):
        numlir.jit(lambda x, i: x[i:])(np.ones(3, np.float32), np.int32(1))


def test_float_index_is_an_error():
    with pytest.raises(IndexError, match="integer or boolean type"):
        jnp.zeros(3)[np.array([1.0])]


# --- .at[] updates -------------------------------------------------------------------------------------

AT_INDICES = [1, -1, (slice(None), 1), (slice(None, None, -2),), ([0, 2, 0],), ([[1], [0]], [2, 0]),
              (Ellipsis, None, [1, 3]), (slice(1, None), [3, -1]), (None, 0), ([0, 1], 1, None)]


@pytest.mark.parametrize("idx", AT_INDICES, ids=[str(i) for i in AT_INDICES])
@pytest.mark.parametrize("op", ["set", "add"])
def test_at_set_and_add_match_jax(op, idx):
    x = _rand((3, 4))
    idx_n = tuple(np.asarray(i, np.int32) if isinstance(i, list) else i for i in idx) \
        if isinstance(idx, tuple) else idx
    want_shape = np.asarray(x)[idx_n].shape
    v = _rand(want_shape[1:] if len(want_shape) else ())  # broadcasts
    _check(lambda x, v: getattr(x.at[idx_n], op)(v), x, v, np_check=False)


@pytest.mark.parametrize("op", ["multiply", "divide", "power", "min", "max", "get"])
def test_at_other_ops_match_jax(op):
    x = np.abs(_rand((4, 3))) + 0.5
    idx = (np.array([0, 2, 0], np.int32), slice(None, 2))
    v = np.full((3, 2), 1.5, np.float32)
    if op == "get":
        _check(lambda x: x.at[idx].get(), x, np_check=False)
    else:
        _check(lambda x, v: getattr(x.at[idx], op)(v), x, v, np_check=False)


@pytest.mark.filterwarnings("ignore:scatter inputs have incompatible types")
def test_at_apply_and_int_values_cast_to_operand_dtype():
    x = _rand((5,), I32)
    _check(lambda x: x.at[1:3].apply(lambda v: v * 2 + 1), x, np_check=False)
    _check(lambda x: x.at[np.array([0, 4])].set(7.9), x, np_check=False)
    _check(lambda x: x.at[np.array([0, 0, 0])].add(1), x, np_check=False)  # duplicates accumulate


@pytest.mark.filterwarnings("ignore:scatter inputs have incompatible types")
@pytest.mark.parametrize("op", ["set", "add", "multiply", "divide", "min", "max"])
@pytest.mark.parametrize("x_dtype,v", [
    (I32, np.float32([0.5, -0.6, 2.75])),  # halves, then truncates, as jax: not 0 * x
    (np.uint8, np.float32([0.5, 300.25, -1.5])),
    (BOOL, np.float32([0.5, 0.0, -2.0])),
    (F32, np.complex64([1 + 2j, -0.5j, 3])),
], ids=["int32-float", "uint8-float", "bool-float", "float-complex"])
def test_scatter_combines_in_the_promoted_dtype_then_converts_back_as_jax(op, x_dtype, v):
    # Seed 125, program 6048: numlir cast the update to x's dtype first, jax promotes both,
    # combines, and converts the result back.
    x = np.array([3, 1, 2, 7], x_dtype)
    idx = np.array([0, 1, 3], np.int32)
    _check(lambda x, v: getattr(x.at[idx], op)(v), x, v, np_check=False)


def test_scatter_of_a_float64_update_into_float32_overflows_only_where_jax_does():
    # The update 1e300 is inf as a float32, but 0 * 1e300 is 0 in the promoted float64.
    with numlir.enable_x64(True):
        previous = jax.config.jax_enable_x64
        jax.config.update("jax_enable_x64", True)
        try:
            x = np.array([0.0, -0.25, 2.0], F32)
            v = np.array([1e300, 0.5], F64)
            idx = np.array([0, 1], np.int32)
            with pytest.warns(FutureWarning, match="cannot safely cast value from "
                                                   "dtype=float64 to dtype=float32"):
                got = jnp.asarray(x).at[idx].multiply(v)
            assert got.dtype == F32
            np.testing.assert_array_equal(np.asarray(got), [0.0, -0.125, 2.0])
            jitted = numlir.jit(lambda x, v: x.at[idx].multiply(v))(x, v)
            np.testing.assert_array_equal(np.asarray(jitted), [0.0, -0.125, 2.0])
            batched = numlir.vmap(lambda x, v: x.at[idx].multiply(v), in_axes=(0, None))(
                np.stack([x, x]), v)
            np.testing.assert_array_equal(np.asarray(batched), [[0.0, -0.125, 2.0]] * 2)
            want = jax.jit(lambda x, v: x.at[idx].multiply(v))(x, v)
            np.testing.assert_array_equal(np.asarray(want), [0.0, -0.125, 2.0])
        finally:
            jax.config.update("jax_enable_x64", previous)


def test_a_safe_scatter_update_gives_no_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jnp.arange(4.0).at[1].add(2)  # a weak int into float32
        jnp.arange(4).at[1].set(np.int8(3))  # int8 into int32
        jnp.arange(4.0).at[np.array([0, 1])].multiply(np.float32([2, 3]))


@pytest.mark.parametrize("mode", [None, "clip", "drop", "promise_in_bounds"])
def test_at_out_of_bounds_modes(mode):
    x = _rand((5,))
    idx = np.array([7, -1, 2, -8], np.int32)
    if mode == "promise_in_bounds":
        idx = np.array([4, -1, 2], np.int32)
    v = np.arange(len(idx), dtype=np.float32)
    _check(lambda x, i, v: x.at[i].set(v, mode=mode), x, idx, v, np_check=False)


def test_at_get_fill_mode():
    x = _rand((5,))
    _check(lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0), x,
           np.array([7, -1, 2], np.int32), np_check=False)


def test_at_on_bool_and_traced_scalar_index():
    _check(lambda x, i: x.at[i].set(True), _rand((4,), BOOL), np.int32(-2), np_check=False)
    _check(lambda x, i: x.at[i, ::2].max(0.0), _rand((3, 4)), np.int32(1), np_check=False)


# --- hypothesis fuzzing --------------------------------------------------------------------------------


@st.composite
def _basic_index(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    idx = []
    for n in shape[:draw(st.integers(0, len(shape)))]:
        kind = draw(st.sampled_from(["slice", "int", "new", "full"] if n else ["slice", "full"]))
        if kind == "int":
            idx.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            idx.append(slice(draw(st.one_of(st.none(), st.integers(-6, 6))),
                             draw(st.one_of(st.none(), st.integers(-6, 6))),
                             draw(st.sampled_from([None, 1, 2, -1, -3]))))
        elif kind == "new":
            idx += [None, slice(None)]
        else:
            idx.append(slice(None))
    if draw(st.booleans()):
        idx.append(Ellipsis)
    return shape, tuple(idx)


@settings(max_examples=30, deadline=None)
@given(_basic_index())
def test_fuzz_basic_indexing(case):
    shape, idx = case
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    _same(numlir.jit(lambda x: x[idx])(x), jnp_ref.asarray(x)[idx], x[idx])


@st.composite
def _array_index(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    bshape = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    idx = []
    for n in shape:
        kind = draw(st.sampled_from(["arr", "slice", "int"]))
        if kind == "arr":
            sub = bshape[draw(st.integers(0, len(bshape))):]  # broadcastable suffix
            idx.append(np.asarray(draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(sub)),
                                                max_size=int(np.prod(sub))))).astype(np.int32)
                       .reshape(sub))
        elif kind == "slice":
            idx.append(slice(draw(st.integers(-n, n)), None, draw(st.sampled_from([1, -1, 2]))))
        else:
            idx.append(draw(st.integers(-n, n - 1)))
    return shape, tuple(idx)


@settings(max_examples=30, deadline=None)
@given(_array_index())
def test_fuzz_integer_array_indexing(case):
    shape, idx = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    _same(numlir.jit(lambda x: x[idx])(x), jnp_ref.asarray(x)[idx], x[idx])


# --- lax slicing functions ---------------------------------------------------------------------------------


def _pick(a):
    return lax if isinstance(a, numlir.Array) else lax_ref


def test_lax_slice_family():
    x = _rand((4, 5))
    _check(lambda x: _pick(x).slice(x, (1, 0), (4, 5), (2, 3)), x, np_check=False)
    _check(lambda x: _pick(x).slice_in_dim(x, -3, None, 2, axis=1), x, np_check=False)
    _check(lambda x: _pick(x).index_in_dim(x, -1, 0, keepdims=False), x, np_check=False)
    _check(lambda x: _pick(x).rev(x, (0, 1)), x, np_check=False)


@pytest.mark.parametrize("start", [1, -1, 9, -9])
def test_lax_dynamic_slice_wraps_then_clamps(start):
    x = _rand((4, 5))
    i = np.int32(start)
    _check(lambda x, i: _pick(x).dynamic_slice(x, (i, 1), (2, 3)), x, i, np_check=False)
    _check(lambda x, i: _pick(x).dynamic_index_in_dim(x, i, 1, keepdims=False), x, i,
           np_check=False)


def test_lax_dynamic_update_slice_family():
    x, u = _rand((4, 5)), _rand((2, 5))
    i = np.int32(-1)
    _check(lambda x, u, i: _pick(x).dynamic_update_slice(x, u, (i, 0)), x, u, i, np_check=False)
    _check(lambda x, u, i: _pick(x).dynamic_update_slice_in_dim(x, u, i, 0), x, u, i,
           np_check=False)
    _check(lambda x, u, i: _pick(x).dynamic_update_index_in_dim(x, u[0], i, 0), x, u, i,
           np_check=False)
    _check(lambda x, i: _pick(x).dynamic_slice_in_dim(x, i, 2, 1), x, i, np_check=False)


def test_lax_pad_negative_and_interior():
    x = _rand((3, 4))
    cfg = [(1, -1, 1), (-2, 2, 0)]
    _check(lambda x: _pick(x).pad(x, np.float32(0.5), cfg), x, np_check=False)
    _check(lambda x: _pick(x).concatenate([x, x[:1]], 0), x, np_check=False)


@pytest.mark.parametrize("mode", [None, "clip", "fill", "promise_in_bounds"])
def test_lax_gather_modes(mode):
    x = _rand((5, 3))
    idx = np.array([[4], [0], [7], [-2]], np.int32) if mode != "promise_in_bounds" else \
        np.array([[4], [0]], np.int32)

    def f(x, i):
        L = _pick(x)
        dn = L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                      start_index_map=(0,))
        return L.gather(x, i, dn, (1, 2), mode=mode)

    _check(f, x, idx, np_check=False)


@pytest.mark.parametrize("name", ["scatter", "scatter_add", "scatter_mul", "scatter_min",
                                  "scatter_max"])
def test_lax_scatter_kinds_with_duplicates_and_out_of_bounds(name):
    x = _rand((5, 3))
    idx = np.array([[1], [4], [1], [9]], np.int32)
    upd = _rand((4, 3))

    def f(x, i, u):
        L = _pick(x)
        dn = L.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))
        return getattr(L, name)(x, i, u, dn)

    if name == "scatter":  # duplicate order is implementation-defined in jax: use unique ones
        idx = np.array([[1], [4], [0], [9]], np.int32)
    _check(f, x, idx, upd, np_check=False)


def test_lax_scatter_clip_mode():
    x = _rand((5,))

    def f(x, i, u):
        L = _pick(x)
        dn = L.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))
        return L.scatter_add(x, i, u, dn, mode="clip")

    _check(f, x, np.array([[9], [-3]], np.int32), np.ones(2, np.float32), np_check=False)


def test_lax_shape_errors_carry_line():
    with pytest.raises(TypeError, match=r"concatenate: all operands must have equal shapes .* at "
                                        r".*test_indexing.py:\d+"):
        lax.concatenate([jnp.zeros((2, 3)), jnp.zeros((2, 4))], 0)
    with pytest.raises(TypeError, match=r"slice: invalid slice along dimension 0"):
        lax.slice(jnp.zeros(3), (2,), (5,))


# --- lax.gather/scatter with batching dimensions, against jax ------------------------------------
# Values and dtypes against jax, eager and under jit.


RNG_GATHER = np.random.default_rng(7)


def _rand_gather(shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return RNG_GATHER.integers(-9, 10, size=shape).astype(dtype)
    return (RNG_GATHER.standard_normal(shape) * 3).astype(dtype)


def _check_gather(got, want):
    got, want_np = np.asarray(got), np.asarray(want)
    assert got.dtype == want_np.dtype, (got.dtype, want_np.dtype)
    assert got.shape == want_np.shape, (got.shape, want_np.shape)
    np.testing.assert_allclose(got, want_np, rtol=1e-5, atol=1e-5)


def _gather_case(name):
    # (operand shape, indices, GatherDimensionNumbers kwargs, slice_sizes)
    if name == "one_batch":
        return ((3, 5), RNG_GATHER.integers(0, 5, (3, 2, 1)),
                dict(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                     operand_batching_dims=(0,), start_indices_batching_dims=(0,)), (1, 1))
    if name == "batch_middle_window":
        return ((4, 3, 6), RNG_GATHER.integers(0, 4, (2, 3, 1)),
                dict(offset_dims=(2,), collapsed_slice_dims=(0,), start_index_map=(0,),
                     operand_batching_dims=(1,), start_indices_batching_dims=(1,)), (1, 1, 3))
    if name == "two_batch":
        return ((2, 3, 7), RNG_GATHER.integers(0, 7, (3, 4, 2, 1)),
                dict(offset_dims=(), collapsed_slice_dims=(2,), start_index_map=(2,),
                     operand_batching_dims=(0, 1), start_indices_batching_dims=(2, 0)),
                (1, 1, 1))
    if name == "two_index":
        return ((3, 4, 5), RNG_GATHER.integers(0, 3, (3, 2, 2)),
                dict(offset_dims=(), collapsed_slice_dims=(1, 2), start_index_map=(2, 1),
                     operand_batching_dims=(0,), start_indices_batching_dims=(0,)),
                (1, 1, 1))
    raise AssertionError(name)


GATHER_NAMES = ["one_batch", "batch_middle_window", "two_batch", "two_index"]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", GATHER_NAMES)
def test_gather_batching_dims(name, jit):
    shape, idx, dn, sizes = _gather_case(name)
    x = _rand_gather(shape, np.float32)
    idx = idx.astype(np.int32)
    f = lambda a, i: lax.gather(a, i, lax.GatherDimensionNumbers(**dn), sizes,  # noqa: E731
                                mode="clip")
    if jit:
        f = numlir.jit(f)
    want = jax.lax.gather(x, idx, jax.lax.GatherDimensionNumbers(**dn), sizes, mode="clip")
    _check_gather(f(x, idx), want)


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
    x = _rand_gather(shape, np.float32)
    bound = min(shape[d] for d in dn["scatter_dims_to_operand_dims"])
    idx = RNG_GATHER.integers(0, bound, ishape).astype(np.int32)
    upd = _rand_gather(ushape, np.float32)
    f = lambda a, i, u: lax.scatter_add(a, i, u, lax.ScatterDimensionNumbers(**dn))  # noqa
    if jit:
        f = numlir.jit(f)
    want = jax.lax.scatter_add(x, idx, upd, jax.lax.ScatterDimensionNumbers(**dn))
    _check_gather(f(x, idx, upd), want)


def test_gather_batching_dims_size_mismatch():
    dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,),
                                    start_index_map=(1,), operand_batching_dims=(0,),
                                    start_indices_batching_dims=(0,))
    with pytest.raises(Exception):
        lax.gather(np.zeros((3, 5), np.float32), np.zeros((2, 1), np.int32), dn, (1, 1))
