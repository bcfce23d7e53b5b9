"""Bad input is reported by what is wrong: the function, the argument, and the user's line.

Each case is checked against JAX where JAX gives an error: numlir raises the same kind of
exception (ConcretizationTypeError is a TypeError, as JAX's), with a message that names the
argument and ends with the user's file:line.
"""

import os

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

HERE = os.path.abspath(__file__)
X = np.ones(3, np.float32)


def _line_of(fn, offset=1):
    return fn.__code__.co_firstlineno + offset


def _jax_raises(fn) -> type:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value)


# --- a traced value where a concrete shape is required ---------------------------------------


def test_traced_argument_used_as_a_shape_names_the_argument_and_suggests_static_argnums():
    def f(x, n):
        return jnp.zeros(n)

    assert issubclass(_jax_raises(lambda: jax.jit(lambda x, n: jjnp.zeros(n))(X, 3)), TypeError)
    with pytest.raises(numlir.ConcretizationTypeError) as info:
        numlir.jit(f)(X, 3)
    msg = str(info.value)
    assert isinstance(info.value, TypeError)
    assert "iteration over a 0-d array" not in msg
    assert msg.startswith("zeros: argument 'shape' must be a concrete shape, but it is "
                          "<traced i32[]>: a traced value was used where a concrete shape is "
                          "required.")
    assert "argument 'n' of f (traced for jit)" in msg
    assert "static_argnums=1 or static_argnames='n'" in msg
    assert msg.endswith(f"at {HERE}:{_line_of(f)}")


def test_shape_computed_from_a_traced_value_names_the_argument_it_depends_on():
    def f(x):
        return jnp.zeros(x.shape[0] * x.sum())

    assert issubclass(_jax_raises(lambda: jax.jit(lambda x: jjnp.zeros(x.shape[0] * x.sum()))(X)),
                      TypeError)
    with pytest.raises(TypeError) as info:
        numlir.jit(f)(X)
    msg = str(info.value)
    assert "zeros: argument 'shape' must be a concrete shape, but it is <traced f32[]>" in msg
    assert "argument 'x' of f" in msg and msg.endswith(f"at {HERE}:{_line_of(f)}")


def test_traced_value_inside_a_shape_tuple():
    def f(x):
        return jnp.ones((x,))

    with pytest.raises(numlir.ConcretizationTypeError) as info:
        numlir.jit(f)(2)
    msg = str(info.value)
    assert "ones: argument 'shape' must be a concrete shape, but it is (<traced i32[]>,)" in msg
    assert "argument 'x' of f" in msg and msg.endswith(f"at {HERE}:{_line_of(f)}")


def test_traced_value_from_a_pytree_argument_is_named_by_its_path():
    def f(params, x):
        return x.reshape(params["rows"], -1)

    with pytest.raises(numlir.ConcretizationTypeError) as info:
        numlir.jit(f)({"rows": 3}, X)
    msg = str(info.value)
    assert "reshape: argument 'newshape'" in msg
    assert "argument \"params['rows']\" of f" in msg
    assert "static_argnums=0 or static_argnames='params'" in msg


@pytest.mark.parametrize("make, what", [
    (lambda n: jnp.full((n, 2), 1.0), "full: argument 'shape'"),
    (lambda n: jnp.broadcast_to(jnp.ones(3), (n, 3)), "broadcast_to: argument 'shape'"),
    (lambda n: jnp.arange(n), "arange: argument 'stop' must be a concrete number"),
    (lambda n: jnp.eye(n), "eye: argument 'N' must be a concrete integer"),
    (lambda n: jnp.linspace(0.0, 1.0, n), "linspace: argument 'num' must be a concrete integer"),
    (lambda n: jnp.tile(jnp.ones(2), n), "tile: argument 'reps'"),
    (lambda n: jnp.repeat(jnp.ones(2), n), "repeat: argument 'repeats'"),
    (lambda n: jnp.sum(jnp.ones((2, 2)), axis=n),
     "sum: argument 'axis' must be a concrete integer"),
    (lambda n: lax.broadcast_in_dim(1.0, (n,), ()), "broadcast_in_dim: argument 'shape'"),
    (lambda n: numlir.random.normal(numlir.random.PRNGKey(0), (n,)), "normal: argument 'shape'"),
])
def test_every_shape_taking_api_names_itself_and_the_traced_argument(make, what):
    with pytest.raises(numlir.ConcretizationTypeError) as info:
        numlir.jit(make)(3)
    msg = str(info.value)
    assert msg.startswith(what), msg
    assert "argument 'n' of <lambda>" in msg and f"at {HERE}:" in msg


def test_int_of_a_traced_value_says_which_argument_it_depends_on():
    def f(x, k):
        return x * int(k)

    with pytest.raises(numlir.ConcretizationTypeError) as info:
        numlir.jit(f)(X, 2)
    msg = str(info.value)
    assert "Attempted int() conversion" in msg and "argument 'k' of f" in msg
    assert "static_argnums=1" in msg and msg.endswith(f"at {HERE}:{_line_of(f)}")


# --- shapes that no array can have ------------------------------------------------------------


def test_dimension_beyond_int64_is_a_value_error_not_a_compiler_parse_error():
    def f():
        return jnp.zeros((2**63,))

    with pytest.raises(ValueError) as info:
        f()
    msg = str(info.value)
    assert "hlo-opt" not in msg and "invalid dimension" not in msg
    assert msg == (f"zeros: argument 'shape' is (9223372036854775808,), whose dimension 0 "
                   f"(9223372036854775808) is larger than the largest array dimension, 2**63 - 1 "
                   f"at {HERE}:{_line_of(f)}")


def test_shape_whose_byte_size_overflows_int64_is_a_value_error():
    with pytest.raises(ValueError, match=r"zeros: argument 'shape' is \(2147483648, 2147483648\): "
                                         r"4611686018427387904 elements of float32 "
                                         r"\(18446744073709551616 bytes\) are more than an array "
                                         r"can hold"):
        jnp.zeros((2**31, 2**31))


def test_negative_dimension_is_a_value_error_naming_the_op():
    with pytest.raises(ValueError, match=r"ones: argument 'shape' is \(2, -1\), which has a "
                                         r"negative dimension \(-1 at index 1\).* at .*"
                                         r"test_bad_input_messages.py:\d+"):
        jnp.ones((2, -1))


def test_huge_shapes_are_rejected_under_jit_before_compiling():
    def f(x):
        return jnp.broadcast_to(x, (2**62, 4)).sum()

    with pytest.raises(ValueError) as info:
        numlir.jit(f).lower(X[0])
    assert str(info.value).startswith("broadcast_to: argument 'shape' is (4611686018427387904, 4)")
    assert str(info.value).endswith(f"at {HERE}:{_line_of(f)}")


def test_huge_result_of_any_primitive_is_rejected_at_trace_time():
    # pad's result shape is computed by its shape rule, not given by the user.
    with pytest.raises(ValueError, match=r"pad: the result shape is \(9223372036854775810, "
                                         r"9223372036854775810\), whose dimension 0"):
        numlir.jit(lambda x: jnp.pad(x, 2**62)).lower(np.ones((2, 2), np.float32))


@pytest.mark.parametrize("shape, fragment", [
    ((2.5,), "zeros: argument 'shape' must be a sequence of concrete integers, got (2.5,): "
             "2.5 (float) is not an integer"),
    (("a",), "'a' (str) is not an integer"),
    (None, "zeros: argument 'shape' must be an int or a sequence of ints, got None"),
    (np.float32(2), "must be an int or a sequence of ints, got np.float32(2.0)"),
])
def test_non_integer_shapes_are_type_errors_like_jax(shape, fragment):
    assert issubclass(_jax_raises(lambda: jjnp.zeros(shape)), TypeError)
    with pytest.raises(TypeError) as info:
        jnp.zeros(shape)
    assert fragment in str(info.value) and f"at {HERE}:" in str(info.value)


def test_integer_dtype_argument_hints_at_a_shape_tuple():
    assert issubclass(_jax_raises(lambda: jjnp.zeros(3, 5)), TypeError)
    with pytest.raises(TypeError, match=r"zeros: cannot interpret 5 as a data type; did you mean "
                                        r"zeros\(\(\.\.\., 5\)\)"):
        jnp.zeros(3, 5)


def test_integer_shapes_of_every_spelling_are_accepted():
    for shape in (3, np.int64(3), (np.int32(3),), [3], np.array([3]), jnp.asarray(3)):
        assert jnp.zeros(shape).shape == (3,)


# --- Python ints that do not fit ---------------------------------------------------------------


def test_huge_python_int_argument_to_jit_names_the_argument():
    def f(x, scale):
        return x * scale

    assert _jax_raises(lambda: jax.jit(f)(X, 2**100)) is OverflowError
    with pytest.raises(OverflowError) as info:
        numlir.jit(f)(X, 2**100)
    msg = str(info.value)
    assert msg.startswith("f: argument 'scale': Python int 1267650600228229401496703205376 too "
                          "large to convert to int32")
    assert "C long" not in msg and f"at {HERE}:" in msg


def test_huge_python_int_in_a_pytree_argument_names_its_path():
    with pytest.raises(OverflowError, match=r"<lambda>: argument \"p\['b'\]\[1\]\": Python int"):
        numlir.jit(lambda p: p["a"])({"a": 1, "b": [2, 2**70]})


@pytest.mark.parametrize("make, jax_make, dtype", [
    (lambda: jnp.asarray(2**100), lambda: jjnp.asarray(2**100), "int32"),
    (lambda: jnp.add(np.int32(1), 2**40), lambda: jjnp.add(np.int32(1), 2**40), "int32"),
    (lambda: jnp.ones(3) * 2**100, lambda: jjnp.ones(3) * 2**100, "int32"),
])
def test_huge_python_int_in_eager_ops_is_an_overflow_error_like_jax(make, jax_make, dtype):
    assert _jax_raises(jax_make) is OverflowError
    with pytest.raises(OverflowError) as info:
        make()
    assert f"too large to convert to {dtype}" in str(info.value)
    assert f"at {HERE}:" in str(info.value)


def test_python_int_that_does_not_fit_a_small_int_array_is_an_error_as_in_numpy():
    # JAX wraps 300 around to 44 here; NumPy 2 refuses, and so does numlir: no silent wrong value.
    with pytest.raises(OverflowError):
        np.uint8(1) + 300
    with pytest.raises(OverflowError, match=r"Python int 300 too large to convert to uint8 \(its "
                                            r"range is 0 to 255\) at .*test_bad_input_messages"):
        jnp.add(np.uint8(1), 300)


def test_python_int_beyond_int64_with_x64(x64):
    assert _jax_raises(lambda: jjnp.asarray(2**63)) is OverflowError
    with pytest.raises(OverflowError, match="Python int 9223372036854775808 too large to convert "
                                            "to int64"):
        jnp.asarray(2**63)
    assert int(jnp.asarray(2**63 - 1)) == 2**63 - 1


def test_python_ints_in_range_still_work():
    assert int(numlir.jit(lambda x: x + 1)(2**31 - 2)) == 2**31 - 1
    np.testing.assert_array_equal(jnp.add(np.uint8(1), 254), np.uint8(255))


# --- other bad arguments -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, fragment", [
    ("flaot32", "'flaot32' is not a valid dtype (data type 'flaot32' not understood)"),
    (np.longdouble, f"numlir does not support dtype {np.dtype(np.longdouble).name}; supported: "
                    "bfloat16, bool"),
])
def test_bad_dtypes_say_what_is_wrong_at_the_users_line(dtype, fragment):
    assert issubclass(_jax_raises(lambda: jjnp.zeros(3, dtype="flaot32")), TypeError)
    with pytest.raises(TypeError) as info:
        jnp.zeros(3, dtype=dtype)
    assert fragment in str(info.value) and f"at {HERE}:" in str(info.value)
    with pytest.raises(TypeError, match="is not a valid dtype|does not support dtype"):
        jnp.ones(3).astype(dtype)


@pytest.mark.parametrize("call, fragment", [
    (lambda: jnp.sum(jnp.ones(3), axis=1.5),
     "sum: axis must be None, an integer or a tuple of integers, got 1.5 (float)"),
    (lambda: jnp.sum(jnp.ones(3), axis="a"), "got 'a' (str)"),
    (lambda: jnp.argmax(jnp.ones(3), axis=2.0), "argmax: axis must be an integer, got 2.0 (float)"),
    (lambda: jnp.concatenate([jnp.ones(3)] * 2, axis=0.0), "concatenate: axis must be an integer"),
    (lambda: jnp.transpose(jnp.ones((2, 2)), (0, "x")), "transpose: axis must be an integer"),
])
def test_non_integer_axis_is_a_type_error_naming_the_op(call, fragment):
    with pytest.raises(TypeError) as info:
        call()
    assert fragment in str(info.value) and f"at {HERE}:" in str(info.value)


@pytest.mark.parametrize("call, jax_call, fragment", [
    (lambda: jnp.mean(jnp.ones(3), axis=3), lambda: jjnp.sum(jjnp.ones(3), axis=3),
     "mean: axis 3 is out of bounds for array of dimension 1"),
    (lambda: jnp.cumsum(jnp.ones(3), axis=-2), lambda: jjnp.cumsum(jjnp.ones(3), axis=-2),
     "cumsum: axis -2 is out of bounds for array of dimension 1"),
    (lambda: jnp.stack([jnp.ones(3)] * 2, axis=3), lambda: jjnp.stack([jjnp.ones(3)] * 2, axis=3),
     "stack: axis 3 is out of bounds for array of dimension 2"),
    (lambda: jnp.take(jnp.ones(3), 0, axis=1), lambda: jjnp.take(jjnp.ones(3), 0, axis=1),
     "take: axis 1 is out of bounds for array of dimension 1"),
    (lambda: numlir.nn.softmax(jnp.ones(3), axis=4), lambda: jax.nn.softmax(jjnp.ones(3), axis=4),
     "axis 4 is out of bounds for array of dimension 1"),
])
def test_out_of_range_axis_is_a_value_error_like_jax(call, jax_call, fragment):
    assert _jax_raises(jax_call) is ValueError
    with pytest.raises(ValueError) as info:
        call()
    assert fragment in str(info.value) and f"at {HERE}:" in str(info.value)


@pytest.mark.parametrize("value, dtype, fragment", [
    ([2**40], None, "Python int 1099511627776 too large to convert to int32"),
    ([1, 2**31], None, "Python int 2147483648 too large to convert to int32"),
    ([2**63], None, "Python int 9223372036854775808 too large to convert to int32"),
    ([300], np.uint8, "Python int 300 too large to convert to uint8"),
    ([-1], np.uint8, "Python int -1 too small to convert to uint8"),
    ([1, 2**100], None, "Python int 1267650600228229401496703205376 too large to convert"),
])
def test_lists_of_python_ints_that_do_not_fit_are_errors_not_wrapped_values(value, dtype, fragment):
    # These used to come back as 0, -2**31 or 44 without a word.
    assert _jax_raises(lambda: jjnp.array(value, dtype=dtype)) is OverflowError
    with pytest.raises(OverflowError) as info:
        jnp.array(value, dtype=dtype)
    assert fragment in str(info.value) and f"at {HERE}:" in str(info.value)


def test_lists_of_python_ints_in_range_keep_their_values():
    np.testing.assert_array_equal(jnp.array([-2**31, 2**31 - 1]), [-2**31, 2**31 - 1])
    np.testing.assert_array_equal(jnp.array([0, 255], dtype=np.uint8), [0, 255])
    assert jnp.array([1.5, 2.0], dtype=np.int32).tolist() == [1, 2]


def test_ragged_nested_lists_are_a_value_error_at_the_users_line():
    assert _jax_raises(lambda: jjnp.array([[1, 2], [3]])) is ValueError
    with pytest.raises(ValueError, match=r"cannot convert list to a numlir array: \[\[1, 2\], "
                                         r"\[3\]\]: .*inhomogeneous.* at .*test_bad_input"):
        jnp.array([[1, 2], [3]])


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacfwd", "jacrev", "hessian",
                                       "vmap", "jit"])
def test_transformations_of_a_non_callable_raise_like_jax(transform):
    with pytest.raises(TypeError) as jax_info:
        getattr(jax, transform)(3)
    with pytest.raises(TypeError) as info:
        getattr(numlir, transform)(3)
    assert str(jax_info.value) == "Expected a callable value, got 3"
    assert str(info.value).startswith("Expected a callable value, got 3")


def test_checkpoint_of_a_non_callable_fails_at_once():
    # jax.checkpoint(3) fails only when called; numlir says so when it is made.
    with pytest.raises(TypeError, match="Expected a callable value, got 3 at "):
        numlir.checkpoint(3)


def test_fill_value_that_does_not_broadcast_names_full():
    with pytest.raises(ValueError, match=r"full: fill_value of shape \(3,\) does not broadcast to "
                                         r"shape \(2,\)"):
        jnp.full((2,), jnp.ones(3))
    assert jnp.full((2, 3), jnp.ones((2, 1))).shape == (2, 3)


@pytest.mark.parametrize("call, fragment", [
    (lambda: jnp.arange(1e20), "arange: the result shape is (100000000000000000000,)"),
    (lambda: jnp.eye(2**40), "eye: the result shape is (1099511627776, 1099511627776)"),
    (lambda: jnp.tile(jnp.ones(2), (2**40, 2**40)), "tile: argument 'reps'"),
    (lambda: jnp.repeat(jnp.ones(2), 2**62), "repeat: the result shape is (9223372036854775808,)"),
])
def test_sizes_computed_by_creation_ops_are_checked_by_the_op(call, fragment):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(fragment) and f"at {HERE}:" in str(info.value)


def test_other_bad_arguments_point_at_the_users_line():
    for call, error, fragment in [
        (lambda: lax.fori_loop(0.5, 3, lambda i, c: c, 0), TypeError, "lower and upper must be"),
        (lambda: numlir.random.normal(jnp.ones(3), (2,)), TypeError, "normal requires a PRNG key"),
        (lambda: numlir.jit(lambda n: numlir.nn.one_hot(jnp.ones(3, np.int32), n))(3),
         numlir.ConcretizationTypeError, "one_hot: argument 'num_classes' must be a concrete"),
    ]:
        with pytest.raises(error) as info:
            call()
        assert fragment in str(info.value) and f"at {HERE}:" in str(info.value)


def test_shape_dtype_struct_checks_its_shape():
    with pytest.raises(ValueError, match=r"ShapeDtypeStruct: argument 'shape' is \(-3,\), which "
                                         r"has a negative dimension"):
        numlir.ShapeDtypeStruct((-3,), np.float32)
    assert numlir.ShapeDtypeStruct([2, np.int64(3)], np.float32).shape == (2, 3)
