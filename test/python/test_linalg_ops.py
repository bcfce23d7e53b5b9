"""einsum, tensordot, inner, moveaxis, identity and numlir.numpy.linalg against jax and NumPy.

Each case runs eagerly and under jit and must match jax.numpy in value, shape and dtype, and
NumPy in value. Case lists pick one shape/dtype per distinct code path to keep compiles few.
"""

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import numlir
import numlir.numpy as jnp
from numlir import lax, nn

F32, F64, I32, I8, BOOL = np.float32, np.float64, np.int32, np.int8, np.bool_


def _rand(shape, dtype=F32, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == BOOL:
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def _tol(dtype):
    return {np.dtype(F32): (3e-5, 3e-5), np.dtype(F64): (1e-12, 1e-12)}.get(np.dtype(dtype), (0, 0))


def _set_x64(on):
    numlir.config.update("jax_enable_x64", on)
    jax.config.update("jax_enable_x64", on)


def _check(fn, ref_fn, np_fn, *args, x64=False):
    """fn eagerly and under jit equals ref_fn (jax: value, shape, dtype) and np_fn (NumPy: value)."""
    _set_x64(x64)
    try:
        want = ref_fn(*[jnp_ref.asarray(a) for a in args])
        eager = fn(*[jnp.asarray(a) for a in args])
        jitted = numlir.jit(fn)(*args)
    finally:
        _set_x64(False)
    rtol, atol = _tol(want.dtype)
    want_np = None if np_fn is None else np.asarray(np_fn(*args))
    for got in (eager, jitted):
        assert isinstance(got, numlir.Array)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), (got.shape, got.dtype, want.shape, want.dtype)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)
        if want_np is not None:
            np.testing.assert_allclose(np.asarray(got), want_np.astype(got.dtype), rtol=max(rtol, 1e-5),
                                       atol=max(atol, 1e-5))


# --- einsum ---------------------------------------------------------------------------------------

EINSUM_CASES = [  # (subscripts, operand shapes, NumPy accepts it)
    ("ij,jk->ik", [(2, 3), (3, 4)], True),            # matmul
    ("ij,jk", [(2, 3), (3, 4)], True),                # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)], True),   # batch matmul
    ("i,j->ij", [(3,), (4,)], True),                  # outer
    ("i,i->", [(5,), (5,)], True),                    # inner
    ("ii", [(3, 3)], True),                           # trace
    ("ii->i", [(3, 3)], True),                        # diagonal
    ("ij->ji", [(2, 3)], True),                       # transpose
    ("ij->", [(2, 3)], True),                         # full sum
    ("ij->j", [(2, 3)], True),                        # partial sum
    ("ba", [(2, 3)], True),                           # implicit output is alphabetical: transpose
    ("ba,cb", [(2, 3), (4, 2)], True),                # implicit order 'ac'
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)], True),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)], True),  # broadcasting ellipsis
    ("...ij,jk", [(4, 2, 3), (3, 2)], True),           # implicit output keeps '...' first
    ("i...->...", [(3, 2, 4)], True),
    ("...i->i", [(2, 3)], False),                     # jax sums '...' the output omits
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], True),  # 3-operand chain
    ("ab,bc,cd,de", [(2, 3), (3, 2), (2, 4), (4, 2)], True),
    ("i,ij,j->", [(3,), (3, 4), (4,)], True),
    ("iij->ji", [(3, 3, 2)], True),                   # repeated index plus a free one
    ("iji->j", [(3, 2, 3)], True),
    ("iii->i", [(2, 2, 2)], True),
    ("ij,ik->", [(2, 3), (2, 4)], True),              # labels that occur in one operand only
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)], True),
    ("ij,j->i", [(3, 1), (4,)], False),               # jax broadcasts a size-1 labelled dim
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)], True),  # attention scores
    (",ij->ij", [(), (2, 3)], True),                  # scalar operand
    (",,i", [(), (), (2,)], True),                    # scalars chained
    ("i,i,ij->j", [(2,), (2,), (2, 3)], True),        # elementwise product feeding a contraction
]


@pytest.mark.parametrize("subscripts,shapes,np_ok", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_jax_and_numpy(subscripts, shapes, np_ok):
    args = [_rand(s, seed=k) for k, s in enumerate(shapes)]
    _check(lambda *a: jnp.einsum(subscripts, *a), lambda *a: jnp_ref.einsum(subscripts, *a),
           (lambda *a: np.einsum(subscripts, *a)) if np_ok else None, *args)


@pytest.mark.parametrize("dtypes_", [(I32, I32), (I8, I8), (I32, F32), (BOOL, BOOL)],
                         ids=["i32", "i8", "i32_f32", "bool"])
def test_einsum_promotes_dtypes_like_jnp(dtypes_):
    args = [_rand((2, 3), dtypes_[0]), _rand((3, 2), dtypes_[1], seed=1)]
    _check(lambda a, b: jnp.einsum("ij,jk->ik", a, b), lambda a, b: jnp_ref.einsum("ij,jk->ik", a, b),
           None, *args)


def test_einsum_float64_and_int64_with_x64():
    a, b = _rand((2, 3), F64), _rand((3, 4), F64, seed=1)
    _check(lambda a, b: jnp.einsum("ij,jk,ik->i", a, b, a @ b), lambda a, b: jnp_ref.einsum("ij,jk,ik->i", a, b, a @ b),
           None, a, b, x64=True)
    c = _rand((3, 3), np.int64)
    _check(lambda c: jnp.einsum("ii", c), lambda c: jnp_ref.einsum("ii", c), np.trace, c, x64=True)


def test_einsum_preferred_element_type_sets_result_dtype():
    a, b = _rand((2, 3), I8), _rand((3, 2), I8, seed=1)
    for pet in (np.int32, np.float32):
        _check(lambda a, b: jnp.einsum("ij,jk", a, b, preferred_element_type=pet),
               lambda a, b: jnp_ref.einsum("ij,jk", a, b, preferred_element_type=pet), None, a, b)


def test_einsum_accepts_optimize_and_interleaved_operands():
    a, b = _rand((2, 3)), _rand((3, 4), seed=1)
    for opt in (True, False, "greedy", "optimal"):
        got = jnp.einsum("ij,jk->ik", a, b, optimize=opt)
        np.testing.assert_allclose(np.asarray(got), a @ b, rtol=1e-5, atol=1e-5)
    got = jnp.einsum(a, [0, 1], b, [1, 2], [2, 0])
    np.testing.assert_allclose(np.asarray(got), (a @ b).T, rtol=1e-5, atol=1e-5)
    c = _rand((3, 2), seed=2)
    got = jnp.einsum(a, [Ellipsis, 1], c, [1, Ellipsis])
    np.testing.assert_allclose(np.asarray(got), np.einsum(a, [Ellipsis, 1], c, [1, Ellipsis]), rtol=1e-5)


@pytest.mark.parametrize("subscripts,shapes,match", [
    ("ij,jk->ik", [(2, 3), (4, 5)], "incompatible sizes"),
    ("ij->ik", [(2, 3)], "appear in no input"),
    ("ij->ii", [(2, 2)], "repeats a label"),
    ("ijk", [(2, 3)], "does not match"),
    ("ij,jk", [(2, 3)], "operands"),
    ("i1", [(2, 3)], "invalid subscript"),
])
def test_einsum_errors_name_the_problem(subscripts, shapes, match):
    with pytest.raises((ValueError, TypeError), match=match):
        jnp.einsum(subscripts, *[np.ones(s, F32) for s in shapes])


@st.composite
def _einsum_case(draw):
    sizes = dict(zip("abcde", draw(st.lists(st.integers(1, 3), min_size=5, max_size=5))))
    n_ops = draw(st.integers(1, 3))
    in_subs = ["".join(draw(st.lists(st.sampled_from("abcde"), min_size=0, max_size=3)))
               for _ in range(n_ops)]
    used = sorted(set("".join(in_subs)))
    if draw(st.booleans()):
        out = "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
        subscripts = ",".join(in_subs) + "->" + out
    else:
        subscripts = ",".join(in_subs)
    shapes = [tuple(sizes[c] for c in s) for s in in_subs]
    return subscripts, shapes


@settings(max_examples=25, deadline=None)
@given(_einsum_case())
def test_fuzz_einsum_random_subscripts(case):
    subscripts, shapes = case
    args = [_rand(s, seed=k) for k, s in enumerate(shapes)]
    got = numlir.jit(lambda *a: jnp.einsum(subscripts, *a))(*args)
    want = jnp_ref.einsum(subscripts, *args)
    assert (got.shape, got.dtype) == (want.shape, want.dtype), subscripts
    np.testing.assert_allclose(np.asarray(got), np.einsum(subscripts, *args).astype(F32), rtol=1e-4, atol=1e-4)


# --- tensordot, inner, moveaxis, identity ---------------------------------------------------------


@pytest.mark.parametrize("shapes,axes", [
    (((2, 3, 4), (3, 4, 5)), 2),
    (((2, 3), (4, 5)), 0),
    (((2, 3), (3, 4)), 1),
    (((2, 3, 4), (4, 2, 5)), ((0, 2), (1, 0))),
    (((3, 4), (2, 3)), (0, -1)),
    (((2, 3), (3, 2)), ([1], [0])),
], ids=["int2", "int0", "int1", "pairs", "ints_negative", "lists"])
def test_tensordot_axes_forms(shapes, axes):
    a, b = _rand(shapes[0]), _rand(shapes[1], seed=1)
    _check(lambda a, b: jnp.tensordot(a, b, axes), lambda a, b: jnp_ref.tensordot(a, b, axes),
           lambda a, b: np.tensordot(a, b, axes), a, b)


def test_tensordot_promotes_int_and_float():
    a, b = _rand((2, 3), I32), _rand((3, 2), F32, seed=1)
    _check(lambda a, b: jnp.tensordot(a, b, 1), lambda a, b: jnp_ref.tensordot(a, b, 1), None, a, b)


@pytest.mark.parametrize("shapes,dtype", [
    (((3,), (3,)), F32), (((2, 3), (4, 3)), F32), (((2, 2, 3), (3,)), I32), (((), (2, 3)), F32),
], ids=["vectors", "matrices", "3d_int", "scalar"])
def test_inner(shapes, dtype):
    a, b = _rand(shapes[0], dtype), _rand(shapes[1], dtype, seed=1)
    _check(jnp.inner, jnp_ref.inner, np.inner, a, b)


@pytest.mark.parametrize("source,destination", [
    (0, -1), (-1, 0), (1, 1), ([0, 1], [-1, 0]), ((0, 2), (2, 0)), ([], []),
])
def test_moveaxis(source, destination):
    x = _rand((2, 3, 4))
    _check(lambda x: jnp.moveaxis(x, source, destination), lambda x: jnp_ref.moveaxis(x, source, destination),
           lambda x: np.moveaxis(x, source, destination), x)


def test_moveaxis_rejects_repeated_or_mismatched_axes():
    x = np.ones((2, 3), F32)
    with pytest.raises(ValueError, match="repeated"):
        jnp.moveaxis(x, [0, 0], [0, 1])
    with pytest.raises(ValueError, match="same number"):
        jnp.moveaxis(x, [0, 1], [0])


@pytest.mark.parametrize("dtype", [None, F32, I32, BOOL, "x64_default", F64])
def test_identity_dtypes(dtype):
    x64 = dtype in ("x64_default", F64)
    dt = None if dtype == "x64_default" else dtype
    _set_x64(x64)
    try:
        got, want = jnp.identity(3, dtype=dt), jnp_ref.identity(3, dtype=dt)
    finally:
        _set_x64(False)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# --- linalg ---------------------------------------------------------------------------------------

NORM_CASES = [  # (shape, ord, axis, keepdims)
    ((5,), None, None, False), ((5,), 2, None, False), ((5,), 1, None, False),
    ((5,), np.inf, None, False), ((5,), -np.inf, None, False), ((5,), 0, None, False),
    ((5,), 3, None, False), ((5,), -1, None, False), ((5,), 0.5, None, False),
    ((2, 3, 4), None, None, False), ((2, 3, 4), None, None, True),
    ((3, 4), 1, 0, False), ((2, 3, 4), 2, -1, True),
    ((3, 4), None, None, False), ((3, 4), "fro", None, False), ((3, 4), 1, None, False),
    ((3, 4), -1, None, False), ((3, 4), np.inf, None, False), ((3, 4), -np.inf, None, True),
    ((2, 3, 4), "fro", (0, 2), False), ((2, 3, 4), 1, (2, 1), True), ((2, 3, 4), np.inf, (-1, 0), False),
]


@pytest.mark.parametrize("shape,ord_,axis,keepdims", NORM_CASES, ids=[str(c) for c in NORM_CASES])
def test_norm_ords_axes_keepdims(shape, ord_, axis, keepdims):
    x = _rand(shape)
    _check(lambda x: jnp.linalg.norm(x, ord_, axis, keepdims),
           lambda x: jnp_ref.linalg.norm(x, ord_, axis, keepdims),
           lambda x: np.linalg.norm(x, ord_, axis, keepdims), x)


def test_norm_of_ints_is_float_and_f64_with_x64():
    _check(lambda x: jnp.linalg.norm(x, 1), lambda x: jnp_ref.linalg.norm(x, 1), None, _rand((3, 4), I32))
    _check(jnp.linalg.norm, jnp_ref.linalg.norm, np.linalg.norm, _rand((3, 4), F64), x64=True)


@pytest.mark.parametrize("ord_", [2, -2, "nuc"])
def test_norm_svd_ords_on_matrices(ord_):
    x = np.array([[3.0, 1.0], [-2.0, 4.0]], F32)
    np.testing.assert_allclose(np.asarray(jnp.linalg.norm(x, ord_)),
                               np.linalg.norm(x.astype(F64), ord_), rtol=1e-6)


@pytest.mark.parametrize("x", [
    np.array([-2.79e-300 - 1.25e-301j], np.complex128),
    np.array([-2.6e-30 - 3.4e-30j], np.complex64),
    np.array([1e-300, -3e-301], np.float64),
    np.array([0.0, -0.0], np.float32),
    np.array([3 + 4j, 1e200 + 0j], np.complex128),
], ids=lambda x: f"{x.dtype}-{x[0]}")
def test_norm_gradient_where_the_squares_underflow_or_overflow_is_jaxs(x):
    # |x|**2 underflows to 0 (or overflows): the gradient is ±inf per part or NaN exactly
    # as jax's, not NaN from multiplying inf by x / |x| (fuzz seed 127, program 20915).
    loss = lambda jnp_: lambda x: jnp_.linalg.norm(x) * 0.75  # noqa: E731
    with numlir.enable_x64(x.dtype.itemsize >= 8 * (1 + np.iscomplexobj(x))):
        jax.config.update("jax_enable_x64", True)
        try:
            want = np.asarray(jax.grad(loss(jnp_ref))(x))
            for f in (numlir.grad, lambda g: numlir.jit(numlir.grad(g))):
                got = np.asarray(f(loss(jnp))(x))
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)
        finally:
            jax.config.update("jax_enable_x64", False)


def test_norm_rejects_bad_ords_and_axes():
    with pytest.raises(ValueError, match="invalid order"):
        jnp.linalg.norm(np.ones(3, F32), "fro")
    with pytest.raises(ValueError, match="needs axis"):
        jnp.linalg.norm(np.ones((2, 2, 2), F32), 1)
    with pytest.raises(ValueError, match="one or two axes"):
        jnp.linalg.norm(np.ones((2, 2, 2), F32), None, (0, 1, 2))


def test_linalg_matrix_transpose_vecdot_outer():
    x, y = _rand((2, 3, 4)), _rand((3, 4), seed=1)
    _check(jnp.linalg.matrix_transpose, jnp_ref.linalg.matrix_transpose, lambda x: np.swapaxes(x, -1, -2), x)
    _check(jnp.linalg.vecdot, jnp_ref.linalg.vecdot, lambda x, y: (x * y).sum(-1), x, y)
    _check(jnp.linalg.outer, jnp_ref.linalg.outer, np.outer, _rand((3,)), _rand((4,), seed=1))


# --- lax.stop_gradient, nn.tanh -------------------------------------------------------------------


def test_stop_gradient_returns_its_operand_values():
    x = _rand((2, 3))
    _check(lax.stop_gradient, jax.lax.stop_gradient, lambda x: x, x)
    tree = lax.stop_gradient({"a": jnp.asarray(x), "b": (1.0,)})
    np.testing.assert_array_equal(np.asarray(tree["a"]), x)
    assert tree["b"][0].dtype == np.float32


def test_nn_tanh_is_jnp_tanh():
    x = _rand((4,))
    _check(nn.tanh, jax.nn.tanh, np.tanh, x)


def test_einsum_accepts_upper_case_labels():
    np.testing.assert_allclose(np.asarray(jnp.einsum("AZ->ZA", np.ones((2, 3), F32))), np.ones((3, 2)))
