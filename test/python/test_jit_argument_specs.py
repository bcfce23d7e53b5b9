"""jit validates static_argnums/static_argnames/donate_* against the signature, as JAX does."""

import functools
import os

import jax
import numpy as np
import pytest

import numlir

HERE = os.path.abspath(__file__)


def two_args(x, y):
    return x + y


def varargs(x, *args, **kwargs):
    return x


def positional_only(x, /, y):
    return x + y


def keyword_only(x, *, y):
    return x + y


def _raises_like_jax(make_numlir, make_jax):
    """Both raise at jit() time with the same exception type; returns (numlir, jax) messages."""
    with pytest.raises(Exception) as jax_info:
        make_jax()
    with pytest.raises(type(jax_info.value)) as info:
        make_numlir()
    return str(info.value), str(jax_info.value)


@pytest.mark.parametrize("nums", [5, 2, -3, (0, 7)])
def test_static_argnums_out_of_range_is_a_value_error_at_jit_time(nums):
    msg, jax_msg = _raises_like_jax(lambda: numlir.jit(two_args, static_argnums=nums),
                                    lambda: jax.jit(two_args, static_argnums=nums))
    assert "but only accepts 2 positional arguments" in jax_msg
    assert "Jitted function two_args has static_argnums=" in msg
    assert "but only accepts 2 positional arguments (x, y)" in msg


def test_static_argnums_error_points_at_the_users_jit_call():
    def make():
        return numlir.jit(two_args, static_argnums=5)

    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value).endswith(f"at {HERE}:{make.__code__.co_firstlineno + 1}")


def test_static_argnames_that_the_function_does_not_take_is_a_value_error():
    for names in ("nope", ("x", "nope")):
        msg, jax_msg = _raises_like_jax(lambda: numlir.jit(two_args, static_argnames=names),
                                        lambda: jax.jit(two_args, static_argnames=names))
        assert "invalid argnames {'nope'} in static_argnames" in jax_msg
        assert "invalid argnames {'nope'} in static_argnames" in msg
        assert "its parameters: x, y" in msg


def test_positional_only_static_argname_is_a_value_error():
    msg, jax_msg = _raises_like_jax(lambda: numlir.jit(positional_only, static_argnames="x"),
                                    lambda: jax.jit(positional_only, static_argnames="x"))
    assert "positional-only" in jax_msg and "positional-only" in msg


def test_static_argnums_past_keyword_only_parameters_is_a_value_error():
    msg, _ = _raises_like_jax(lambda: numlir.jit(keyword_only, static_argnums=1),
                              lambda: jax.jit(keyword_only, static_argnums=1))
    assert "only accepts 1 positional arguments" in msg


@pytest.mark.parametrize("nums", [5, -3])
def test_donate_argnums_out_of_range_is_a_value_error(nums):
    msg, _ = _raises_like_jax(lambda: numlir.jit(two_args, donate_argnums=nums),
                              lambda: jax.jit(two_args, donate_argnums=nums))
    assert "donate_argnums" in msg and "only accepts 2 positional arguments" in msg


def test_donate_argnames_that_the_function_does_not_take_is_a_value_error():
    msg, _ = _raises_like_jax(lambda: numlir.jit(two_args, donate_argnames="nope"),
                              lambda: jax.jit(two_args, donate_argnames="nope"))
    assert "invalid argnames {'nope'} in donate_argnames" in msg


@pytest.mark.parametrize("kwargs", [dict(static_argnums=0, donate_argnums=0),
                                    dict(static_argnames="x", donate_argnames="x"),
                                    dict(static_argnums=0, donate_argnames="x")])
def test_an_argument_cannot_be_both_static_and_donated(kwargs):
    msg, jax_msg = _raises_like_jax(lambda: numlir.jit(two_args, **kwargs),
                                    lambda: jax.jit(two_args, **kwargs))
    assert "static_argnames and donate_argnames cannot intersect" in jax_msg
    assert "static_argnames and donate_argnames cannot intersect" in msg


@pytest.mark.parametrize("kwargs", [dict(static_argnums=-1), dict(static_argnums=(0, 0)),
                                    dict(static_argnums=0, static_argnames="x"),
                                    dict(static_argnums=-2, static_argnames="y")])
def test_valid_specifications_are_accepted_as_by_jax(kwargs):
    fun = numlir.jit(lambda x, y: x * y, **kwargs)
    want = jax.jit(lambda x, y: x * y, **kwargs)(2.0, 3.0)
    np.testing.assert_allclose(fun(2.0, 3.0), want)


def test_functions_with_varargs_or_kwargs_accept_any_number_or_name():
    numlir.jit(varargs, static_argnums=5)
    numlir.jit(varargs, static_argnames="anything")
    jax.jit(varargs, static_argnums=5)
    np.testing.assert_allclose(numlir.jit(varargs, static_argnums=5)(np.float32(1), 2), 1.0)


def test_partial_is_checked_against_its_remaining_parameters():
    msg, _ = _raises_like_jax(lambda: numlir.jit(functools.partial(two_args, 1), static_argnums=1),
                              lambda: jax.jit(functools.partial(two_args, 1), static_argnums=1))
    assert "only accepts 1 positional arguments (y)" in msg


def test_uninspectable_builtin_skips_validation_but_rejects_donate_argnames():
    numlir.jit(max, static_argnums=5)
    jax.jit(max, static_argnums=5)
    msg, _ = _raises_like_jax(lambda: numlir.jit(max, donate_argnames="x"),
                              lambda: jax.jit(max, donate_argnames="x"))
    assert "donate_argnums instead" in msg


@pytest.mark.parametrize("kwargs", [dict(static_argnums="x"), dict(static_argnums=1.5),
                                    dict(static_argnames=3), dict(donate_argnums=[0.5])])
def test_wrong_kinds_of_specification_are_type_errors(kwargs):
    with pytest.raises(TypeError):
        jax.jit(two_args, **kwargs)
    key = next(iter(kwargs))
    with pytest.raises(TypeError, match=f"jit: {key} must be"):
        numlir.jit(two_args, **kwargs)


def test_jit_of_a_non_callable_is_a_type_error_like_jax():
    msg, jax_msg = _raises_like_jax(lambda: numlir.jit(3), lambda: jax.jit(3))
    assert jax_msg == "Expected a callable value, got 3"
    assert msg.startswith(jax_msg + " at ") and HERE in msg


def test_make_graph_checks_static_argnums_too():
    with pytest.raises(ValueError, match="static_argnums"):
        numlir.make_graph(two_args, static_argnums=4)
