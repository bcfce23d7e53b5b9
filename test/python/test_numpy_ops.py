"""numlir.numpy ops against NumPy and jax.numpy, eager and under jit.

Every case compiles real executables, so the case lists are chosen to cover
shapes (scalar, 1-D..3-D, broadcasting, size 0) and dtypes without blowing up
the count: each op gets the dtypes/shapes that exercise a distinct code path.
"""

import warnings

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import nn

F32, F64, I32, I64, U8, BOOL = np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_
X64_DTYPES = (F64, I64)


def _rand(rng, shape, dtype, domain="any"):
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        lo, hi = {"any": (-5, 6), "positive": (1, 6), "small": (0, 4), "nonzero": (-5, 6)}[domain]
        lo = max(lo, 0) if dtype.kind == "u" else lo
        v = rng.integers(lo, hi, size=shape).astype(dtype)
        if domain == "nonzero":
            v[v == 0] = 1
        return v
    lo, hi = {"any": (-2, 2), "positive": (0.5, 2), "small": (0.5, 1.5), "nonzero": (0.5, 2)}[domain]
    v = rng.uniform(lo, hi, size=shape)
    if domain == "nonzero":
        v *= np.where(rng.random(shape) > 0.5, 1, -1)
    return v.astype(dtype)


def _tol(dtype):
    return {np.dtype(F32): (2e-5, 1e-5), np.dtype(F64): (1e-12, 1e-12)}.get(np.dtype(dtype), (0, 0))


def _check(fn, ref_fn, np_fn, args, x64=False):
    """fn eager and jitted equals jax (value and dtype) and NumPy (value)."""
    if x64:
        numlir.config.update("jax_enable_x64", True)
        jax.config.update("jax_enable_x64", True)
    try:
        want = ref_fn(*[jnp_ref.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        eager = fn(*[jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        jitted = numlir.jit(fn)(*args)
    finally:
        numlir.config.update("jax_enable_x64", False)
        jax.config.update("jax_enable_x64", False)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want_np = np.asarray(np_fn(*args))
    rtol, atol = _tol(want.dtype)
    for got in (eager, jitted):
        assert isinstance(got, numlir.Array)
        assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
        assert got.weak_type == want.weak_type
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)
        np.testing.assert_allclose(np.asarray(got), want_np.astype(got.dtype), rtol=max(rtol, 1e-5),
                                   atol=max(atol, 1e-5) if rtol else 0)


def _id(v):
    if isinstance(v, type) or isinstance(v, np.dtype):
        return np.dtype(v).name
    return str(v).replace(" ", "")


# --- unary --------------------------------------------------------------------------------

UNARY = {  # name: (domain, dtypes); jnp/np functions share the name
    "exp": ("any", (F32, I32)), "log": ("positive", (F32,)), "tanh": ("any", (F32,)),
    "sqrt": ("positive", (F32,)), "sin": ("any", (F32,)), "cos": ("any", (F32,)),
    "floor": ("any", (F32, I32)), "ceil": ("any", (F32,)), "negative": ("any", (F32, I32, U8)),
    "abs": ("any", (F32, I32, BOOL)), "sign": ("any", (F32, I32)), "square": ("any", (F32, I32)),
    "reciprocal": ("nonzero", (F32,)), "logical_not": ("any", (BOOL, F32)), "invert": ("any", (I32, BOOL)),
    "isnan": ("any", (F32,)), "isfinite": ("any", (F32,)),
}
UNARY_CASES = [(name, dt, shape) for name, (_, dts) in UNARY.items() for dt in dts
               for shape in ((2, 3),)]
UNARY_CASES += [(name, F32, shape) for name in ("exp", "tanh", "abs") for shape in ((), (0, 3), (2, 3, 4))]
UNARY_CASES += [("exp", F64, (3,)), ("log", F64, (2, 2)), ("negative", I64, (3,))]


@pytest.mark.parametrize("name,dtype,shape", UNARY_CASES, ids=_id)
def test_unary(name, dtype, shape):
    rng = np.random.default_rng(hash((name, shape)) % 2**32)
    x = _rand(rng, shape, dtype, UNARY[name][0])
    np_fn = getattr(np, name) if name != "reciprocal" else (lambda v: 1 / v)
    if name == "reciprocal" and x.dtype.kind == "f":
        np_fn = np.reciprocal
    _check(getattr(jnp, name), getattr(jnp_ref, name), np_fn, [x], x64=dtype in X64_DTYPES)


@pytest.mark.parametrize("name", ["sigmoid", "relu", "softmax", "log_softmax", "silu", "softplus", "gelu"])
def test_nn_activations(name):
    x = np.random.default_rng(1).uniform(-3, 3, (3, 4)).astype(F32)
    ref = getattr(jax.nn, name)
    _check(getattr(nn, name), ref, lambda v: np.asarray(ref(v)), [x])


# --- binary -------------------------------------------------------------------------------

BINARY = {  # name: (domain of y, dtypes)
    "add": ("any", (F32, I32, BOOL, U8)), "subtract": ("any", (F32, I32)),
    "multiply": ("any", (F32, I32, BOOL)), "divide": ("nonzero", (F32, I32)),
    "true_divide": ("nonzero", (I32,)), "floor_divide": ("nonzero", (F32, I32, U8)),
    "remainder": ("nonzero", (F32, I32)), "fmod": ("nonzero", (F32, I32)),
    "power": ("small", (F32, I32)), "maximum": ("any", (F32, I32, BOOL)), "minimum": ("any", (F32, U8)),
    "equal": ("any", (F32, I32, BOOL)), "not_equal": ("any", (F32,)), "less": ("any", (F32, I32)),
    "less_equal": ("any", (F32,)), "greater": ("any", (I32,)), "greater_equal": ("any", (F32,)),
    "bitwise_and": ("any", (I32, BOOL)), "bitwise_or": ("any", (I32, BOOL)), "bitwise_xor": ("any", (U8, BOOL)),
    "logical_and": ("any", (BOOL, F32)), "logical_or": ("any", (BOOL,)), "logical_xor": ("any", (I32,)),
}
BINARY_CASES = [(name, dt, (2, 3), (2, 3)) for name, (_, dts) in BINARY.items() for dt in dts]
SHAPE_PAIRS = [((), ()), ((3,), ()), ((2, 3), (3,)), ((2, 1, 3), (4, 1)), ((0, 3), (3,)), ((1,), (0,))]
BINARY_CASES += [(name, F32, a, b) for name in ("add", "multiply", "maximum", "less") for a, b in SHAPE_PAIRS]
BINARY_CASES += [("add", F64, (3,), (2, 3)), ("divide", F64, (3,), (3,)), ("multiply", I64, (2,), (2,)),
                 ("floor_divide", I64, (4,), (4,)), ("remainder", F64, (3,), (3,))]


@pytest.mark.parametrize("name,dtype,sx,sy", BINARY_CASES, ids=_id)
def test_binary(name, dtype, sx, sy):
    rng = np.random.default_rng(hash((name, sx, sy)) % 2**32)
    x = _rand(rng, sx, dtype, "positive" if name == "power" and np.dtype(dtype).kind == "f" else "any")
    y = _rand(rng, sy, dtype, BINARY[name][0])
    _check(getattr(jnp, name), getattr(jnp_ref, name), getattr(np, name), [x, y],
           x64=dtype in X64_DTYPES)


MIXED = [(F32, I32), (I32, BOOL), (U8, I32), (F32, F64), (np.int8, U8), (np.float16, F32)]


@pytest.mark.parametrize("dx,dy", MIXED, ids=_id)
def test_mixed_dtype_promotion(dx, dy):
    rng = np.random.default_rng(3)
    x, y = _rand(rng, (2, 3), dx, "positive"), _rand(rng, (3,), dy, "positive")
    _check(jnp.add, jnp_ref.add, np.add, [x, y])


@pytest.mark.parametrize("scalar", [2, 2.5, True], ids=_id)
@pytest.mark.parametrize("dtype", [F32, I32, np.float16, U8], ids=_id)
def test_python_scalar_operands_stay_weak(dtype, scalar):
    x = _rand(np.random.default_rng(4), (3,), dtype, "positive")
    _check(lambda a: a * scalar - scalar, lambda a: a * scalar - scalar,
           lambda a: np.asarray(jnp_ref.asarray(a) * scalar - scalar), [x])


def test_scalar_only_arithmetic_is_weak():
    _check(lambda a: jnp.asarray(a) * 2 + 1, lambda a: jnp_ref.asarray(a) * 2 + 1, lambda a: a * 2 + 1, [3.0])


@pytest.mark.parametrize("exponent", [0, 1, 3, -2, 2.0])
def test_power_with_static_exponents(exponent):
    x = np.random.default_rng(5).uniform(0.5, 2, (4,)).astype(F32)
    _check(lambda a: a ** exponent, lambda a: a ** exponent, lambda a: a ** exponent, [x])


def test_integer_power_with_static_exponent_keeps_int_dtype():
    x = np.arange(-3, 4, dtype=I32)
    _check(lambda a: a ** 3, lambda a: a ** 3, lambda a: a ** 3, [x])


@pytest.mark.parametrize("shapes", [((2, 3), (2, 3), (2, 3)), ((3,), (2, 3), ()), ((2, 1), (3,), (2, 3))],
                         ids=_id)
def test_where(shapes):
    rng = np.random.default_rng(6)
    c, x, y = rng.random(shapes[0]) > 0.5, _rand(rng, shapes[1], F32), _rand(rng, shapes[2], I32)
    _check(jnp.where, jnp_ref.where, np.where, [c, x, y])


def test_where_with_python_scalars():
    x = _rand(np.random.default_rng(7), (5,), F32)
    _check(lambda v: jnp.where(v > 0, v, 0.0), lambda v: jnp_ref.where(v > 0, v, 0.0),
           lambda v: np.where(v > 0, v, 0.0), [x])


def test_clip():
    x = _rand(np.random.default_rng(8), (5,), F32)
    _check(lambda v: jnp.clip(v, -0.5, 0.5), lambda v: jnp_ref.clip(v, -0.5, 0.5),
           lambda v: np.clip(v, -0.5, 0.5), [x])


# --- reductions ---------------------------------------------------------------------------

REDUCTIONS = {"sum": (F32, I32, BOOL, U8), "mean": (F32, I32), "max": (F32, I32, BOOL),
              "min": (F32, U8), "prod": (F32, I32), "all": (BOOL, F32), "any": (BOOL, I32)}
AXES = [None, 0, -1, (0, 2), (2, 0, 1)]
RED_CASES = [(name, dt, None, False) for name, dts in REDUCTIONS.items() for dt in dts]
RED_CASES += [(name, F32, axis, keepdims) for name in ("sum", "max", "mean") for axis in AXES[1:]
              for keepdims in (False, True)]
RED_CASES += [("prod", I32, 1, True), ("all", BOOL, (0, 1), False), ("any", BOOL, -2, True),
              ("sum", F64, 1, False), ("mean", I64, None, False), ("min", F64, 0, True)]


@pytest.mark.parametrize("name,dtype,axis,keepdims", RED_CASES, ids=_id)
def test_reductions(name, dtype, axis, keepdims):
    rng = np.random.default_rng(hash((name, str(axis))) % 2**32)
    x = _rand(rng, (2, 3, 4), dtype, "small" if name == "prod" else "any")
    kw = dict(axis=axis, keepdims=keepdims)
    _check(lambda a: getattr(jnp, name)(a, **kw), lambda a: getattr(jnp_ref, name)(a, **kw),
           lambda a: getattr(np, name)(a, **kw), [x], x64=dtype in X64_DTYPES)


@pytest.mark.parametrize("name,axis,ddof", [("var", None, 0), ("std", 1, 1), ("var", (0, 2), 0)], ids=_id)
def test_variance(name, axis, ddof):
    x = _rand(np.random.default_rng(15), (2, 3, 4), F32)
    kw = dict(axis=axis, ddof=ddof)
    _check(lambda a: getattr(jnp, name)(a, **kw), lambda a: getattr(jnp_ref, name)(a, **kw),
           lambda a: getattr(np, name)(a, **kw), [x])


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "all", "any"])
def test_reductions_of_empty_arrays(name):
    x = np.zeros((0, 3), F32)
    _check(lambda a: getattr(jnp, name)(a, axis=0), lambda a: getattr(jnp_ref, name)(a, axis=0),
           lambda a: getattr(np, name)(a, axis=0), [x])


def test_reduction_of_a_scalar():
    _check(jnp.sum, jnp_ref.sum, np.sum, [np.float32(2.5)])


def test_reduction_methods_on_arrays():
    x = _rand(np.random.default_rng(9), (3, 4), F32)
    _check(lambda a: (a.sum(0), a.mean(axis=1, keepdims=True), a.max(), a.min(-1), a.prod(1))[1],
           lambda a: a.mean(axis=1, keepdims=True), lambda a: a.mean(axis=1, keepdims=True), [x])


# --- products -----------------------------------------------------------------------------

MATMUL_SHAPES = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)),
                 ((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2)), ((4,), (2, 4, 5)),
                 ((0, 4), (4, 2)), ((3, 0), (0, 2))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=_id)
def test_matmul(sa, sb):
    rng = np.random.default_rng(10)
    _check(jnp.matmul, jnp_ref.matmul, np.matmul, [_rand(rng, sa, F32), _rand(rng, sb, F32)])


@pytest.mark.parametrize("dtype", [I32, F64], ids=_id)
def test_matmul_dtypes(dtype):
    rng = np.random.default_rng(11)
    _check(jnp.matmul, jnp_ref.matmul, np.matmul, [_rand(rng, (2, 3), dtype), _rand(rng, (3, 2), dtype)],
           x64=dtype in X64_DTYPES)


def test_matmul_operator_with_mixed_dtypes():
    rng = np.random.default_rng(12)
    _check(lambda a, b: a @ b, lambda a, b: a @ b, lambda a, b: a @ b,
           [_rand(rng, (2, 3), I32), _rand(rng, (3, 2), F32)])


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 3, 4), (5, 4, 2)),
                                   ((), (3,))], ids=_id)
def test_dot(sa, sb):
    rng = np.random.default_rng(13)
    _check(jnp.dot, jnp_ref.dot, np.dot, [_rand(rng, sa, F32), _rand(rng, sb, F32)])


# --- shapes and creation --------------------------------------------------------------------

SHAPE_FNS = {
    "reshape_-1": (lambda m: (lambda a: m.reshape(a, (-1, 4)))),
    "reshape_method": (lambda m: (lambda a: a.reshape(4, 2, 3))),
    "transpose": (lambda m: (lambda a: m.transpose(a))),
    "transpose_axes": (lambda m: (lambda a: m.transpose(a, (1, 2, 0)))),
    "T": (lambda m: (lambda a: a.T)),
    "ravel": (lambda m: (lambda a: m.ravel(a))),
    "expand_dims": (lambda m: (lambda a: m.expand_dims(a, -1))),
    "swapaxes": (lambda m: (lambda a: m.swapaxes(a, 0, 2))),
    "squeeze": (lambda m: (lambda a: m.squeeze(m.expand_dims(a, 1), 1))),
    "broadcast_to": (lambda m: (lambda a: m.broadcast_to(a, (3, 2, 3, 4)))),
    "astype_i32": (lambda m: (lambda a: a.astype(m.int32))),
    "astype_bool": (lambda m: (lambda a: a.astype(bool))),
    "astype_f16": (lambda m: (lambda a: m.astype(a, m.float16))),
}


@pytest.mark.parametrize("name", list(SHAPE_FNS))
def test_shape_ops(name):
    x = np.random.default_rng(14).uniform(-3, 3, (2, 3, 4)).astype(F32)
    make = SHAPE_FNS[name]
    _check(make(jnp), make(jnp_ref), make(np), [x])


CREATION = {
    "zeros": lambda m: m.zeros((2, 3)),
    "ones_i32": lambda m: m.ones(4, dtype=m.int32),
    "full": lambda m: m.full((2, 2), 7.5),
    "full_int": lambda m: m.full((3,), 2),
    "arange": lambda m: m.arange(5),
    "arange_step": lambda m: m.arange(2, 11, 3),
    "arange_float": lambda m: m.arange(0.0, 1.0, 0.25),
    "eye": lambda m: m.eye(3, 4, k=1),
    "linspace": lambda m: m.linspace(-1.0, 2.0, 7),
    "linspace_no_endpoint": lambda m: m.linspace(0, 1, 4, endpoint=False),
    "asarray_list": lambda m: m.asarray([[1.0, 2.0], [3.0, 4.0]]),
    "array_int": lambda m: m.array([1, 2, 3]),
    "asarray_scalar": lambda m: m.asarray(3.5),
    "zeros_like": lambda m: m.zeros_like(m.ones((2,), dtype=m.int32)),
}


@pytest.mark.parametrize("name", list(CREATION))
def test_creation(name):
    make = CREATION[name]
    want = make(jnp_ref)
    for got in (make(jnp), numlir.jit(lambda: make(jnp))()):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(np.asarray(got), make(np).astype(want.dtype), rtol=1e-6, atol=1e-6)


def test_ones_x64_default_is_float64(x64):
    assert jnp.ones(2).dtype == np.float64 and jnp.arange(3).dtype == np.int64
