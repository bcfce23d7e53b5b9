"""where= and initial= on numlir.numpy reductions, against jax.numpy."""

from __future__ import annotations

import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
MASK = (np.arange(12).reshape(3, 4) % 3) != 0
ROW_MASK = np.array([True, False, True, True])

CASES = [
    ("sum", dict(axis=1, where=MASK)),
    ("sum", dict(where=ROW_MASK)),
    ("sum", dict(axis=0, initial=10.0)),
    ("sum", dict(axis=1, where=MASK, initial=1.5, keepdims=True)),
    ("prod", dict(axis=0, where=MASK)),
    ("max", dict(axis=1, where=MASK, initial=-100.0)),
    ("min", dict(axis=0, where=ROW_MASK, initial=100.0)),
    ("max", dict(axis=0, initial=3.0)),
    ("mean", dict(axis=1, where=MASK)),
    ("mean", dict(where=MASK)),
    ("var", dict(axis=1, where=MASK)),
    ("std", dict(axis=0, where=MASK, ddof=1)),
    ("any", dict(axis=1, where=MASK)),
    ("all", dict(axis=0, where=MASK)),
]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_masked_reduction_matches_jax(name, kwargs, jit):
    fn = lambda x: getattr(jnp, name)(x, **kwargs)  # noqa: E731
    got = numlir.jit(fn)(X) if jit else fn(X)
    want = getattr(jjnp, name)(X, **kwargs)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)


def test_integer_max_with_mask_uses_integer_extremes():
    x = np.array([[3, -7], [2, 9]], np.int32)
    m = np.array([[False, True], [True, False]])
    np.testing.assert_array_equal(jnp.max(x, axis=1, where=m, initial=-50),
                                  jjnp.max(x, axis=1, where=m, initial=-50))


def test_max_with_mask_but_no_initial_is_an_error():
    with pytest.raises(ValueError, match="does not have an identity.*initial"):
        jnp.max(X, where=MASK)


def test_mask_that_does_not_broadcast_is_an_error():
    with pytest.raises(TypeError, match=r"sum got incompatible shapes for broadcasting: \(3, 4\) and \(3,\) at .*test_reductions_where.py"):
        jnp.sum(X, where=np.array([True, False, True]))


def test_out_argument_is_rejected_with_a_hint():
    with pytest.raises(TypeError, match="immutable.*x.at"):
        jnp.sum(X, out=np.empty(()))
