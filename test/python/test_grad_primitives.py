"""Reverse mode per primitive: numlir.vjp against jax.vjp, and check_grads (forward and
reverse mode against float64 finite differences, up to second order) for every
differentiable lax primitive."""

import jax
import jax.numpy as J
import numpy as np
import pytest
from ad_testing import check_grads, check_jvp, check_vjp_against_jax

import numlir.lax as lax
import numlir.numpy as jnp
from numlir._src import ad, core, transpose

R = np.random.default_rng(7)


def arr(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape).astype(np.float64)


X, Y = arr(2, 3), arr(2, 3)
POS = arr(2, 3, lo=0.3, hi=2.0)
UNIT = arr(2, 3, lo=-0.8, hi=0.8)
M = arr(3, 4)  # a matrix for slicing and indexing
PRED = np.array([[True, False, True], [False, False, True]])


def check(f, jf, args, order=2, **tols):
    check_vjp_against_jax(f, jf, args)
    check_grads(f, args, order=order, **tols)


def cases(table):
    """(id, f, jf, args, order) rows for parametrize; ids are the first entries."""
    return pytest.mark.parametrize("f,jf,args,order", [r[1:] for r in table],
                                   ids=[r[0] for r in table])


def gdn(l, dn):
    return l.GatherDimensionNumbers(**dn)


def sdn(l, dn):
    return l.ScatterDimensionNumbers(**dn)


def both(expr):
    """``expr(lax_module)`` as (numlir, jax) functions of the same lax calls."""
    return lambda *a: expr(lax, *a), lambda *a: expr(jax.lax, *a)


def row(name, expr, args, order=2):
    f, jf = both(expr)
    return (name, f, jf, args, order)


# --- Elementwise ------------------------------------------------------------------------------

UNARY = [(name, getattr(lax, name), getattr(jax.lax, name), x) for name, x in [
    ("neg", X), ("abs", X), ("exp", X), ("log", POS), ("tanh", X), ("logistic", X),
    ("sqrt", POS), ("rsqrt", POS), ("sin", X), ("cos", X), ("log1p", POS), ("expm1", X),
    ("tan", UNIT), ("asin", UNIT), ("acos", UNIT), ("atan", X), ("sinh", X), ("cosh", X),
    ("asinh", X), ("acosh", POS + 1.0), ("atanh", UNIT), ("erf", X), ("erf_inv", UNIT),
    ("cbrt", POS), ("lgamma", POS)]]
ELEMENTWISE = [(name, f, jf, (x,), 2) for name, f, jf, x in UNARY]

ELEMENTWISE += [(name, getattr(lax, name), getattr(jax.lax, name), (x, y), 2) for name, x, y in [
    ("add", X, Y), ("sub", X, Y), ("mul", X, Y), ("div", X, POS), ("rem", X, POS + 0.5),
    ("max", X, Y), ("min", X, Y), ("pow", POS, Y), ("atan2", X, Y)]]

ELEMENTWISE += [
    ("mul_by_scalar", lambda x, s: lax.mul(x, s), lambda x, s: jax.lax.mul(x, s),
     (X, np.float64(1.7)), 2),
    ("div_scalar_denominator", lambda x, s: lax.div(x, s), lambda x, s: jax.lax.div(x, s),
     (X, np.float64(1.3)), 2),
    ("select", lambda x, y: lax.select(PRED, x, y), lambda x, y: jax.lax.select(PRED, x, y),
     (X, Y), 2),
    ("select_data_dependent", lambda x, y: lax.select(lax.gt(x, y), x * y, y),
     lambda x, y: jax.lax.select(jax.lax.gt(x, y), x * y, y), (X, Y), 2),
    ("clamp", lax.clamp, jax.lax.clamp,
     (arr(2, 3, lo=-1.5, hi=-0.5), X, arr(2, 3, lo=0.5, hi=1.5)), 2),
    ("clamp_scalar_bounds", lambda x: lax.clamp(-0.5, x, 1.0),
     lambda x: jax.lax.clamp(-0.5, x, 1.0), (X,), 2),
]


@cases(ELEMENTWISE)
def test_elementwise_grads(x64, f, jf, args, order):
    check(f, jf, args, order)


def test_convert_element_type_grads(x64):
    # float64 -> float32 -> float64: finite differences see float32 rounding, hence the larger
    # step (exact for a linear function up to that rounding).
    f, jf = both(lambda l, x: l.convert_element_type(l.convert_element_type(x, np.float32),
                                                       np.float64))
    check_vjp_against_jax(f, jf, (X,))
    check_grads(f, (X,), order=2, eps=1e-2, rtol=1e-5, atol=1e-5)
    check_grads(lambda x: lax.convert_element_type(x, np.float32) * 2.0, (X,), order=1,
                eps=1e-2, rtol=1e-4, atol=1e-4)


# --- Reductions and shape ops -------------------------------------------------------------------

REDUCTIONS_AND_SHAPES = [
    ("sum_axis", lambda x: lax.reduce_sum(x, (1,)), lambda x: J.sum(x, 1), (X,), 2),
    ("sum_all", lambda x: lax.reduce_sum(x, (0, 1)), lambda x: J.sum(x), (X,), 2),
    ("prod_axis", lambda x: lax.reduce_prod(x, (0,)), lambda x: J.prod(x, 0), (X,), 2),
    ("prod_all", lambda x: lax.reduce_prod(x, (0, 1)), lambda x: J.prod(x), (X,), 2),
    ("max_axis", lambda x: lax.reduce_max(x, (1,)), lambda x: J.max(x, 1), (X,), 2),
    ("max_all", lambda x: lax.reduce_max(x, (0, 1)), lambda x: J.max(x), (X,), 2),
    ("min_axis", lambda x: lax.reduce_min(x, (0,)), lambda x: J.min(x, 0), (X,), 2),
    ("broadcast_in_dim_new_axes", lambda x: lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
     lambda x: jax.lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)), (X,), 2),
    ("broadcast_in_dim_size_one", lambda x: lax.broadcast_in_dim(x[:, :1], (2, 5), (0, 1)),
     lambda x: jax.lax.broadcast_in_dim(x[:, :1], (2, 5), (0, 1)), (X,), 2),
    ("reshape", lambda x: lax.reshape(x, (3, 2)), lambda x: jax.lax.reshape(x, (3, 2)), (X,), 2),
    ("reshape_flat_squared", lambda x: lax.reshape(x * x, (6,)),
     lambda x: jax.lax.reshape(x * x, (6,)), (X,), 2),
    ("transpose", lambda x: lax.transpose(lax.reshape(x, (1, 2, 3)), (2, 0, 1)),
     lambda x: jax.lax.transpose(jax.lax.reshape(x, (1, 2, 3)), (2, 0, 1)), (X,), 2),
]


@cases(REDUCTIONS_AND_SHAPES)
def test_reduction_and_shape_grads(x64, f, jf, args, order):
    check(f, jf, args, order)


# --- dot_general ----------------------------------------------------------------------------------

DOTS = [
    ("matmul", (((1,), (0,)), ((), ())), (2, 3), (3, 4)),
    ("matvec", (((1,), (0,)), ((), ())), (2, 3), (3,)),
    ("inner", (((0,), (0,)), ((), ())), (3,), (3,)),
    ("outer", (((), ()), ((), ())), (2,), (3,)),
    ("contract_two_dims", (((0, 2), (2, 0)), ((), ())), (2, 3, 4), (4, 5, 2)),
    ("batch_leading", (((2,), (1,)), ((0,), (0,))), (2, 3, 4), (2, 4, 5)),
    ("batch_not_leading", (((2,), (0,)), ((1,), (2,))), (3, 2, 4), (4, 5, 2)),
    ("two_batch_dims", (((3,), (2,)), ((0, 1), (1, 0))), (2, 3, 2, 4), (3, 2, 4)),
]


@pytest.mark.parametrize("dn,lshape,rshape", [d[1:] for d in DOTS], ids=[d[0] for d in DOTS])
def test_dot_general_grads(x64, dn, lshape, rshape):
    f = lambda x, y: lax.dot_general(x, y, dn)  # noqa: E731
    check(f, lambda x, y: jax.lax.dot_general(x, y, dn), (arr(*lshape), arr(*rshape)))


def test_dot_general_preferred_element_type_grads(x64):
    # float32 operands accumulated in float64: cotangents come back as float32. Central
    # differences are exact for a bilinear function, so a large step only sees rounding.
    dn = (((1,), (0,)), ((), ()))
    x, y = arr(2, 3).astype(np.float32), arr(3, 4).astype(np.float32)
    f = lambda x, y: lax.dot_general(x, y, dn, preferred_element_type=np.float64)  # noqa: E731
    jf = lambda x, y: jax.lax.dot_general(x, y, dn, preferred_element_type=np.float64)  # noqa: E731
    check_vjp_against_jax(f, jf, (x, y), rtol=1e-5, atol=1e-5)
    check_grads(f, (x, y), order=2, eps=0.5, rtol=1e-4, atol=1e-4)


# --- Slicing, gather and scatter -----------------------------------------------------------------

# Dimension numbers as functions of the lax module (numlir's or jax's own NamedTuples).
GATHER_ROWS = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
GATHER_WINDOWS = dict(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
GATHER_POINTS = dict(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(1, 0))
ROWS = np.array([[2], [0], [2], [1]], np.int32)
WINDOWS = np.array([[0, 1], [1, 2], [0, 1]], np.int32)
WINDOWS_OOB = np.array([[0, 1], [2, 3], [-1, 0], [1, 7]], np.int32)
POINTS = np.array([[[3, 0], [1, 2]], [[0, 1], [3, 0]]], np.int32)
SCATTER_ROWS = dict(update_window_dims=(1,), inserted_window_dims=(0,),
                    scatter_dims_to_operand_dims=(0,))
SCATTER_WINDOWS = dict(update_window_dims=(1, 2), inserted_window_dims=(),
                       scatter_dims_to_operand_dims=(0, 1))
UPD_ROWS = arr(4, 4)
UPD_WINDOWS = arr(4, 2, 2)
IDX = np.array([2, 0, 2, -1])


SLICING = [
    row("slice_strided", lambda l, x: l.slice(x, (0, 1), (3, 4), (2, 2)), (M,)),
    row("slice_strided_squared", lambda l, x: l.slice(x * x, (1, 0), (2, 4), (1, 3)), (M,)),
    row("dynamic_slice_clamped_start", lambda l, x: l.dynamic_slice(x, (2, 3), (2, 3)), (M,)),
    row("dynamic_slice_negative_start", lambda l, x: l.dynamic_slice(x, (-1, -3), (1, 2)), (M,)),
    row("dynamic_slice_traced_start",
        lambda l, x: l.dynamic_slice(x, (np.int32(1), l.convert_element_type(2.7, np.int32)),
                                     (2, 2)), (M,)),
    row("dynamic_update_slice", lambda l, x, u: l.dynamic_update_slice(x, u, (1, 1)),
        (M, arr(2, 2))),
    row("dynamic_update_slice_clamped",
        lambda l, x, u: l.dynamic_update_slice(x * x, u * u, (2, 3)), (M, arr(2, 3))),
    row("concatenate", lambda l, x, y: l.concatenate([x, y, x * y], 0), (X, Y)),
    row("concatenate_with_constant",
        lambda l, x: l.concatenate([np.ones((2, 1)), x, np.zeros((2, 2))], 1), (X,)),
    row("pad_interior", lambda l, x, v: l.pad(x, v, [(0, 0, 2), (1, 0, 1)]), (X, np.float64(-1.0))),
    row("pad_negative", lambda l, x, v: l.pad(x * v, v, [(-1, 2, 1), (2, -3, 2)]),
        (X, np.float64(1.5))),
    row("pad_constant_value", lambda l, x: l.pad(x, 0.0, [(1, -1, 1), (-2, 1, 0)]), (X,)),
    row("rev_both", lambda l, x: l.rev(x * x, (0, 1)), (M,)),
    row("gather_rows", lambda l, x: l.gather(x, ROWS, gdn(l, GATHER_ROWS), (1, 4)), (M,)),
    row("gather_windows",
        lambda l, x: l.gather(x * x, WINDOWS, gdn(l, GATHER_WINDOWS), (2, 2)), (M,)),
    row("gather_points", lambda l, x: l.gather(x, POINTS, gdn(l, GATHER_POINTS), (1, 1)), (M,)),
    row("gather_clip",
        lambda l, x: l.gather(x, WINDOWS_OOB, gdn(l, GATHER_WINDOWS), (2, 3), mode="clip"),
        (M,)),
    row("gather_fill",
        lambda l, x: l.gather(x, WINDOWS_OOB, gdn(l, GATHER_WINDOWS), (2, 3), mode="fill",
                              fill_value=0.0), (M,)),
    row("scatter_add_rows",
        lambda l, x, u: l.scatter_add(x, ROWS, u, sdn(l, SCATTER_ROWS)), (M, UPD_ROWS)),
    row("scatter_add_windows_dropped",
        lambda l, x, u: l.scatter_add(x, WINDOWS_OOB, u * u, sdn(l, SCATTER_WINDOWS)),
        (M, UPD_WINDOWS)),
    row("scatter_add_windows_clip",
        lambda l, x, u: l.scatter_add(x, WINDOWS_OOB, u, sdn(l, SCATTER_WINDOWS), mode="clip"),
        (M, UPD_WINDOWS)),
    ("getitem_int_array", lambda x: jnp.asarray(x)[IDX], lambda x: x[IDX], (M,), 2),
    ("getitem_mixed", lambda x: jnp.asarray(x)[1:, IDX[:2]] ** 2,
     lambda x: x[1:, IDX[:2]] ** 2, (M,), 2),
    ("getitem_pairs", lambda x: jnp.asarray(x)[IDX, np.array([3, 0, 1, 2])],
     lambda x: x[IDX, np.array([3, 0, 1, 2])], (M,), 2),
    ("getitem_slices", lambda x: jnp.asarray(x)[::2, 1::2], lambda x: x[::2, 1::2], (M,), 2),
    ("getitem_scalar", lambda x: jnp.asarray(x)[-1, 2], lambda x: x[-1, 2], (M,), 2),
    ("at_add_duplicates", lambda x, u: jnp.asarray(x).at[IDX].add(u),
     lambda x, u: x.at[IDX].add(u), (M, UPD_ROWS), 2),
    ("at_add_out_of_bounds_dropped",
     lambda x, u: jnp.asarray(x).at[np.array([1, 5, -7, 1])].add(u * x[0]),
     lambda x, u: x.at[np.array([1, 5, -7, 1])].add(u * x[0]), (M, UPD_ROWS), 2),
    ("at_add_columns", lambda x, u: jnp.asarray(x).at[:, np.array([3, 3, 0])].add(u),
     lambda x, u: x.at[:, np.array([3, 3, 0])].add(u), (M, arr(3, 3)), 2),
]


@cases(SLICING)
def test_slicing_grads(x64, f, jf, args, order):
    check(f, jf, args, order)


# --- Windowed reductions and cumulative sums -----------------------------------------------------

IMG = arr(1, 5, 6, 2)  # NHWC
IMG_SMALL = arr(1, 4, 5, 1)
POOLS = [  # (name, window, strides, padding, base_dilation, window_dilation)
    ("pool_2x2_valid", (1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
    ("pool_3x3_same", (1, 3, 3, 1), (1, 1, 1, 1), "SAME", None, None),
    ("pool_3x2_stride_2_same", (1, 3, 2, 1), (1, 2, 2, 1), "SAME", None, None),
    ("explicit_padding", (1, 2, 3, 1), (1, 2, 1, 1), ((0, 0), (1, 1), (1, 0), (0, 0)), None, None),
]
DILATED_POOL = ("window_dilation", (1, 2, 2, 1), (1, 1, 2, 1), "VALID", None, (1, 2, 3, 1))
SUM_ONLY_POOLS = [  # windows may hold only padding or dilation holes: fine for sums only
    DILATED_POOL,
    ("padding_only_windows", (1, 2, 3, 1), (1, 2, 1, 1), ((0, 0), (1, 2), (2, 0), (0, 0)), None,
     None),
    ("base_dilation", (1, 2, 3, 1), (1, 1, 2, 1), ((0, 0), (1, 1), (0, 2), (0, 0)),
     (1, 2, 3, 1), None),
    ("negative_padding", (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0), (-1, 2), (1, -2), (0, 0)), None,
     None),
    ("everything", (1, 2, 3, 2), (1, 3, 2, 1), ((0, 0), (2, -1), (-1, 3), (1, 0)), (1, 2, 1, 2),
     (1, 2, 2, 1)),
]


def pool(kind, w, s, p, b, d):
    """reduce_window_<kind> in numlir and as jax.lax.reduce_window."""
    init, reducer = {"sum": (0.0, "add"), "max": (-np.inf, "max"), "min": (np.inf, "min")}[kind]
    return (lambda x: getattr(lax, f"reduce_window_{kind}")(x, w, s, p, b, d),
            lambda x: jax.lax.reduce_window(x, init, getattr(jax.lax, reducer), w, s, p, b, d))


WINDOWED = [(f"sum_{name}", *pool("sum", *config), (IMG,), 2)
            for name, *config in POOLS + SUM_ONLY_POOLS]
# max/min differentiate by walking the window offsets: fewer and smaller cases keep this fast.
WINDOWED += [(f"{kind}_{name}", *pool(kind, *config), (IMG_SMALL,), 2)
             for kind, configs in [("max", POOLS[::2]), ("min", POOLS[3:])]
             for name, *config in configs]
WINDOWED += [
    ("reduce_window_add_init", lambda x: lax.reduce_window(x * x, 1.0, lax.add, (2, 2), (1, 2),
                                                           "SAME"),
     lambda x: jax.lax.reduce_window(x * x, 0.0, jax.lax.add, (2, 2), (1, 2), "SAME") + 1.0,
     (M,), 2),
    ("avg_pool_squared", lambda x: lax.reduce_window_sum(x * x, (1, 2, 2, 1), (1, 2, 2, 1),
                                                         "VALID") / 4.0,
     lambda x: jax.lax.reduce_window(x * x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1),
                                     "VALID") / 4.0, (IMG,), 2),
    row("cumsum", lambda l, x: l.cumsum(x, 1), (M,)),
    row("cumsum_reverse", lambda l, x: l.cumsum(x * x, 0, reverse=True), (M,)),
]


@cases(WINDOWED)
def test_windowed_and_cumulative_grads(x64, f, jf, args, order):
    check(f, jf, args, order)


def test_window_dilated_max_pool_grads(x64):
    # jax has no reverse mode for max pooling with window dilation: its forward mode is the
    # oracle, and the dot-product test checks our reverse mode against that.
    f, jf = pool("max", *DILATED_POOL[1:])
    check_jvp(f, jf, (IMG_SMALL,))
    check_grads(f, (IMG_SMALL,), order=2)


def test_sort_values_grads(x64):
    check(*both(lambda l, x: l.sort(x * x, dimension=1)), (M,))
    check(*both(lambda l, x: l.sort(x, dimension=0)), (M,))


# --- The checkers themselves ---------------------------------------------------------------------


def test_check_grads_catches_a_wrong_transpose_rule(x64, monkeypatch):
    from numlir._src.lax.slicing import rev_p

    # Forward mode is right, but reverse mode sends the cotangent back unreversed.
    monkeypatch.setitem(transpose.transpose_rules, rev_p, lambda ct, x, *, dimensions: [ct])
    f = lambda x: lax.rev(x, (1,))  # noqa: E731
    check_grads(f, (M,), order=1, modes=("fwd",))
    with pytest.raises(AssertionError, match="vjp"):
        check_grads(f, (M,), order=1, modes=("rev",))


def test_check_grads_catches_a_wrong_second_derivative(x64, monkeypatch):
    # A JVP rule whose own derivative is wrong: sin's tangent scaled by a cos that has no
    # derivative, so only the order-2 checks can notice.
    from numlir._src.lax.elementwise import sin_p

    def wrong(primals, tangents):
        (x,), (t,) = primals, tangents
        return lax.sin(x), lax.mul(t, lax.stop_gradient(lax.cos(x)))

    monkeypatch.setitem(ad.jvp_rules, sin_p, wrong)
    check_grads(lax.sin, (X,), order=1)
    with pytest.raises(AssertionError):
        check_grads(lax.sin, (X,), order=2, modes=("fwd",))


def test_check_vjp_against_jax_catches_a_mismatch(x64):
    # Equal outputs, derivatives that differ by 1e-3.
    jf = lambda x: jax.lax.sin(x) + 1e-3 * (x - jax.lax.stop_gradient(x))  # noqa: E731
    check_vjp_against_jax(lax.sin, jax.lax.sin, (X,))
    with pytest.raises(AssertionError, match="cotangents"):
        check_vjp_against_jax(lax.sin, jf, (X,))
