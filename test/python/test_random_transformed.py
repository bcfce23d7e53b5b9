"""numlir.random's closed-form samplers give jax.random's values for the same key, eager and
under jit, over shapes, parameters and dtypes; their argument errors match jax's."""

import jax
import numpy as np
import pytest

import numlir
import numlir.random as random

KEY = 42
SAMPLERS = {
    "cauchy": lambda r, k, s: r.cauchy(k, s),
    "lognormal": lambda r, k, s: r.lognormal(k, 0.7, s),
    "lognormal_param_shape": lambda r, k, s: r.lognormal(k, np.linspace(0.1, 1.0, s[-1]).astype(np.float32)),
    "pareto": lambda r, k, s: r.pareto(k, 2.5, s),
    "rayleigh": lambda r, k, s: r.rayleigh(k, 1.5, s),
    "maxwell": lambda r, k, s: r.maxwell(k, s),
    "double_sided_maxwell": lambda r, k, s: r.double_sided_maxwell(k, 1.0, 2.0, s),
    "double_sided_maxwell_params": lambda r, k, s: r.double_sided_maxwell(
        k, np.zeros(2, np.float32), np.ones(2, np.float32), s),
    "weibull_min": lambda r, k, s: r.weibull_min(k, 2.0, 1.5, s),
    "triangular": lambda r, k, s: r.triangular(k, -1.0, 0.25, 2.0, s),
    "wald": lambda r, k, s: r.wald(k, 1.3, s),
    "geometric": lambda r, k, s: r.geometric(k, 0.3, s),
}


def _both(name, shape):
    want = np.asarray(SAMPLERS[name](jax.random, jax.random.PRNGKey(KEY), shape))
    eager = np.asarray(SAMPLERS[name](random, random.PRNGKey(KEY), shape))
    jitted = np.asarray(numlir.jit(lambda k: SAMPLERS[name](random, k, shape))(random.PRNGKey(KEY)))
    return want, eager, jitted


@pytest.mark.parametrize("name", SAMPLERS)
@pytest.mark.parametrize("shape", [(5,), (2, 3, 7)], ids=str)
def test_sampler_gives_jax_values_for_the_same_key(name, shape):
    want, eager, jitted = _both(name, shape)
    for got in (eager, jitted):
        assert got.shape == want.shape and got.dtype == want.dtype
        if want.dtype.kind in "iu":
            # floor(log u / log(1 - p)): an ulp of log may move a sample across an integer.
            assert np.mean(got != want) < 0.01 and np.all(np.abs(got - want) <= 1)
        else:
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["cauchy", "rayleigh", "wald", "triangular"])
def test_float64_samples_under_x64(name, x64):
    want = np.asarray(SAMPLERS[name](jax.random, jax.random.PRNGKey(KEY), (50,)))
    got = np.asarray(SAMPLERS[name](random, random.PRNGKey(KEY), (50,)))
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_moments_match_the_distributions():
    k = random.PRNGKey(0)
    n = 200_000
    np.testing.assert_allclose(np.mean(np.asarray(random.rayleigh(k, 2.0, (n,)))), 2.0 * np.sqrt(np.pi / 2), rtol=1e-2)
    np.testing.assert_allclose(np.mean(np.asarray(random.maxwell(k, (n,)))), 2 * np.sqrt(2 / np.pi), rtol=1e-2)
    np.testing.assert_allclose(np.mean(np.asarray(random.wald(k, 1.5, (n,)))), 1.5, rtol=2e-2)
    np.testing.assert_allclose(np.mean(np.asarray(random.geometric(k, 0.25, (n,)))), 4.0, rtol=2e-2)
    np.testing.assert_allclose(np.mean(np.asarray(random.triangular(k, 0.0, 1.0, 4.0, (n,)))), 5 / 3, rtol=1e-2)
    np.testing.assert_allclose(np.median(np.asarray(random.cauchy(k, (n,)))), 0.0, atol=2e-2)


def test_argument_errors():
    k = random.PRNGKey(0)
    with pytest.raises(ValueError, match="must be a float dtype"):
        random.cauchy(k, (2,), dtype=np.int32)
    with pytest.raises(ValueError, match="must be an int dtype"):
        random.geometric(k, 0.5, (2,), dtype=np.float32)
    with pytest.raises(ValueError, match=r"pareto: incompatible shapes .* \(2,\), parameter shapes \[\(3,\)\]"):
        random.pareto(k, np.ones(3, np.float32), (2,))
    with pytest.raises(ValueError, match="broadcast-compatible"):
        random.rayleigh(k, np.ones((2, 1), np.float32), (3,))


def test_clone_and_key_dtype():
    k = random.PRNGKey(3)
    np.testing.assert_array_equal(np.asarray(random.clone(k)), np.asarray(k))
    assert random.key_dtype() == np.uint32 == np.asarray(k).dtype
