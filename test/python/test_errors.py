"""Errors name the op, the operands and the user's file:line; nothing crashes."""

import os

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

HERE = os.path.abspath(__file__)
F3 = np.ones(3, np.float32)
F4 = np.ones(4, np.float32)


def _line_of(fn, offset=1):
    return fn.__code__.co_firstlineno + offset


def test_broadcast_error_names_op_shapes_and_line():
    def f(x, y):
        return x + y

    with pytest.raises(TypeError) as info:
        numlir.jit(f).lower(F3, F4)
    assert str(info.value) == (f"add got incompatible shapes for broadcasting: (3,) and (4,) "
                               f"at {HERE}:{_line_of(f)}")


def test_broadcast_error_in_eager_mode_has_the_same_message():
    with pytest.raises(TypeError, match=r"multiply got incompatible shapes for broadcasting: "
                                        r"\(2, 3\) and \(4,\) at .*test_errors.py:\d+"):
        jnp.multiply(np.ones((2, 3), np.float32), F4)


def test_matmul_shape_error():
    def f(a, b):
        return a @ b

    with pytest.raises(TypeError) as info:
        numlir.jit(f).lower(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))
    msg = str(info.value)
    assert "matmul" in msg and "f32[2,3]" in msg and "f32[4,5]" in msg
    assert msg.endswith(f"at {HERE}:{_line_of(f)}")


def test_lax_rejects_mixed_dtypes_with_a_tip():
    with pytest.raises(TypeError, match=r"lax.add requires arguments to have the same dtypes, got "
                                        r"float32, int32.*numlir.numpy.add"):
        numlir.make_graph(lax.add)(F3, np.ones(3, np.int32))
    with pytest.raises(TypeError, match=r"lax.sub requires .*Tip: numlir.numpy.subtract is"):
        numlir.make_graph(lax.sub)(F3, np.ones(3, np.int32))


def test_mixed_dtype_tips_name_existing_numpy_functions():
    from numlir._src.lax import type_checks

    missing = [f for f in type_checks._PROMOTING_EQUIVALENTS.values() if not hasattr(jnp, f)]
    assert not missing


def test_wrong_dtype_for_float_only_op():
    with pytest.raises(TypeError, match=r"tanh does not accept dtype int32.*test_errors.py"):
        numlir.make_graph(lax.tanh)(np.ones(3, np.int32))


def test_bitwise_op_on_floats_is_a_type_error():
    with pytest.raises(TypeError, match="and does not accept dtype float32"):
        numlir.make_graph(jnp.bitwise_and)(F3, F3)


@pytest.mark.parametrize("axis", [1, -2, (0, 3)])
def test_out_of_range_axis_is_a_value_error_with_location(axis):
    with pytest.raises(ValueError, match=r"sum: axis -?\d is out of bounds for array of dimension 1 "
                                         r"at .*test_errors.py:\d+"):
        numlir.make_graph(lambda x: jnp.sum(x, axis=axis))(F3)


def test_duplicate_axis():
    with pytest.raises(ValueError, match="duplicate"):
        numlir.make_graph(lambda x: jnp.sum(x, axis=(0, -2)))(np.ones((2, 2), np.float32))


def test_bad_reshape():
    with pytest.raises(TypeError, match=r"cannot reshape array of shape \(3,\) .* into shape \(2, -1\)"):
        numlir.make_graph(lambda x: x.reshape(2, -1))(F3)


def test_max_of_empty_axis_has_no_identity():
    with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
        numlir.make_graph(lambda x: jnp.max(x, axis=0))(np.ones((0, 2), np.float32))


def test_python_if_on_traced_value_suggests_cond_and_where():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(numlir.TracerBoolConversionError) as info:
        numlir.jit(f).lower(F3)
    msg = str(info.value)
    assert "lax.cond" in msg and "where" in msg
    assert msg.endswith(f"{HERE}:{_line_of(f)}")
    assert isinstance(info.value, TypeError)


def test_float_of_traced_value_is_a_concretization_error():
    with pytest.raises(numlir.ConcretizationTypeError):
        numlir.make_graph(lambda x: float(x))(np.float32(1))


def test_np_asarray_of_a_tracer_is_a_concretization_error():
    with pytest.raises(numlir.ConcretizationTypeError):
        numlir.make_graph(lambda x: np.asarray(x))(F3)


def test_non_array_argument_is_rejected_clearly():
    with pytest.raises(TypeError,
                       match="<lambda>: argument 's' of type str is not a valid numlir type"):
        numlir.jit(lambda s: s).lower("hello")


def test_non_array_output_is_rejected_clearly():
    with pytest.raises(TypeError, match="output of <lambda> of type str"):
        numlir.jit(lambda x: "oops").lower(F3)


def test_lists_are_not_arraylike_for_ufuncs():
    with pytest.raises(TypeError, match="add requires ndarray or scalar arguments"):
        jnp.add([1, 2], 3)


def test_broadcast_in_dim_checks_dimensions():
    with pytest.raises(TypeError, match="broadcast_in_dim"):
        numlir.make_graph(lambda x: lax.broadcast_in_dim(x, (3, 4), (0,)))(F4)


def test_dot_general_checks_contracting_sizes():
    with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to have the same shape"):
        numlir.make_graph(lambda a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ()))))(F3, F4)
