"""lax.custom_linear_solve and lax.custom_root (values and implicit derivatives against
jax and finite differences, under jit, vmap, jacfwd/jacrev), and lax's bit generators
(rng_bit_generator, rng_uniform) with the RandomAlgorithm and FftType enums."""

import jax
import jax.extend as jex
import jax.numpy as jjnp
import numpy as np
import pytest
from jax import lax as jlax

import numlir
import numlir.numpy as jnp
from jax_comparison import assert_same
from numlir import lax

F32, F64 = np.float32, np.float64


def rand(shape, seed=0, dtype=F64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def leaves(tree):
    return [np.asarray(x, F64) for x in jax.tree_util.tree_leaves(tree)]


def assert_close(got, want, tol):
    for g, w in zip(leaves(got), leaves(want), strict=True):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


# --- custom_linear_solve ----------------------------------------------------------------------


def linear_solver(lib, lax_mod, symmetric=False, transpose=True):
    """x = A^-1 b through custom_linear_solve, A closed over by matvec."""

    def f(a, b):
        def solve(matvec, y):
            return lib.linalg.solve(a, y)

        def transpose_solve(vecmat, y):
            return lib.linalg.solve(a.T, y)

        return lax_mod.custom_linear_solve(
            lambda x: a @ x, b, solve, None if symmetric or not transpose else transpose_solve,
            symmetric=symmetric)

    return f


A = rand((4, 4), 1) + 4 * np.eye(4)
B = rand((4,), 2)


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_custom_linear_solve_matches_jax(dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    tol = 1e-5 if dtype == F32 else 1e-12
    a, b = A.astype(dtype), B.astype(dtype)
    ours, theirs = linear_solver(jnp, lax), linear_solver(jjnp, jlax)
    want = theirs(a, b)
    assert_same(numlir.jit(ours)(a, b), want, tol)
    assert_same(ours(a, b), want, tol)
    b2 = rand((4, 3), 3, dtype)  # a matrix right-hand side
    assert_same(numlir.jit(ours)(a, b2), theirs(a, b2), tol)


def test_custom_linear_solve_derivatives_match_jax_and_finite_differences(x64):
    ours, theirs = linear_solver(jnp, lax), linear_solver(jjnp, jlax)
    ta, tb = rand((4, 4), 4), rand((4,), 5)
    _, t_out = numlir.jit(lambda p, t: numlir.jvp(ours, p, t))((A, B), (ta, tb))
    _, t_want = jax.jvp(theirs, (A, B), (ta, tb))
    assert_close(t_out, t_want, 1e-12)
    eps = 1e-6
    numerical = (np.asarray(ours(A + eps * ta, B + eps * tb)) - np.asarray(ours(A - eps * ta, B - eps * tb))) / (2 * eps)
    np.testing.assert_allclose(np.asarray(t_out), numerical, rtol=1e-7, atol=1e-7)
    loss = lambda f: lambda a, b: (f(a, b) ** 3).sum()
    got = numlir.jit(numlir.grad(loss(ours), argnums=(0, 1)))(A, B)
    assert_close(got, jax.jit(jax.grad(loss(theirs), argnums=(0, 1)))(A, B), 1e-12)
    # second order: the transpose of the transposed solve is the solve again
    hess = numlir.jit(numlir.hessian(loss(ours), argnums=1))(A, B)
    assert_close(hess, jax.jit(jax.hessian(loss(theirs), argnums=1))(A, B), 1e-10)


def test_custom_linear_solve_symmetric_and_jacobians(x64):
    spd = A @ A.T
    ours, theirs = linear_solver(jnp, lax, symmetric=True), linear_solver(jjnp, jlax, symmetric=True)
    assert_close(numlir.jacrev(ours, argnums=(0, 1))(spd, B), jax.jit(jax.jacrev(theirs, argnums=(0, 1)))(spd, B),
                 1e-12)
    assert_close(numlir.jit(numlir.jacfwd(ours, argnums=(0, 1)))(spd, B),
                 jax.jit(jax.jacfwd(theirs, argnums=(0, 1)))(spd, B), 1e-12)


def test_custom_linear_solve_under_vmap(x64):
    ours, theirs = linear_solver(jnp, lax), linear_solver(jjnp, jlax)
    a_batch, b_batch = np.stack([A, A + np.eye(4), 2 * A]), rand((3, 4), 6)
    for axes in [(0, 0), (None, 0), (0, None)]:
        args = (a_batch if axes[0] == 0 else A, b_batch if axes[1] == 0 else B)
        assert_close(numlir.jit(numlir.vmap(ours, in_axes=axes))(*args), jax.jit(jax.vmap(theirs, in_axes=axes))(*args),
                     1e-12)
    grads = numlir.jit(numlir.vmap(numlir.grad(lambda a, b: ours(a, b).sum())))(a_batch, b_batch)
    assert_close(grads, jax.jit(jax.vmap(jax.grad(lambda a, b: theirs(a, b).sum())))(a_batch, b_batch), 1e-12)


def conjugate_gradient(lib, lax_mod, steps=None):
    """A matrix-free CG solve in a while_loop: it cannot be differentiated in reverse mode
    itself, which is what custom_linear_solve is for."""

    def cg(matvec, b):
        def cond(state):
            *_, rs, k = state
            return (rs > 1e-30) & (k < (b.shape[0] * 4 if steps is None else steps))

        def body(state):
            x, r, p, rs, k = state
            ap = matvec(p)
            alpha = rs / lib.vdot(p, ap)
            x, r = x + alpha * p, r - alpha * ap
            rs_new = lib.vdot(r, r)
            return x, r, r + rs_new / rs * p, rs_new, k + 1

        zero = lib.zeros_like(b)
        return lax_mod.while_loop(cond, body, (zero, b, b, lib.vdot(b, b), 0))[0]

    return cg


def test_custom_linear_solve_with_an_iterative_solver_on_an_ill_conditioned_system(x64):
    # the Hilbert matrix of order 6: condition number 1.5e7
    n = 6
    hilbert = 1.0 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1)
    b = rand((n,), 7)

    def make(lib, lax_mod):
        def f(scale, b):
            a = hilbert * scale
            return lax_mod.custom_linear_solve(lambda x: a @ x, b, conjugate_gradient(lib, lax_mod, steps=200),
                                               symmetric=True)
        return f

    ours, theirs = make(jnp, lax), make(jjnp, jlax)
    exact = np.linalg.solve(hilbert * 2.0, b)
    got = numlir.jit(ours)(2.0, b)
    assert_close(got, theirs(2.0, b), 1e-6 * np.abs(exact).max())
    np.testing.assert_allclose(np.asarray(got), exact, rtol=1e-5, atol=1e-5 * np.abs(exact).max())
    # d/dscale of (scale H)^-1 b = -x / scale; d/db = (scale H)^-1
    loss = lambda f: lambda s, b: f(s, b).sum()
    g_scale, g_b = numlir.jit(numlir.grad(loss(ours), argnums=(0, 1)))(2.0, b)
    np.testing.assert_allclose(float(g_scale), -exact.sum() / 2.0, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(g_b), np.linalg.solve(hilbert * 2.0, np.ones(n)),
                               rtol=1e-5, atol=1e-5 * np.abs(exact).max())


def test_custom_linear_solve_pytrees_and_aux(x64):
    def f(lib, lax_mod):
        def run(d, b):
            matvec = lambda x: {"u": d * x["u"], "v": 2.0 * x["v"]}

            def solve(mv, y):
                return {"u": y["u"] / d, "v": y["v"] / 2.0}, lib.sum(y["u"])

            return lax_mod.custom_linear_solve(matvec, b, solve, symmetric=True, has_aux=True)
        return run

    d, b = np.array([1.0, 2.0, 4.0]), {"u": rand((3,), 8), "v": rand((2, 2), 9)}
    got, want = numlir.jit(f(jnp, lax))(d, b), f(jjnp, jlax)(d, b)
    assert_close(got, want, 1e-12)
    g = numlir.grad(lambda d, b: f(jnp, lax)(d, b)[0]["u"].sum(), argnums=(0, 1))(d, b)
    assert_close(g, jax.jit(jax.grad(lambda d, b: f(jjnp, jlax)(d, b)[0]["u"].sum(), argnums=(0, 1)))(d, b), 1e-12)


def test_custom_linear_solve_errors_as_jax():
    a, b = A.astype(F32), B.astype(F32)
    no_transpose = linear_solver(jnp, lax, transpose=False)
    assert_same(no_transpose(a, b), linear_solver(jjnp, jlax, transpose=False)(a, b), 1e-5)
    numlir.jvp(no_transpose, (a, b), (a, b))  # forward mode needs no transpose
    with pytest.raises(TypeError, match="transpose_solve required"):
        numlir.grad(lambda a: no_transpose(a, b).sum())(a)
    with pytest.raises(ValueError, match=r"matvec\(\) output shapes must match b"):
        lax.custom_linear_solve(lambda x: x[:2], b, lambda mv, y: y)
    with pytest.raises(TypeError, match=r"solve\(\) output pytree structure must match b"):
        lax.custom_linear_solve(lambda x: x, b, lambda mv, y: (y, y))


# --- custom_root ------------------------------------------------------------------------------


def newton_sqrt(lax_mod):
    def sqrt(a):
        f = lambda x: x ** 2 - a

        def newton(f, x0):
            def step(state):
                x, k = state
                return x - f(x) / (2 * x), k + 1

            return lax_mod.while_loop(lambda s: (abs(f(s[0])) > 1e-12 * a) & (s[1] < 50), step, (x0, 0))[0]

        return lax_mod.custom_root(f, 1.0, newton, lambda g, y: y / g(1.0))

    return sqrt


def test_custom_root_scalar_newton_matches_jax(x64):
    ours, theirs = newton_sqrt(lax), newton_sqrt(jlax)
    for a in (2.0, 9.0):
        assert_close(ours(a), theirs(a), 1e-10)
        assert_close(numlir.jit(numlir.grad(ours))(a), jax.jit(jax.grad(theirs))(a), 1e-8)
    assert_close(numlir.grad(numlir.grad(ours))(4.0), jax.jit(jax.grad(jax.grad(theirs)))(4.0), 1e-8)
    assert_close(numlir.jvp(ours, (4.0,), (1.0,)), jax.jvp(theirs, (4.0,), (1.0,)), 1e-8)
    a = np.array([1.0, 4.0, 9.0])
    assert_close(numlir.jit(numlir.vmap(ours))(a), np.sqrt(a), 1e-10)
    assert_close(numlir.vmap(numlir.grad(ours))(a), 0.5 / np.sqrt(a), 1e-8)


def vector_root(lib, lax_mod, jacobian):
    """x with x + c * tanh(m @ x) = b, by 30 Newton steps; the tangent system solved with
    the Jacobian of the linearized map, as jax's documentation suggests."""

    def root(m, b, c):
        f = lambda x: x + c * lib.tanh(m @ x) - b

        def newton(f, x0):
            def step(i, x):
                return x - lib.linalg.solve(jacobian(f)(x), f(x))
            return lax_mod.fori_loop(0, 30, step, x0)

        def tangent_solve(g, y):
            return lib.linalg.solve(jacobian(g)(y), y)

        return lax_mod.custom_root(f, lib.zeros_like(b), newton, tangent_solve)

    return root


@pytest.mark.parametrize("dtype", [F32, F64], ids=["f32", "f64"])
def test_custom_root_vector_newton_matches_jax(dtype, request):
    if dtype == F64:
        request.getfixturevalue("x64")
    tol = 2e-5 if dtype == F32 else 1e-10
    m, b, c = rand((3, 3), 10, dtype), rand((3,), 11, dtype), dtype(0.5)
    ours, theirs = vector_root(jnp, lax, numlir.jacfwd), vector_root(jjnp, jlax, jax.jacfwd)
    assert_same(numlir.jit(ours)(m, b, c), jax.jit(theirs)(m, b, c), tol)
    if dtype == F64:  # derivatives against jax and finite differences
        loss = lambda f: lambda m, b, c: (f(m, b, c) ** 2).sum()
        got = numlir.jit(numlir.grad(loss(ours), argnums=(0, 1, 2)))(m, b, c)
        assert_close(got, jax.jit(jax.grad(loss(theirs), argnums=(0, 1, 2)))(m, b, c), tol)
        t = rand((3, 3), 12)
        eps = 1e-6
        loss_jit = numlir.jit(loss(ours))
        numerical = (loss_jit(m + eps * t, b, c) - loss_jit(m - eps * t, b, c)) / (2 * eps)
        np.testing.assert_allclose(float(np.vdot(got[0], t)), float(numerical), rtol=1e-6)
        batch = np.stack([b, 2 * b])
        assert_close(numlir.jit(numlir.vmap(ours, in_axes=(None, 0, None)))(m, batch, c),
                     jax.jit(jax.vmap(theirs, in_axes=(None, 0, None)))(m, batch, c), tol)


def test_custom_root_pytrees_aux_and_errors(x64):
    def make(lib, lax_mod):
        def root(a):
            f = lambda x: {"p": x["p"] ** 3 - a, "q": 2.0 * x["q"] - a}

            def solve(f, x0):
                x = {"p": lib.cbrt(a) + 0 * x0["p"], "q": a / 2.0 + 0 * x0["q"]}
                return x, lib.asarray(7.0)

            def tangent_solve(g, y):
                return {"p": y["p"] / g({"p": 1.0, "q": 0.0})["p"], "q": y["q"] / 2.0}

            return lax_mod.custom_root(f, {"p": 1.0, "q": 1.0}, solve, tangent_solve, has_aux=True)
        return root

    ours, theirs = make(jnp, lax), make(jjnp, jlax)
    assert_close(ours(8.0), theirs(8.0), 1e-12)
    loss = lambda f: lambda a: f(a)[0]["p"] + f(a)[0]["q"]
    assert_close(numlir.grad(loss(ours))(8.0), jax.jit(jax.grad(loss(theirs)))(8.0), 1e-12)
    with pytest.raises(TypeError, match=r"f\(\) output pytree structure must match initial_guess"):
        lax.custom_root(lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y)


# --- rng_bit_generator and rng_uniform -----------------------------------------------------


def test_enums_match_jax():
    for ours, theirs in [(lax.RandomAlgorithm, jlax.RandomAlgorithm), (lax.FftType, jlax.FftType)]:
        assert [(m.name, int(m)) for m in ours] == [(m.name, int(m)) for m in theirs]
    assert str(lax.RandomAlgorithm.RNG_PHILOX) == "RNG_PHILOX"


KEY = np.array([0, 42, 7, 1], np.uint32)


@pytest.mark.parametrize("algorithm", list(lax.RandomAlgorithm), ids=str)
def test_rng_bit_generator_shapes_dtypes_and_determinism(algorithm):
    for dtype, shape in [(np.uint32, (2, 3)), (np.uint8, (5,)), (np.uint16, ()), (np.uint32, (0, 4))]:
        new_key, bits = lax.rng_bit_generator(KEY, shape, dtype=dtype, algorithm=algorithm)
        want_key, want_bits = jlax.rng_bit_generator(jjnp.asarray(KEY), shape, dtype=dtype,
                                                     algorithm=jlax.RandomAlgorithm(int(algorithm)))
        for g, w in [(new_key, want_key), (bits, want_bits)]:
            assert (g.shape, g.dtype) == (w.shape, w.dtype)
    again = numlir.jit(lambda k: lax.rng_bit_generator(k, shape, dtype, algorithm))(KEY)
    assert_same(again, (new_key, bits))
    # the next key draws new bits; another key draws others
    key2, first = lax.rng_bit_generator(KEY, (64,), algorithm=algorithm)
    _, second = lax.rng_bit_generator(key2, (64,), algorithm=algorithm)
    _, other = lax.rng_bit_generator(KEY ^ np.uint32(1), (64,), algorithm=algorithm)
    assert not np.array_equal(first, second) and not np.array_equal(first, other)
    assert np.array_equal(np.asarray(key2)[:2], KEY[:2]) and not np.array_equal(key2, KEY)


def test_rng_bit_generator_bits_are_the_ciphers():
    # Threefry-2x32 as jax.random's: block i is the cipher of the counter (words 2, 3) + i
    _, bits = lax.rng_bit_generator(KEY, (4,), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY)
    want = jex.random.threefry_2x32(jjnp.asarray(KEY[:2]), jjnp.asarray([7, 8, 1, 1], jjnp.uint32))
    np.testing.assert_array_equal(np.asarray(bits), np.asarray(want)[[0, 2, 1, 3]])
    # Philox-4x32-10: Random123's known-answer vector for key 0, counter 0
    _, bits = lax.rng_bit_generator(np.zeros(4, np.uint32), (4,), algorithm=lax.RandomAlgorithm.RNG_PHILOX)
    np.testing.assert_array_equal(np.asarray(bits),
                                  np.array([0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8], np.uint32))


def test_rng_bit_generator_bits_look_uniform():
    for algorithm in (lax.RandomAlgorithm.RNG_THREE_FRY, lax.RandomAlgorithm.RNG_PHILOX):
        _, bits = lax.rng_bit_generator(KEY, (1 << 16,), algorithm=algorithm)
        bits = np.asarray(bits)
        assert abs(bits.astype(F64).mean() / 2**32 - 0.5) < 0.01
        ones = np.unpackbits(bits.view(np.uint8)).mean()
        assert abs(ones - 0.5) < 0.005
        assert len(np.unique(bits)) > 0.99 * bits.size


def test_rng_bit_generator_64_bits(x64):
    key64 = np.array([3, 5], np.uint64)
    new_key, bits = lax.rng_bit_generator(key64, (3, 2), dtype=np.uint64)
    assert (new_key.dtype, new_key.shape, bits.dtype, bits.shape) == (np.uint64, (2,), np.uint64, (3, 2))
    # a uint64[2] key is the uint32[4] key of the same little-endian words
    _, same = lax.rng_bit_generator(np.array([3, 0, 5, 0], np.uint32), (3, 2), dtype=np.uint64)
    np.testing.assert_array_equal(np.asarray(bits), np.asarray(same))
    assert len(np.unique(np.asarray(bits))) == 6


def test_rng_bit_generator_under_vmap_batches_as_jax():
    keys = np.stack([KEY, KEY + 1, KEY + 2])
    new_keys, bits = numlir.vmap(lambda k: lax.rng_bit_generator(k, (2,)))(keys)
    want_keys, want_bits = jax.jit(jax.vmap(lambda k: jlax.rng_bit_generator(k, (2,))))(keys)
    assert (bits.shape, bits.dtype) == (want_bits.shape, want_bits.dtype)
    # jax's rule: the first key draws the bits of the whole batch, and only it advances
    first_key, first_bits = lax.rng_bit_generator(KEY, (3, 2))
    np.testing.assert_array_equal(np.asarray(bits), np.asarray(first_bits))
    np.testing.assert_array_equal(np.asarray(new_keys), np.concatenate([np.asarray(first_key)[None], keys[1:]]))
    np.testing.assert_array_equal(np.asarray(want_keys)[1:], keys[1:])


def test_rng_bit_generator_rejects_what_jax_rejects():
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        lax.rng_bit_generator(KEY, (3,), dtype=np.int32)
    with pytest.raises(TypeError, match="key"):
        lax.rng_bit_generator(KEY[:2], (3,))


def test_rng_uniform_types_ranges_and_state():
    for a, b in [(0.0, 1.0), (np.float32(-2), np.float32(3)), (np.float16(1), np.float16(2)), (2, 5),
                 (np.int8(-100), np.int8(100))]:
        got = lax.rng_uniform(a, b, (4000,))
        if np.asarray(a).dtype != np.int8:  # XLA aborts on an int8 RngUniform
            want = jlax.rng_uniform(a, b, (4000,))
            assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
        assert got.dtype == np.asarray(a).dtype or np.asarray(a).dtype in (np.float64, np.int64)
        values = np.asarray(got, F64)
        assert values.min() >= float(a) and values.max() < float(b)
        assert abs(values.mean() - (float(a) + float(b) - (np.asarray(a).dtype.kind == "i")) / 2) < 0.05 * (float(b) - float(a))
    ints = np.asarray(lax.rng_uniform(2, 5, (1000,)))
    assert set(np.unique(ints)) == {2, 3, 4}
    # stateful: each call draws anew; under jit it would repeat its numbers on every run
    assert not np.array_equal(lax.rng_uniform(0.0, 1.0, (8,)), lax.rng_uniform(0.0, 1.0, (8,)))
    with pytest.raises(NotImplementedError, match="stateful and runs eagerly only"):
        numlir.jit(lambda: lax.rng_uniform(0.0, 1.0, (8,)))()
    with pytest.raises(ValueError, match="identical dtypes"):
        lax.rng_uniform(np.float32(0), 1, (3,))
    with pytest.raises(ValueError, match="must be scalars"):
        lax.rng_uniform(np.zeros(2, F32), np.ones(2, F32), (3,))


def test_rng_uniform_64_bits(x64):
    for a, b in [(0.0, 1.0), (np.int64(-(2**40)), np.int64(2**40))]:
        got, want = lax.rng_uniform(a, b, (1000,)), jlax.rng_uniform(a, b, (1000,))
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
        values = np.asarray(got)
        assert values.min() >= a and values.max() < b and len(np.unique(values)) == 1000
