"""numlir.numpy joining, splitting, padding, reordering and diagonal functions against
jax.numpy (value, dtype, weak type) and NumPy, eager and under jit.

The cases share a few operand shapes (size-0, 1-D..4-D) and cover each function's
distinct paths: axis handling, dtype promotion, static vs. traced arguments, modes.
"""

import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

RNG = np.random.default_rng(1)
F32, F64, I32, I64, BOOL = np.float32, np.float64, np.int32, np.int64, np.bool_


def _rand(shape, dtype=F32):
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return RNG.random(shape) > 0.5
    if dtype.kind in "iu":
        return RNG.integers(-5, 6, size=shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _same(got, want, np_want=None):
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want)
        for g, w, n in zip(got, want, np_want if np_want is not None else [None] * len(want)):
            _same(g, w, n)
        return
    assert isinstance(got, numlir.Array), type(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    assert got.weak_type == want.weak_type, (got, want)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
    if np_want is not None:
        np.testing.assert_allclose(np.asarray(got), np.asarray(np_want).astype(got.dtype),
                                   rtol=1e-6, atol=1e-6)


def _check(name, *args, np_check=True, jit=True, **kwargs):
    """jnp.<name>(*args, **kwargs) eager and under jit equals jax.numpy and NumPy."""
    ref = getattr(jnp_ref, name)
    ours = getattr(jnp, name)

    def conv(mod, a):
        if isinstance(a, np.ndarray):
            return mod.asarray(a)
        if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
            return [mod.asarray(v) for v in a]
        return a

    want = ref(*[conv(jnp_ref, a) for a in args], **kwargs)
    np_want = getattr(np, name)(*args, **kwargs) if np_check else None
    _same(ours(*[conv(jnp, a) for a in args], **kwargs), want, np_want)
    if jit:  # arrays are traced; static arguments (axes, sizes, repeats) stay closed over
        traced = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.ndim
                  or isinstance(a, list) and a and isinstance(a[0], np.ndarray)]

        def fn(*t):
            full = list(args)
            for i, v in zip(traced, t):
                full[i] = v
            return ours(*full, **kwargs)

        _same(numlir.jit(fn)(*[args[i] for i in traced]), want, np_want)


# --- concatenate / stack ------------------------------------------------------------------------


@pytest.mark.parametrize("shapes,axis", [
    (((2, 3), (1, 3)), 0), (((2, 3), (2, 0), (2, 2)), -1), (((4,), (0,)), 0),
    (((2, 1, 3), (2, 2, 3)), 1), (((1, 2, 1, 2), (1, 2, 3, 2)), 2), (((2, 3), (3,)), None),
])
def test_concatenate_shapes_and_axes(shapes, axis):
    _check("concatenate", [_rand(s) for s in shapes], axis=axis)


def test_concatenate_promotes_dtypes():
    _check("concatenate", [_rand((2,), I32), _rand((3,), F32), _rand((1,), BOOL)])
    _check("concatenate", [_rand((2,), BOOL), _rand((1,), BOOL)])


def test_concatenate_x64(x64):
    _check("concatenate", [_rand((2,), I64), _rand((1,), F64)])


@pytest.mark.parametrize("name", ["stack", "hstack", "vstack", "dstack", "column_stack"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 0, 2)], ids=str)
def test_stacking_functions(name, shape):
    if name == "column_stack" and len(shape) > 2:
        pytest.skip("column_stack of 3-D arrays joins along axis 1, same as hstack")
    _check(name, [_rand(shape), _rand(shape)])


def test_stack_axis_and_dtype():
    _check("stack", [_rand((2, 3), I32), _rand((2, 3), I32)], axis=-1)
    _check("stack", [_rand((2,), I32), _rand((2,), F32)], axis=1)


def test_concatenate_shape_mismatch_error_has_line():
    with pytest.raises(TypeError, match=r"concatenate: all operands must have equal shapes except "
                                        r"along dimension 0.* at .*test_joining.py:\d+"):
        jnp.concatenate([jnp.zeros((2, 3)), jnp.zeros((2, 2))])
    with pytest.raises(ValueError, match="Zero-dimensional"):
        jnp.concatenate([jnp.zeros(()), jnp.zeros(())])
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        jnp.concatenate([jnp.zeros((2, 3))], axis=2)


# --- array() of traced values -----------------------------------------------------------------


def test_array_of_traced_scalars_and_arrays():
    def f(a, b):
        mod = jnp_ref if not isinstance(a, numlir.Array) else jnp
        return mod.array([[a, b], [b, 1.0]]), mod.asarray((a * 2, a)), mod.array([b, b], dtype=mod.int32)

    a, b = np.float32(1.5), _rand(())
    want = f(jnp_ref.asarray(a), jnp_ref.asarray(b))
    _same(numlir.jit(f)(a, b), want)
    v = _rand((3,))
    want = jnp_ref.array([jnp_ref.asarray(v), jnp_ref.asarray(v) + 1])
    _same(numlir.jit(lambda v: jnp.array([v, v + 1]))(v), want)


# --- split ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,arg,axis", [
    ("split", 2, 0), ("split", [1, 3], 1), ("split", [3], 0), ("array_split", 3, 1),
    ("array_split", 5, 0), ("hsplit", 2, None), ("vsplit", [1], None),
])
def test_split_family(name, arg, axis):
    x = _rand((4, 4))
    if axis is None:
        _check(name, x, arg)
    else:
        _check(name, x, arg, axis=axis)


def test_split_unequal_is_an_error():
    with pytest.raises(ValueError, match="equal division"):
        jnp.split(jnp.zeros(5), 2)


# --- tile / repeat -----------------------------------------------------------------------------------


@pytest.mark.parametrize("shape,reps", [((3,), 2), ((2, 3), (2, 1)), ((2,), (2, 2, 1)),
                                        ((), 3), ((2, 0), 2)], ids=str)
def test_tile(shape, reps):
    _check("tile", _rand(shape, I32), reps)


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 1), (0, 0), (np.array([1, 0, 2]), 0),
                                          (np.array([2, 1, 0, 1]), 1)], ids=str)
def test_repeat(repeats, axis):
    _check("repeat", _rand((3, 4)), repeats=repeats, axis=axis)


def test_repeat_total_repeat_length():
    x = _rand((3,))
    got = jnp.repeat(jnp.asarray(x), np.array([1, 2, 0]), total_repeat_length=5)
    _same(got, jnp_ref.repeat(jnp_ref.asarray(x), np.array([1, 2, 0]), total_repeat_length=5))


# --- pad --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap",
                                  "linear_ramp"])
@pytest.mark.parametrize("shape,width", [((5,), (2, 3)), ((3, 4), ((1, 0), (2, 1))),
                                         ((2, 3, 2), 1)], ids=str)
def test_pad_modes(mode, shape, width):
    _check("pad", _rand(shape), width, mode=mode)


def test_pad_constant_values_and_dtypes():
    _check("pad", _rand((2, 3), I32), ((1, 2), (0, 1)), constant_values=((7, 8), (9, 10)))
    _check("pad", _rand((2, 3), BOOL), 1, constant_values=True)
    _check("pad", _rand((2, 3)), 2, constant_values=-1.5)
    _check("pad", _rand((0, 2)), 1)
    _check("pad", _rand((4,)), 3, mode="linear_ramp", end_values=(20, -10))


def test_pad_traced_constant_value():
    x, v = _rand((3,)), np.float32(4.0)
    want = jnp_ref.pad(jnp_ref.asarray(x), 1, constant_values=jnp_ref.asarray(v))
    _same(numlir.jit(lambda x, v: jnp.pad(x, 1, constant_values=v))(x, v), want)


# --- flip / roll / rot90 --------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)], ids=str)
def test_flip(axis):
    _check("flip", _rand((2, 3, 4)), axis=axis)


def test_fliplr_flipud():
    _check("fliplr", _rand((2, 3), I32))
    _check("flipud", _rand((3,), BOOL))


@pytest.mark.parametrize("shift,axis", [(2, None), (-1, 0), (7, 1), ((1, -2), (0, 1)),
                                        (1, (0, 1))], ids=str)
def test_roll_static(shift, axis):
    _check("roll", _rand((3, 4)), shift, axis=axis)


def test_roll_traced_shift():
    x = _rand((3, 4))
    for s in (1, -5, 9):
        want = jnp_ref.roll(jnp_ref.asarray(x), s, axis=1)
        _same(numlir.jit(lambda x, s: jnp.roll(x, s, axis=1))(x, np.int32(s)), want)


@pytest.mark.parametrize("k,axes", [(1, (0, 1)), (2, (0, 1)), (3, (1, 2)), (-1, (2, 0)), (4, (0, 1))],
                         ids=str)
def test_rot90(k, axes):
    _check("rot90", _rand((2, 3, 4)), k, axes)


# --- take / take_along_axis ----------------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, 1, -1], ids=str)
def test_take_in_bounds(axis):
    _check("take", _rand((3, 4)), np.array([[0, 2], [1, -1]], np.int32), axis=axis)


@pytest.mark.parametrize("mode", [None, "fill", "clip", "wrap"], ids=str)
@pytest.mark.parametrize("dtype", [F32, I32, BOOL])
def test_take_out_of_bounds_modes(mode, dtype):
    _check("take", _rand((4,), dtype), np.array([0, 5, -6, 3], np.int32), mode=mode,
           np_check=mode in ("clip", "wrap"))


def test_take_fill_value_and_x64(x64):
    _check("take", _rand((2, 3), F64), np.array([4, 1], np.int64), axis=1, fill_value=-2.0,
           np_check=False)


@pytest.mark.parametrize("shape,ishape,axis", [((3, 4), (3, 2), 1), ((3, 4), (1, 4), 0),
                                               ((2, 3, 4), (2, 3, 1), -1), ((5,), (3,), None)],
                         ids=str)
def test_take_along_axis(shape, ishape, axis):
    n = shape[axis] if axis is not None else int(np.prod(shape))
    idx = RNG.integers(-n, n, size=ishape).astype(np.int32)
    _check("take_along_axis", _rand(shape), idx, axis)


def test_take_along_axis_out_of_bounds_fills():
    _check("take_along_axis", _rand((2, 3)), np.array([[5], [0]], np.int32), 1, np_check=False)


# --- diagonals and triangles --------------------------------------------------------------------


@pytest.mark.parametrize("offset,axis1,axis2", [(0, 0, 1), (1, 0, 1), (-2, 0, 1), (5, 0, 1),
                                                (1, 2, 0), (-1, -1, -2)], ids=str)
def test_diagonal(offset, axis1, axis2):
    _check("diagonal", _rand((3, 4, 5)), offset, axis1, axis2)


@pytest.mark.parametrize("dtype", [F32, I32, BOOL])
def test_trace(dtype):
    _check("trace", _rand((3, 4), dtype))
    _check("trace", _rand((3, 4), dtype), 1)


@pytest.mark.parametrize("shape,k", [((3,), 0), ((3,), 2), ((2,), -1), ((3, 4), 1), ((3, 4), -1)],
                         ids=str)
def test_diag(shape, k):
    _check("diag", _rand(shape, I32), k)


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("shape,k", [((3, 4), 0), ((4, 3), -1), ((2, 3, 3), 1)], ids=str)
def test_tril_triu(name, shape, k):
    _check(name, _rand(shape), k)


def test_tri():
    _same(jnp.tri(3), jnp_ref.tri(3), np.tri(3))
    _same(jnp.tri(2, 4, 1, dtype=jnp.int32), jnp_ref.tri(2, 4, 1, dtype=jnp_ref.int32))


def test_tril_bool():
    _check("tril", _rand((3, 3), BOOL), -1)


# --- pad statistic modes and reflect_type='odd', against jax -------------------------------------
# Values and dtypes against jax, eager and under jit.


RNG_PAD = np.random.default_rng(7)


def _rand_pad(shape, dtype):
    if np.dtype(dtype).kind in "iu":
        return RNG_PAD.integers(-9, 10, size=shape).astype(dtype)
    return (RNG_PAD.standard_normal(shape) * 3).astype(dtype)


def _check_pad(got, want):
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
def test_pad_statistic_and_odd_reflect_modes(shape, pw, mode, kw, dtype, jit):
    x = _rand_pad(shape, dtype)
    f = lambda a: jnp.pad(a, pw, mode=mode, **kw)  # noqa: E731
    if jit:
        f = numlir.jit(f)
    _check_pad(f(x), jnp_ref.pad(x, pw, mode=mode, **kw))


@pytest.mark.parametrize("mode,kw", [
    ("mean", {"stat_length": 0}),
    ("maximum", {"stat_length": (2, 0)}),
    ("edge", {"reflect_type": "odd"}),
    ("wrap", {"stat_length": 1}),
])
def test_pad_errors(mode, kw):
    x = _rand_pad((4,), np.float32)
    with pytest.raises(ValueError):
        jnp_ref.pad(x, 1, mode=mode, **kw)
    with pytest.raises(ValueError):
        jnp.pad(x, 1, mode=mode, **kw)


