"""random.poisson gives jax.random.poisson's counts for the same key (both algorithms, eager
and jit), has the right moments, and checks its dtype."""

import jax
import numpy as np
import pytest

import numlir
import numlir.random as random

LAM = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 50.0, 1000.0], np.float32)


@pytest.mark.parametrize("shape", [None, (3, 7)], ids=str)
def test_poisson_gives_jax_counts_for_the_same_key(shape):
    want = np.asarray(jax.random.poisson(jax.random.PRNGKey(5), LAM, shape))
    for got in (random.poisson(random.PRNGKey(5), LAM, shape),
                numlir.jit(lambda k: random.poisson(k, LAM, shape))(random.PRNGKey(5))):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        # Both algorithms compare logs; an ulp of log may move a count by one, rarely.
        assert np.mean(got != want) <= 0.05 and np.all(np.abs(got - want) <= 1)


def test_poisson_moments():
    for lam in (2.0, 30.0):
        x = np.asarray(random.poisson(random.PRNGKey(0), lam, (20_000,)), np.float64)
        np.testing.assert_allclose([x.mean(), x.var()], [lam, lam], rtol=5e-2)


def test_poisson_dtype():
    assert np.asarray(random.poisson(random.PRNGKey(0), 2.0, (3,), dtype=np.int16)).dtype == np.int16
    with pytest.raises(ValueError, match="must be an int dtype"):
        random.poisson(random.PRNGKey(0), 2.0, (3,), dtype=np.float32)
