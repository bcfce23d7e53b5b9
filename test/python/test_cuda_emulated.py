"""The cuda backend's kernels, run on the host (backend ``cuda_emulated``), against the
cpu backend: the same launches the GPU would run (one per fusion, a block per row, thread
strides, block reductions with barriers), so these check numlir's grid mapping, indexing
and reduction logic at the edges (signed zeros, NaN, infinities, integer extremes, sizes
that are not multiples of the block) across dtypes and shapes. `make test` also runs the
primitive test files with NUMLIR_BACKEND=cuda_emulated."""

import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

FLOATS = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
INTS = [np.int8, np.int32, np.int64, np.uint8, np.uint32]


def on_both(fun, *args, **jit_options):
    """``fun`` on the emulated kernels and on the cpu backend, as host arrays."""
    emulated = numlir.jit(fun, backend="cuda_emulated", **jit_options)(*args)
    cpu = numlir.jit(fun, backend="cpu", **jit_options)(*args)
    leaves = numlir.tree_util.tree_leaves
    return [np.asarray(a) for a in leaves(emulated)], [np.asarray(b) for b in leaves(cpu)]


def assert_same(fun, *args, rtol=0.0, atol=0.0):
    got, want = on_both(fun, *args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if rtol or atol:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64),
                                       rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


def edge_floats(dtype, shape):
    """Values with every special one: ±0, ±inf, NaN, tiny and huge, then ordinary ones."""
    info = np.finfo(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, float(info.tiny), float(info.max),
                        -float(info.max), 1.0, -1.0], np.float64)
    rng = np.random.default_rng(7)
    values = rng.standard_normal(int(np.prod(shape))) * 3
    values[: special.size] = special[: values.size]
    return values.reshape(shape).astype(dtype)


def tolerance(dtype):
    return {np.float16: 1e-2, ml_dtypes.bfloat16: 5e-2, np.float32: 1e-5}.get(dtype, 1e-12)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(7,), (3, 300), (2, 5, 33)])
def test_elementwise_chains_match_at_special_values(dtype, shape):
    x = edge_floats(dtype, shape)
    assert_same(lambda x: jnp.where(x > 0, jnp.exp(-x) * 2, jnp.tanh(x) - x) + jnp.abs(x),
                x, rtol=tolerance(dtype), atol=tolerance(dtype))


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_integer_arithmetic_matches_at_the_extremes(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 1, info.max // 3, info.min // 2 if info.min else 5,
                  7, 100 % (int(info.max) + 1)], dtype)
    y = np.array([1, 2, 3, info.max, 5, 6, 7, 1], dtype)
    assert_same(lambda a, b: (a * b + a, a // b, a % b, jnp.maximum(a, b), a >> 1), x, y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,axis", [((5, 1000), 1), ((5, 1000), 0), ((513,), 0),
                                        ((3, 4, 70), (0, 2)), ((1, 1), None)])
def test_sums_and_extrema_match_along_every_axis(dtype, shape, axis):
    # float64 is float32 unless x64 is on, as in jax; block reductions add in another
    # order than the cpu's loops, hence the tolerance (relative to the sums' scale).
    x = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    assert_same(lambda x: (x.sum(axis), x.max(axis), x.min(axis), jnp.prod(x[..., :3], axis=-1)),
                x, rtol=2e-5, atol=2e-5)


def test_sums_of_signed_zeros_keep_the_cpu_backends_signs():
    # The block reduction starts each thread at -0, the identity of a float sum, so that
    # threads without elements change nothing; the output's initial value (+0, as in
    # jax) then decides, as on the cpu backend.
    x = np.full((3, 700), -0.0, np.float32)
    x[2, 5] = 0.0
    got, want = on_both(lambda x: (x.sum(1), x.sum(), jnp.prod(x, axis=1)), x)
    for g, w in zip(got, want):
        assert np.array_equal(g, w) and np.array_equal(np.signbit(g), np.signbit(w))


def test_max_reductions_propagate_nan_and_see_infinities():
    x = np.zeros((4, 600), np.float32)
    x[0, 599] = np.nan
    x[1, 3] = -np.inf
    x[2, :] = -np.inf
    x[3, 300] = np.inf
    assert_same(lambda x: (x.max(1), x.min(1), jnp.argmax(x, axis=1), jnp.argmin(x, axis=1)), x)


@pytest.mark.parametrize("dtype", INTS + [np.bool_], ids=lambda d: np.dtype(d).name)
def test_integer_and_boolean_reductions_match(dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2 if dtype is np.bool_ else 100, (6, 333)).astype(dtype)
    if dtype is np.bool_:
        assert_same(lambda x: (x.any(1), x.all(0), x.sum(1)), x)
    else:
        assert_same(lambda x: (x.sum(1), x.max(0), x.min(1), x.prod(1)), x)


@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 33), (64, 256), (3, 1025)])
def test_softmax_and_layer_norm_rows(rows, cols):
    x = np.random.default_rng(5).standard_normal((rows, cols)).astype(np.float32) * 4

    def layer_norm(x):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * lax.rsqrt(var + 1e-5)

    assert_same(lambda x: (numlir.nn.softmax(x, axis=-1), layer_norm(x)), x,
                rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64],
                         ids=lambda d: np.dtype(d).name)
def test_contractions_with_bias_and_activation(dtype):
    rng = np.random.default_rng(9)

    def make(shape):
        v = rng.standard_normal(shape)
        if np.issubdtype(dtype, np.complexfloating):
            v = v + 1j * rng.standard_normal(shape)
        return (v * 3).astype(dtype)

    a, b, c = make((17, 40)), make((40, 9)), make((9,))
    batched = make((3, 5, 6)), make((3, 6, 4))
    # Block reductions add in another order than the cpu's loops (float64 is float32
    # unless x64 is on, as in jax).
    tol = 0 if dtype == np.int32 else 1e-4
    assert_same(lambda a, b, c: jnp.tanh(a @ b + c) if dtype != np.int32 else a @ b + c,
                a, b, c, rtol=tol, atol=tol)
    assert_same(lambda x, y: jnp.einsum("bij,bjk->bik", x, y), *batched, rtol=tol, atol=tol)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (15, 17, 33), (17, 15, 100), (33, 1, 17),
                                   (100, 33, 15), (1, 100, 16), (16, 16, 16)])
def test_tiled_contractions_at_sizes_that_are_not_multiples_of_the_tile(m, n, k):
    # 16x16 output tiles and k steps of 16: the last tile of each dimension is partial.
    rng = np.random.default_rng(m * 10000 + n * 100 + k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((n,)).astype(np.float32)
    assert_same(lambda a, b, c: numlir.nn.relu(a @ b + c), a, b, c, rtol=1e-5, atol=1e-5)
    batched = (rng.standard_normal((3, m, k)).astype(np.float32),
               rng.standard_normal((3, k, n)).astype(np.float32))
    assert_same(lambda x, y: jnp.einsum("bij,bjk->bik", x, y), *batched, rtol=1e-5, atol=1e-5)


def test_tiled_contractions_never_multiply_the_padding_of_a_partial_tile():
    # k = 17: the last k step holds one valid column; the rest of the shared tiles keep
    # the first step's values, here infinities and NaN. Multiplying them (or the rows and
    # columns past the edge) would make finite outputs NaN or infinite.
    m, n, k = 17, 18, 17
    a = np.random.default_rng(3).standard_normal((m, k)).astype(np.float32)
    b = np.random.default_rng(4).standard_normal((k, n)).astype(np.float32)
    a[0, 0:16] = np.inf        # row 0 of the first A tile, columns the last step leaves stale
    a[16, 3] = -np.inf         # the last row, alone in its tile
    b[2:16, 0] = np.nan        # column 0 of the first B tile
    b[5, 17] = np.inf          # the last column, alone in its tile
    b[0, :] = 0.0              # inf * 0 in row 0: NaN on both backends
    got, want = on_both(lambda a, b: a @ b, a, b)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5, equal_nan=True)
    assert np.isfinite(want[0][1:16, 1:17]).all()
    assert np.array_equal(np.isnan(got[0]), np.isnan(want[0]))


def test_tiled_contractions_in_float64_and_int64_with_x64(x64):
    rng = np.random.default_rng(21)
    a, b = rng.standard_normal((33, 17)), rng.standard_normal((17, 100))
    # Each output element adds its products in k order from the output's initial value,
    # as the cpu's loops do.
    assert_same(lambda a, b: jnp.tanh(a @ b), a, b, rtol=1e-12, atol=1e-12)
    ints = rng.integers(-2**20, 2**20, (15, 33)), rng.integers(-2**20, 2**20, (33, 17))
    assert_same(lambda a, b: a @ b, *ints)


@pytest.mark.parametrize("x_shape,k_shape,stride,padding", [
    ((1, 5, 7, 3), (3, 3, 3, 17), (1, 1), "SAME"),
    ((3, 11, 9, 5), (4, 4, 5, 2), (2, 2), ((1, 2), (2, 1))),
    ((2, 8, 8, 33), (1, 1, 33, 16), (1, 1), "VALID")])
def test_tiled_convolutions_match_with_infinities_and_nan_at_the_edges(
        x_shape, k_shape, stride, padding):
    # Pixels x out-channels as the tile's rows and columns, taps x in-channels as its
    # depth: none of them multiples of 16; the image's corners (next to the padding) hold
    # an infinity and a NaN.
    rng = np.random.default_rng(sum(x_shape) + sum(k_shape))
    x = rng.standard_normal(x_shape).astype(np.float32)
    k = rng.standard_normal(k_shape).astype(np.float32)
    x[0, 0, 0, 0], x[-1, -1, -1, -1] = np.inf, np.nan
    assert_same(lambda x, k: numlir.nn.relu(lax.conv_general_dilated(
        x, k, stride, padding, dimension_numbers=("NHWC", "HWIO", "NHWC"))),
        x, k, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride,padding,dilation", [((1, 1), "SAME", (1, 1)),
                                                     ((2, 1), "VALID", (1, 2))])
def test_convolutions(stride, padding, dilation):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 9, 10, 3)).astype(np.float32)
    k = rng.standard_normal((3, 3, 3, 5)).astype(np.float32)
    assert_same(lambda x, k: lax.conv_general_dilated(
        x, k, stride, padding, rhs_dilation=dilation,
        dimension_numbers=("NHWC", "HWIO", "NHWC")), x, k, rtol=1e-5, atol=1e-5)


def test_data_movement_gather_and_scatter():
    x = np.arange(2 * 3 * 7, dtype=np.float32).reshape(2, 3, 7)
    idx = np.array([0, 2, 2, 1], np.int32)
    assert_same(lambda x: (jnp.transpose(x, (2, 0, 1)), jnp.concatenate([x, -x], axis=1),
                           jnp.pad(x, ((1, 0), (0, 2), (3, 1))), x[:, ::-1, 1:6:2],
                           jnp.reshape(x, (7, 6)), jnp.cumsum(x, axis=2)), x)
    assert_same(lambda x, i: (x[:, i], x.at[:, i].add(1.5), jnp.take(x, i, axis=2)), x, idx)
    assert_same(lambda x, s: lax.dynamic_slice(x, (0, s, 1), (2, 2, 4)), x, np.int32(2))


def test_sort_and_iota_run_as_kernels_too():
    x = np.random.default_rng(2).standard_normal((4, 37)).astype(np.float32)
    x[0, :3] = [np.nan, -0.0, 0.0]
    assert_same(lambda x: (jnp.sort(x, axis=1), jnp.argsort(x, axis=0),
                           jnp.arange(37) * x[1]), x)


def test_training_step_of_a_small_mlp_matches():
    rng = np.random.default_rng(4)
    w1, w2 = rng.standard_normal((20, 32)).astype(np.float32), rng.standard_normal((32, 3)).astype(np.float32)
    x, y = rng.standard_normal((16, 20)).astype(np.float32), rng.integers(0, 3, 16)

    def loss(params, x, y):
        h = numlir.nn.relu(x @ params[0])
        logits = h @ params[1]
        return -jnp.mean(numlir.nn.log_softmax(logits)[jnp.arange(16), y])

    def step(params, x, y):
        value, grads = numlir.value_and_grad(loss)(params, x, y)
        return value, [p - 0.1 * g for p, g in zip(params, grads)]

    assert_same(step, [w1, w2], x, y, rtol=1e-5, atol=1e-6)


def test_block_size_is_an_option_and_changes_nothing_but_the_mapping():
    x = np.random.default_rng(6).standard_normal((5, 777)).astype(np.float32)
    f = lambda x: numlir.nn.softmax(x, axis=-1)  # noqa: E731
    from numlir._src.backends import get_backend

    backend = get_backend("cuda_emulated")
    text = numlir.jit(f).lower(x).as_text()
    results = []
    for block in (32, 128, 1024):
        exe = backend.compile(text, options=backend.parse_options(block_size=block))
        results.append(exe.execute([x])[0])
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="multiple of 32"):
        backend.parse_options(block_size=48)


def test_float64_and_int64_kernels_with_x64(x64):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((33, 70)), rng.standard_normal((70, 5))
    big = np.array([2**62, -2**62, 3, 2**40], np.int64)
    assert_same(lambda a, b: (a @ b, a.sum(1), numlir.nn.softmax(a, axis=-1)), a, b,
                rtol=1e-12, atol=1e-12)
    assert_same(lambda v: (v.sum(), v * 3, v.max(), jnp.cumsum(v)), big)


def test_control_flow_runs_as_one_thread_kernels_with_the_cpus_values():
    # scan, fori_loop, cond and a while with a data-dependent trip count: each control-flow
    # op is a kernel of one thread for now, its fusions inlined into it.
    x = np.random.default_rng(12).standard_normal((6, 40)).astype(np.float32)

    def program(x):
        def body(c, xi):
            c = jnp.tanh(c * 0.5 + xi)
            return c, c.sum()
        carry, sums = lax.scan(body, x[0], x)
        looped = lax.fori_loop(0, 5, lambda i, v: v * 0.9 + i, x[1])
        chosen = lax.cond(x[2, 0] > 0, lambda v: v * 2, lambda v: -v, x[2])
        count = lax.while_loop(lambda s: s[1] < 100.0, lambda s: (s[0] + 1, s[1] * 2 + 1),
                               (0, jnp.abs(x[3, 0]) + 1.0))
        return carry, sums, looped, chosen, count

    assert_same(program, x, rtol=1e-5, atol=1e-6)


def test_a_kernel_returning_one_zero_sized_buffer_twice_compiles():
    # Fuzz seed 313, program 132 (jit(vmap(grad))): a multi-output fusion's two zero-sized
    # results bufferize into one allocation, which upstream's buffer-results-to-out-params
    # left dangling (a crash) until cuda-deduplicate-kernel-results.
    x0 = np.random.default_rng(13).standard_normal((2, 4, 5)).astype(np.float32)
    x1 = np.random.default_rng(14).standard_normal((3, 2, 1)).astype(np.float32)

    def f(x0, x1):
        v1 = jnp.moveaxis(x0, 0, 1).at[np.array([-5, 2, 1])].max(1.5)
        v2 = lax.cummin(x0, axis=0, reverse=True)
        v3 = jnp.pad(x1, ((1, 1), (1, 1)))
        return jnp.sum(v1) + jnp.sum(v2 * v2) + jnp.sum(jnp.tanh(v3))

    assert_same(numlir.vmap(numlir.grad(f, argnums=(0, 1)), in_axes=(0, 1)), x0, x1,
                rtol=1e-5, atol=1e-6)


def test_a_negation_fused_into_a_contraction_keeps_its_sign(x64):
    # Fuzz seed 314, program 205 (the gradient of a batched cholesky): linalg's elementwise
    # fusion put a negation inside a one-term contraction, and the CPU's
    # cpu-vectorize-contractions, which the emulation's one-thread kernels went through,
    # restated it as a plain multiply-add, dropping the negation.
    rng = np.random.default_rng(15)
    a = rng.standard_normal((3, 2, 2)) * 0.0625 + 2 * np.eye(2)
    a = a @ np.swapaxes(a, -1, -2)
    w = np.cos(np.arange(12) * 1.37 + 0.3).reshape(3, 2, 2)
    assert_same(numlir.grad(lambda a: jnp.sum(jnp.linalg.cholesky(a) * w)), a,
                rtol=1e-12, atol=1e-12)
    u, v = rng.standard_normal((1, 5)), rng.standard_normal((1, 7))
    assert_same(lambda u, v: jnp.einsum("ki,kj->ij", -u, v) + 1.0, u, v)
