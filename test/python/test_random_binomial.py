"""random.binomial and random.multinomial: jax's signatures, shapes, dtypes, errors and
special values; the right distributions (moments and chi-square over many samples with
fixed seeds); and, since they consume keys as jax's samplers do, jax's draws for the same
key in nearly every element (eager, under jit and under vmap over keys)."""

import jax
import numpy as np
import pytest
import scipy.stats

import numlir
import numlir.random as random

KEY = random.PRNGKey(11)
JAX_KEY = jax.random.PRNGKey(11)


def _chi_square_p_value(samples, n, p):
    """p-value of the samples against Binomial(n, p), over the bins with expected count >= 5
    (the rest pooled at either end)."""
    counts = np.bincount(samples.astype(np.int64), minlength=int(n) + 1)
    expected = scipy.stats.binom.pmf(np.arange(int(n) + 1), n, p) * samples.size
    keep = expected >= 5
    lo, hi = np.argmax(keep), len(keep) - np.argmax(keep[::-1])
    obs = np.concatenate([[counts[:lo].sum()], counts[lo:hi], [counts[hi:].sum()]])
    exp = np.concatenate([[expected[:lo].sum()], expected[lo:hi], [expected[hi:].sum()]])
    obs, exp = obs[exp > 0], exp[exp > 0]
    return scipy.stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


@pytest.mark.parametrize("n, p", [(20.0, 0.3), (7.0, 0.9), (200.0, 0.35), (1000.0, 0.8), (60.0, 0.5)],
                         ids=["inversion", "inversion_reflected", "btrs", "btrs_reflected", "btrs_half"])
def test_binomial_has_the_binomial_distribution(n, p):
    x = np.asarray(random.binomial(KEY, n, p, (20_000,)), np.float64)
    assert np.all(x == np.floor(x)) and x.min() >= 0 and x.max() <= n
    mean, var = n * p, n * p * (1 - p)
    assert abs(x.mean() - mean) < 4 * np.sqrt(var / x.size)
    assert x.var() == pytest.approx(var, rel=0.05)
    assert _chi_square_p_value(x, n, p) > 1e-3


def test_binomial_gives_jax_draws_for_the_same_key():
    n = np.array([[3.0], [9.5], [40.0], [300.0]], np.float32)
    p = np.array([0.05, 0.3, 0.5, 0.75, 0.97], np.float32)
    want = np.asarray(jax.random.binomial(JAX_KEY, n, p, (64, 4, 5)))
    for got in (random.binomial(KEY, n, p, (64, 4, 5)),
                numlir.jit(lambda k: random.binomial(k, n, p, (64, 4, 5)))(KEY)):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        # BTRS compares logs (an ulp may flip an acceptance), and its Stirling tail is
        # evaluated at k itself above 9, where jax's uses k = 9.
        assert np.mean(got == want) > 0.97


def test_binomial_special_values_are_jax_s():
    n = np.array([5.0, np.inf, np.nan, -1.0, 3.7, 0.0, 10.0, 10.0, 5.0, 5.0, 5.0], np.float32)
    p = np.array([0.3, 0.3, 0.3, 0.3, 0.3, 0.5, 0.0, 1.0, np.nan, -0.1, 1.1], np.float32)
    got = np.asarray(random.binomial(KEY, n, p))
    want = np.asarray(jax.random.binomial(JAX_KEY, n, p))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    assert got[1] == np.inf and got[6] == 0 and got[7] == 10 and got[4] <= 3


def test_binomial_shapes_and_dtypes():
    scalar = random.binomial(KEY, 10, 0.5)
    assert scalar.shape == () and scalar.dtype == np.float32
    assert random.binomial(KEY, np.ones((2, 0)), 0.5).shape == (2, 0)
    assert random.binomial(KEY, np.full(3, 4.0), np.full((2, 1), 0.5), shape=[2, 3]).shape == (2, 3)
    assert random.binomial(KEY, 10, 0.5, dtype=np.float16).dtype == np.float16


def test_binomial_is_float64_under_x64(x64):
    x = random.binomial(KEY, 30, 0.4, (1000,))
    assert x.dtype == np.float64
    assert np.asarray(x).mean() == pytest.approx(12.0, abs=0.5)


def test_binomial_errors_are_jax_s():
    with pytest.raises(ValueError, match="must be a float dtype"):
        random.binomial(KEY, 10.0, 0.5, dtype=np.int32)
    with pytest.raises(ValueError):
        random.binomial(KEY, np.ones(3), 0.5, shape=(4,))
    with pytest.raises(TypeError, match="requires ndarray or scalar arguments"):
        random.binomial(KEY, [1.0, 2.0], 0.5)
    with pytest.raises(TypeError):
        random.binomial(np.zeros(3, np.uint32), 10.0, 0.5)


def test_binomial_vmaps_over_keys():
    keys = random.split(KEY, 3)
    batched = numlir.vmap(lambda k: random.binomial(k, 40.0, 0.3, (6,)))(keys)
    one_by_one = np.stack([np.asarray(random.binomial(keys[i], 40.0, 0.3, (6,))) for i in range(3)])
    np.testing.assert_array_equal(np.asarray(batched), one_by_one)


def test_multinomial_counts_sum_to_n_and_have_multinomial_moments():
    p = np.array([0.1, 0.0, 0.25, 0.65], np.float32)
    n = 30.0
    x = np.asarray(random.multinomial(KEY, n, np.broadcast_to(p, (20_000, 4))), np.float64)
    assert x.shape == (20_000, 4) and np.all(x.sum(-1) == n) and np.all(x[:, 1] == 0)
    np.testing.assert_allclose(x.mean(0), n * p, atol=0.1)
    np.testing.assert_allclose(np.cov(x.T), n * (np.diag(p) - np.outer(p, p)), atol=0.15)
    # unnormalized weights act as their normalization
    y = np.asarray(random.multinomial(KEY, n, np.broadcast_to(p * 4, (20_000, 4))), np.float64)
    np.testing.assert_allclose(y.mean(0), n * p, atol=0.1)


def test_multinomial_gives_jax_draws_and_takes_jax_arguments():
    p = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], np.float32)
    n = np.array([10.0, 200.0], np.float32)
    want = jax.random.multinomial(JAX_KEY, n, p)
    for got in (random.multinomial(KEY, n, p), numlir.jit(lambda k: random.multinomial(k, n, p))(KEY)):
        assert got.dtype == want.dtype and got.shape == want.shape == (2, 3)
        assert np.mean(np.asarray(got) == np.asarray(want)) > 0.8
    with_shape = random.multinomial(KEY, 10.0, p[0], shape=(5, 3), dtype=np.int32)
    assert with_shape.shape == (5, 3) and with_shape.dtype == np.int32
    assert np.all(np.asarray(with_shape).sum(-1) == 10)
    with pytest.raises(ValueError):
        random.multinomial(KEY, 10.0, p[0], shape=(4,))
    with pytest.raises(TypeError):
        random.multinomial(KEY, 10.0, [0.5, 0.5])


def test_signatures_are_jax_s():
    import inspect

    for name in ("binomial", "multinomial"):
        ours, theirs = (inspect.signature(getattr(m, name)).parameters.values() for m in (random, jax.random))
        assert [(p.name, p.kind, p.default) for p in ours] == [(p.name, p.kind, p.default) for p in theirs]
