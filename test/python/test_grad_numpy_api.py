"""Gradients of user-level numlir.numpy / numlir.nn functions against jax.

Each case differentiates ``sum(f(x) * w)`` for a fixed random ``w`` (so every
output element matters) and compares with the same expression in jax.
"""

import jax
import jax.numpy as J
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

R = np.random.default_rng(7)
A = R.standard_normal((3, 4)).astype(np.float32)
P = R.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
SQ = R.standard_normal((3, 3)).astype(np.float32)
IDX = np.array([2, 0, 1], np.int32)

CASES = {
    "mean_var_std": (lambda m, x: m.stack([m.mean(x, 0), m.var(x, 0), m.std(x, 0)]), A),
    "logsumexp": (lambda m, x: (numlir.nn.logsumexp if m is jnp else jax.nn.logsumexp)(x, axis=1), A),
    "softmax": (lambda m, x: (numlir.nn.softmax if m is jnp else jax.nn.softmax)(x, axis=-1), A),
    "log_softmax": (lambda m, x: (numlir.nn.log_softmax if m is jnp else jax.nn.log_softmax)(x), A),
    "relu_gelu_silu": (lambda m, x: m.stack([
        (numlir.nn if m is jnp else jax.nn).relu(x + 0.1),
        (numlir.nn if m is jnp else jax.nn).gelu(x),
        (numlir.nn if m is jnp else jax.nn).silu(x)]), A),
    "softplus_sigmoid": (lambda m, x: (numlir.nn if m is jnp else jax.nn).softplus(x)
                         * (numlir.nn if m is jnp else jax.nn).sigmoid(x), A),
    "where_maximum_clip": (lambda m, x: m.where(x > 0, m.maximum(x, 0.3), m.clip(x, -0.5, 0.5)), A),
    "norm_l2": (lambda m, x: m.linalg.norm(x, axis=1), A),
    "norm_fro": (lambda m, x: m.linalg.norm(x), A),
    "einsum": (lambda m, x: m.einsum("ij,kj->ik", x, x), A),
    "matmul_outer": (lambda m, x: x @ x.T + m.outer(x[0, :3], x[1, 1:]), A),
    "take_along_axis": (lambda m, x: m.take_along_axis(x, m.argsort(x, axis=1), axis=1), A),
    "sort_cumsum": (lambda m, x: m.cumsum(m.sort(x, axis=0), axis=1), A),
    "advanced_indexing": (lambda m, x: x[IDX, :2] * x[:, IDX[0]][:, None], A),
    "at_set_add": (lambda m, x: m.asarray(x).at[1].set(x[0] * 2).at[:, 0].add(x[2, :3].sum()), A),
    "concat_split_pad": (lambda m, x: m.pad(m.concatenate(m.split(x, 2, axis=1)[::-1], 0),
                                            ((1, 0), (0, 2)), mode="reflect"), A),
    "power_log_sqrt": (lambda m, x: m.power(x, 1.5) + m.log(x) * m.sqrt(x) + x ** -0.5, P),
    "trig_hyperbolic": (lambda m, x: m.arctan2(m.sin(x), m.cos(2 * x)) + m.tanh(m.sinh(x / 2)), A),
    "prod_max_min": (lambda m, x: m.stack([m.prod(x, 1), m.max(x, 1), m.min(x, 1)]), A),
    "amax_keepdims_where": (lambda m, x: x - m.max(x, axis=1, keepdims=True)
                            + m.sum(x, axis=0, where=x > 0), A),
    "median_quantile": (lambda m, x: m.stack([m.median(x, axis=1),
                                              m.quantile(x, 0.3, axis=1)]), A),
    "trace_diag_tri": (lambda m, x: m.trace(x) + m.diagonal(x) + m.tril(x).sum(0) + m.triu(x, 1)[0], SQ),
    "roll_flip_transpose": (lambda m, x: m.roll(m.flip(x, 0), 1, axis=1).T, A),
    "repeat_tile": (lambda m, x: m.tile(m.repeat(x, 2, axis=0), (1, 2)), A),
    "expm1_log1p_cbrt": (lambda m, x: m.expm1(x) + m.log1p(x) + m.cbrt(x), P),
    "linalg_svd_values": (lambda m, x: m.linalg.svd(x, compute_uv=False), A),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grad_matches_jax(name):
    f, x = CASES[name]
    # numlir differentiates op by op (what this tests); jax's reference runs jitted, since
    # its own op-by-op dispatch compiles every primitive separately.
    out_shape = jax.eval_shape(lambda v: f(J, v), x).shape
    w = R.standard_normal(out_shape).astype(np.float32)
    got = numlir.grad(lambda v: jnp.sum(f(jnp, v) * w))(x)
    want = jax.jit(jax.grad(lambda v: J.sum(f(J, v) * w)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", ["softmax", "norm_l2", "take_along_axis", "median_quantile",
                                  "at_set_add", "linalg_svd_values"])
def test_jit_grad_and_jacrev_match_jax(name):
    f, x = CASES[name]
    got = numlir.jit(numlir.jacrev(lambda v: f(jnp, v)))(x)
    want = jax.jit(jax.jacrev(lambda v: f(J, v)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-4, atol=2e-5)
