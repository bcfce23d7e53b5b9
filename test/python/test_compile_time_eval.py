"""numlir.ensure_compile_time_eval: concrete values inside jit, and a clear error for traced ones."""

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp


def test_values_inside_the_context_are_concrete_under_jit():
    seen = []

    @numlir.jit
    def f(x):
        with numlir.ensure_compile_time_eval():
            y = jnp.sin(3.0)
            positive = jnp.sin(y) > 0
            seen.append(type(positive))
        return jnp.sin(x) if positive else jnp.cos(x)

    x = np.linspace(0, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(f(x)), np.sin(x), rtol=1e-6)
    assert seen == [numlir.Array]


def test_jitted_helpers_and_random_draws_run_eagerly_inside_it():
    @numlir.jit
    def f(x):
        with numlir.ensure_compile_time_eval():
            table = numlir.random.randint(numlir.random.PRNGKey(0), (3,), 0, 10)
            total = int(table.sum())  # a Python int while tracing
        return x * total

    want = int(np.asarray(numlir.random.randint(numlir.random.PRNGKey(0), (3,), 0, 10)).sum())
    assert float(f(np.float32(2.0))) == 2.0 * want


def test_a_traced_value_inside_it_is_a_concretization_error():
    @numlir.jit
    def f(x):
        with numlir.ensure_compile_time_eval():
            return x + 1

    with pytest.raises(numlir.ConcretizationTypeError,
                       match=r"add inside ensure_compile_time_eval\(\) got a traced value \(f32\[\]\)"):
        f(np.float32(1.0))


def test_outside_jit_it_changes_nothing():
    with numlir.ensure_compile_time_eval():
        assert float(jnp.exp(0.0)) == 1.0
    assert float(numlir.jit(lambda x: x * 2)(3.0)) == 6.0
