"""numlir.numpy as a Python array API namespace (data-apis.org/array-api, 2024.12): the
inspection API (``__array_namespace__``, ``__array_namespace_info__``) and the standard's
signatures (``device=``, ``copy=``, ``correction=``, ``to_device``, ``__setitem__``), checked
against jax.numpy where JAX has the same API and against NumPy for the numbers.

Placement on a device other than the first runs in a fresh process with two CPU devices
(the device count is fixed once a process first uses its devices).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

INFO = jnp.__array_namespace_info__()


def _names(dtypes: dict) -> set[str]:
    return {np.dtype(d).name for d in dtypes.values()}


def _shares_buffer(a, b) -> bool:
    return np.shares_memory(np.asarray(a), np.asarray(b))


# --- __array_namespace__ ------------------------------------------------------------------


def test_array_namespace_of_an_array_is_numlir_numpy():
    x = jnp.ones(3)
    assert x.__array_namespace__() is jnp
    assert jjnp.ones(3).__array_namespace__() is jjnp  # as jax does for its arrays


def test_array_namespace_of_a_traced_value_is_numlir_numpy():
    seen = []

    def f(x):
        seen.append(x.__array_namespace__())
        return x

    numlir.jit(f)(jnp.ones(2))
    assert seen == [jnp]


@pytest.mark.parametrize("version", [None, "2021.12", "2022.12", "2023.12", "2024.12"])
def test_array_namespace_accepts_the_standard_versions(version):
    assert jnp.ones(2).__array_namespace__(api_version=version) is jnp


@pytest.mark.parametrize("version", ["2020.10", "2025.12", "2024", 2024.12])
def test_array_namespace_rejects_other_versions_naming_the_supported_ones(version):
    with pytest.raises(ValueError, match=r"is not available; available versions are: "
                                         r"\['2021.12', '2022.12', '2023.12', '2024.12'\]"):
        jnp.ones(2).__array_namespace__(api_version=version)
    if isinstance(version, str):  # jax accepts only "2024.12"; its message is the same
        with pytest.raises(ValueError, match="is not available; available versions are"):
            jjnp.ones(2).__array_namespace__(api_version=version)


def test_array_namespace_takes_api_version_by_keyword_only():
    with pytest.raises(TypeError):
        jnp.ones(2).__array_namespace__("2024.12")


def test_array_api_version_is_2024_12_as_in_jax():
    assert jnp.__array_api_version__ == "2024.12" == jjnp.__array_api_version__


# --- __array_namespace_info__ -------------------------------------------------------------


def test_capabilities_match_what_numlir_does_under_jit():
    caps = INFO.capabilities()
    assert caps == {"boolean indexing": False, "data-dependent shapes": False,
                    "max dimensions": 64}
    assert caps == jjnp.__array_namespace_info__().capabilities()
    x = jnp.arange(6.0)
    # Eagerly both work...
    np.testing.assert_array_equal(np.asarray(x[x > 2]), [3.0, 4.0, 5.0])
    np.testing.assert_array_equal(np.asarray(jnp.unique(jnp.asarray([2, 1, 2]))), [1, 2])
    # ...but not under jit, so the standard's "fully supports" does not hold.
    with pytest.raises(IndexError, match="boolean indices must be concrete"):
        numlir.jit(lambda v: v[v > 2])(x)
    with pytest.raises(numlir.ConcretizationTypeError):
        numlir.jit(jnp.unique)(x)


def test_max_dimensions_is_numpys_limit():
    assert jnp.zeros((1,) * 64).ndim == 64
    with pytest.raises(Exception):
        np.zeros((1,) * 65)  # numlir's buffers are NumPy arrays on the CPU


def test_default_dtypes_are_32_bit_without_x64_as_jax():
    want = {"real floating": np.float32, "complex floating": np.complex64,
            "integral": np.int32, "indexing": np.int32}
    assert INFO.default_dtypes() == want
    assert INFO.default_dtypes(device=numlir.devices()[0]) == want
    assert jjnp.__array_namespace_info__().default_dtypes() == want


def test_default_dtypes_are_64_bit_with_x64_as_jax(x64):
    want = {"real floating": np.float64, "complex floating": np.complex128,
            "integral": np.int64, "indexing": np.int64}
    assert INFO.default_dtypes() == want
    assert jjnp.__array_namespace_info__().default_dtypes() == want


def test_default_dtypes_follow_the_enable_x64_context():
    with numlir.enable_x64(True):
        assert INFO.default_dtypes()["integral"] == np.int64
    assert INFO.default_dtypes()["integral"] == np.int32


KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "real floating"),
         ("signed integer", "complex floating")]


@pytest.mark.parametrize("kind", KINDS)
def test_dtypes_of_each_kind_without_x64_are_jaxs(kind):
    got = INFO.dtypes(kind=kind)
    assert all(np.dtype(d).itemsize < 8 or np.dtype(d) == np.complex64 for d in got.values())
    assert got == {k: np.dtype(v) for k, v in jjnp.__array_namespace_info__().dtypes(kind=kind).items()}


@pytest.mark.parametrize("kind", KINDS)
def test_dtypes_of_each_kind_with_x64_are_jaxs_and_numpys(kind, x64):
    got = INFO.dtypes(kind=kind)
    assert got == {k: np.dtype(v) for k, v in jjnp.__array_namespace_info__().dtypes(kind=kind).items()}
    assert got == np.__array_namespace_info__().dtypes(kind=kind)
    assert list(got) == list(np.__array_namespace_info__().dtypes(kind=kind))  # the standard's order


def test_dtypes_lists_every_standard_dtype_only_with_x64():
    assert _names(INFO.dtypes()) == {"bool", "int8", "int16", "int32", "uint8", "uint16",
                                     "uint32", "float32", "complex64"}
    with numlir.enable_x64(True):
        assert {"int64", "uint64", "float64", "complex128"} <= _names(INFO.dtypes())
    # Each listed dtype is one numlir keeps: an array of it has that dtype.
    for name, dtype in INFO.dtypes().items():
        assert jnp.zeros(2, dtype=dtype).dtype == dtype, name


def test_dtypes_of_an_unknown_kind_is_a_value_error_naming_the_kinds():
    with pytest.raises(ValueError, match="unsupported kind 'float'.*'real floating'"):
        INFO.dtypes(kind="float")
    with pytest.raises(ValueError, match="unsupported kind 'int'"):
        INFO.dtypes(kind=("bool", "int"))


def test_isdtype_uses_the_same_kinds_and_numeric_excludes_bool():
    assert jnp.isdtype(jnp.float32, "numeric") and jnp.isdtype(jnp.uint8, "numeric")
    assert not jnp.isdtype(jnp.bool_, "numeric")
    assert jnp.isdtype(jnp.int8, ("bool", "signed integer"))


def test_default_device_and_devices_are_numlirs():
    assert INFO.devices() == numlir.devices()
    assert INFO.default_device() == numlir.devices()[0]
    assert isinstance(INFO.default_device(), numlir.Device)
    with numlir.default_device(numlir.devices()[-1]):
        assert INFO.default_device() == numlir.devices()[-1]
        assert jnp.ones(2).device == INFO.default_device()


# --- device= and Array.device / to_device ----------------------------------------------------


def test_array_device_is_a_property_holding_a_device():
    assert isinstance(type(jnp.ones(2)).__dict__["device"], property)
    assert isinstance(jnp.ones(2).device, numlir.Device)


CREATORS = {
    "asarray": lambda d: jnp.asarray([1.0, 2.0], device=d),
    "asarray_of_array": lambda d: jnp.asarray(jnp.arange(3.0), device=d),
    "array": lambda d: jnp.array([1, 2], device=d),
    "arange": lambda d: jnp.arange(1, 7, 2, device=d),
    "astype": lambda d: jnp.astype(jnp.arange(3.0), jnp.int32, device=d),
    "full": lambda d: jnp.full((2, 2), 7, device=d),
    "full_like": lambda d: jnp.full_like(jnp.arange(3), 4, device=d),
    "ones": lambda d: jnp.ones(3, device=d),
    "ones_like": lambda d: jnp.ones_like(jnp.arange(3.0), device=d),
    "zeros": lambda d: jnp.zeros((2,), jnp.int8, device=d),
    "zeros_like": lambda d: jnp.zeros_like(jnp.arange(3.0), device=d),
    "empty": lambda d: jnp.empty(3, device=d),
    "empty_like": lambda d: jnp.empty_like(jnp.arange(3.0), device=d),
    "eye": lambda d: jnp.eye(3, 2, k=-1, device=d),
    "linspace": lambda d: jnp.linspace(0.0, 1.0, 5, device=d),
    "to_device": lambda d: jnp.arange(3.0).to_device(d),
}


@pytest.mark.parametrize("name", sorted(CREATORS))
def test_device_keyword_commits_the_result_to_that_device(name):
    device = numlir.devices()[0]
    out = CREATORS[name](device)
    assert out.device == device and out.committed
    np.testing.assert_array_equal(np.asarray(out), np.asarray(CREATORS[name](None)))
    if name != "to_device":
        assert not CREATORS[name](None).committed


def test_device_keyword_commits_as_jax_does():
    d = jax.devices("cpu")[0]
    assert jjnp.ones(3, device=d).committed and not jjnp.ones(3).committed
    assert jjnp.arange(3, device=d).committed and jjnp.zeros(2, device=d).committed


def test_device_keyword_takes_a_single_device_sharding():
    sharding = numlir.sharding.SingleDeviceSharding(numlir.devices()[0])
    out = jnp.zeros(2, device=sharding)
    assert out.device == numlir.devices()[0] and out.committed


def test_to_device_takes_the_device_by_position_or_name_and_a_stream():
    x = jnp.arange(3.0)
    d = numlir.devices()[0]
    for y in (x.to_device(d), x.to_device(device=d), x.to_device(d, stream=None)):
        assert y.device == d and y.committed
        np.testing.assert_array_equal(np.asarray(y), [0.0, 1.0, 2.0])


_TWO_DEVICES = """
import numpy as np, numlir, numlir.numpy as jnp
d0, d1 = numlir.devices()
x = jnp.arange(6.0)
calls = {CALLS}
for name, make in calls.items():
    out = make()
    assert out.device == d1, (name, out.device)
    assert out.committed, name
    assert (out + 1).device == d1, name  # computations follow the committed array
print("ok", len(calls))
y = jnp.ones(2, device=d1)
assert jnp.asarray(y, device=d1, copy=False) is y
try:
    jnp.asarray(x, device=d1, copy=False)
except ValueError as e:
    assert "lives on cpu:0" in str(e), e
else:
    raise AssertionError("copy=False to another device did not raise")
print("copy ok")
"""

_TWO_DEVICE_CALLS = """{
    "asarray": lambda: jnp.asarray([1.0, 2.0], device=d1),
    "asarray_of_array": lambda: jnp.asarray(x, device=d1),
    "array": lambda: jnp.array(x, device=d1),
    "arange": lambda: jnp.arange(4, device=d1),
    "astype": lambda: jnp.astype(x, jnp.int32, device=d1),
    "astype_same_dtype": lambda: jnp.astype(x, jnp.float32, copy=False, device=d1),
    "method_astype": lambda: x.astype(jnp.int32, device=d1),
    "full": lambda: jnp.full(3, 2.0, device=d1),
    "full_like": lambda: jnp.full_like(x, 2, device=d1),
    "ones": lambda: jnp.ones(3, device=d1),
    "ones_like": lambda: jnp.ones_like(x, device=d1),
    "zeros": lambda: jnp.zeros(3, device=d1),
    "zeros_like": lambda: jnp.zeros_like(x, device=d1),
    "empty": lambda: jnp.empty(3, device=d1),
    "empty_like": lambda: jnp.empty_like(x, device=d1),
    "eye": lambda: jnp.eye(3, device=d1),
    "linspace": lambda: jnp.linspace(0, 1, 5, device=d1),
    "to_device": lambda: x.to_device(d1),
    "default_device_context": lambda: numlir.device_put(jnp.ones(2), d1),
}"""


def test_device_keyword_places_every_creation_function_on_the_second_of_two_devices():
    code = textwrap.dedent(_TWO_DEVICES).replace("{CALLS}", _TWO_DEVICE_CALLS)
    result = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                            text=True, timeout=600,
                            env={**os.environ, "NUMLIR_NUM_CPU_DEVICES": "2"})
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.split() == ["ok", "19", "copy", "ok"]


# --- copy= ---------------------------------------------------------------------------------


def test_asarray_copy_true_gives_a_new_buffer_and_copy_none_or_false_the_array_itself():
    x = jnp.arange(4.0)
    y = jnp.asarray(x, copy=True)
    assert y is not x and not _shares_buffer(x, y)
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
    assert (y.device, y.committed, y.dtype, y.weak_type) == (x.device, x.committed, x.dtype,
                                                             x.weak_type)
    assert jnp.asarray(x) is x and jnp.asarray(x, copy=False) is x
    assert jnp.asarray(x, dtype=jnp.float32, copy=False) is x
    jx = jjnp.arange(4.0)  # jax: the same identities
    assert jjnp.asarray(jx, copy=True) is not jx and jjnp.asarray(jx, copy=False) is jx


@pytest.mark.parametrize("value", [[1, 2], (1.0,), 3.0, np.ones(3, np.float32)],
                         ids=["list", "tuple", "scalar", "ndarray"])
def test_asarray_copy_false_of_host_data_is_a_value_error(value):
    # numlir copies host data into a buffer of its own, so the standard's copy=False cannot
    # hold (jax copies silently instead).
    with pytest.raises(ValueError, match="copy=False, but .* host data"):
        jnp.asarray(value, copy=False)
    assert jnp.asarray(value, copy=None).shape == np.shape(value)


def test_asarray_copy_false_with_a_new_dtype_is_a_value_error():
    with pytest.raises(ValueError, match="converting float32 to int32"):
        jnp.asarray(jnp.ones(2), dtype=jnp.int32, copy=False)


def test_asarray_copy_true_of_a_traced_value_works_under_jit():
    f = numlir.jit(lambda v: jnp.asarray(v, copy=True) * 2 + jnp.reshape(v, (3,), copy=True))
    np.testing.assert_array_equal(np.asarray(f(jnp.arange(3.0))), [0.0, 3.0, 6.0])
    with pytest.raises(ValueError, match="converting"):
        numlir.jit(lambda v: jnp.asarray(v, dtype=jnp.int32, copy=False))(jnp.arange(3.0))


def test_array_copies_unless_copy_is_false_as_jax():
    x = jnp.arange(3.0)
    assert jnp.array(x) is not x and not _shares_buffer(jnp.array(x), x)
    assert jnp.array(x, copy=False) is x
    assert jnp.copy(x) is not x and not _shares_buffer(jnp.copy(x), x)
    assert jnp.array(x, ndmin=3).shape == (1, 1, 3)
    jx = jjnp.arange(3.0)
    assert jjnp.array(jx) is not jx


def test_astype_copies_when_asked_and_keeps_jaxs_default_of_no_copy():
    x = jnp.arange(3.0)
    assert jnp.astype(x, jnp.float32) is x  # jax's default copy=False
    y = jnp.astype(x, jnp.float32, copy=True)
    assert y is not x and not _shares_buffer(x, y)
    assert jnp.astype(x, jnp.float32, copy=False) is x
    z = jnp.astype(x, jnp.int32, copy=False)  # a new dtype is always a new array
    assert z.dtype == np.int32 and z is not x
    jx = jjnp.arange(3.0)  # jax agrees
    assert jjnp.astype(jx, jjnp.float32) is jx
    assert jjnp.astype(jx, jjnp.float32, copy=True) is not jx
    assert jjnp.astype(jx, jjnp.float32, copy=False) is jx


def test_array_astype_method_keeps_jaxs_default_of_no_copy():
    x = jnp.arange(3.0)
    assert x.astype(jnp.float32) is x
    assert x.astype(jnp.float32, copy=True) is not x
    assert x.astype("int32").dtype == np.int32
    jx = jjnp.arange(3.0)
    assert jx.astype(jjnp.float32) is jx


def test_astype_takes_x_and_dtype_by_position_only():
    with pytest.raises(TypeError):
        jnp.astype(x=jnp.ones(2), dtype=jnp.int32)
    with pytest.raises(TypeError):
        jnp.astype(jnp.ones(2), jnp.int32, True)  # copy is keyword-only


def test_reshape_takes_the_standards_shape_and_numpys_newshape():
    x = jnp.arange(6)
    for out in (jnp.reshape(x, (2, 3)), jnp.reshape(x, shape=(2, 3)),
                jnp.reshape(x, newshape=(2, 3)), jnp.reshape(x, (-1, 3), "C")):
        assert out.shape == (2, 3)
    np.testing.assert_array_equal(np.asarray(jnp.reshape(x, shape=(3, 2))),
                                  np.asarray(jjnp.reshape(jjnp.arange(6), shape=(3, 2))))
    with pytest.raises(TypeError, match="once"):
        jnp.reshape(x, (2, 3), newshape=(2, 3))
    with pytest.raises(TypeError, match="once"):
        jnp.reshape(x)


def test_reshape_copy_true_gives_a_new_buffer_even_for_the_same_shape():
    x = jnp.arange(6.0)
    same = jnp.reshape(x, (6,), copy=True)
    assert same is not x and not _shares_buffer(same, x)
    np.testing.assert_array_equal(np.asarray(same), np.asarray(x))
    assert jnp.reshape(x, (2, 3), copy=True).shape == (2, 3)
    # copy=False: reshaping an immutable array never needs a copy (jax accepts it too).
    assert jnp.reshape(x, (2, 3), copy=False).shape == (2, 3)
    assert jnp.reshape(x, (6,), copy=False) is x


# --- std / var correction= ---------------------------------------------------------------------


SAMPLES = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)


@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("correction", [0, 1, 1.5, 3])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_correction_is_ddof_as_numpy_computes_it(fn, correction, axis):
    got = getattr(jnp, fn)(SAMPLES, axis=axis, correction=correction)
    want = getattr(np, fn)(SAMPLES.astype(np.float64), axis=axis, ddof=correction)
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-6)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(getattr(jnp, fn)(
        SAMPLES, axis=axis, ddof=correction)))
    np.testing.assert_allclose(np.asarray(got), np.asarray(getattr(jjnp, fn)(
        SAMPLES, axis=axis, correction=correction)), rtol=2e-6)


@pytest.mark.parametrize("fn", ["std", "var"])
def test_correction_keeps_dims_and_works_under_jit(fn):
    f = numlir.jit(lambda v: getattr(jnp, fn)(v, axis=1, correction=1, keepdims=True))
    got = f(SAMPLES)
    assert got.shape == (4, 1)
    np.testing.assert_allclose(np.asarray(got), getattr(np, fn)(SAMPLES, axis=1, ddof=1,
                                                               keepdims=True), rtol=2e-6)


@pytest.mark.parametrize("fn", ["std", "var"])
def test_a_single_element_with_correction_one_is_nan_as_numpy(fn):
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = getattr(np, fn)(np.array([3.0]), ddof=1)
    got = getattr(jnp, fn)(jnp.asarray([3.0]), correction=1)
    assert np.isnan(want) and np.isnan(np.asarray(got))
    assert np.isnan(np.asarray(getattr(jnp, fn)(jnp.zeros((0,)), correction=0)))


@pytest.mark.parametrize("fn", ["std", "var"])
def test_correction_at_least_the_count_is_nan_as_the_standard_and_jax_say(fn):
    # The standard: "if N - correction is less than or equal to 0, the variance is NaN", as
    # jax computes it; NumPy gives inf here (0.5 / 0), which numlir does not follow.
    x = np.array([1.0, 2.0], np.float32)
    got = np.asarray(getattr(jnp, fn)(x, correction=2))
    assert np.isnan(got) and np.isnan(np.asarray(getattr(jjnp, fn)(x, correction=2)))
    assert np.isnan(np.asarray(getattr(jnp, fn)(x, correction=3)))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        assert np.isinf(getattr(np, fn)(x, ddof=2))


@pytest.mark.parametrize("fn", ["std", "var"])
def test_ddof_and_correction_together_are_a_value_error_as_jax(fn):
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        getattr(jnp, fn)(SAMPLES, ddof=1, correction=1)
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        getattr(jjnp, fn)(SAMPLES, ddof=1, correction=1)
    # ddof's default of 0 beside correction is not "both" (jax accepts it too).
    np.testing.assert_array_equal(np.asarray(getattr(jnp, fn)(SAMPLES, ddof=0, correction=1)),
                                  np.asarray(getattr(jnp, fn)(SAMPLES, correction=1)))


def test_array_std_and_var_methods_take_correction():
    x = jnp.asarray(SAMPLES)
    np.testing.assert_allclose(np.asarray(x.var(correction=1)), SAMPLES.var(ddof=1), rtol=2e-6)
    np.testing.assert_allclose(np.asarray(x.std(axis=0, correction=1)),
                               SAMPLES.std(axis=0, ddof=1), rtol=2e-6)


# --- clip ----------------------------------------------------------------------------------


CLIP_CALLS = {
    "no_bounds": lambda xp, x: xp.clip(x),
    "min_by_position": lambda xp, x: xp.clip(x, 1),
    "both_by_position": lambda xp, x: xp.clip(x, 1, 3),
    "min_by_name": lambda xp, x: xp.clip(x, min=1),
    "max_by_name": lambda xp, x: xp.clip(x, max=2),
    "none_then_max": lambda xp, x: xp.clip(x, None, 2),
    "array_bounds": lambda xp, x: xp.clip(x, min=xp.asarray([0, 2, 2, 2, 2], dtype=x.dtype),
                                          max=xp.asarray(3, dtype=x.dtype)),
    "float_bounds_on_floats": lambda xp, x: xp.clip(xp.astype(x, xp.float32), 0.5, 2.5),
}


@pytest.mark.parametrize("name", sorted(CLIP_CALLS))
def test_clip_accepts_the_standards_call_forms_as_jax(name):
    x = np.arange(5, dtype=np.int32)
    got = CLIP_CALLS[name](jnp, jnp.asarray(x))
    want = CLIP_CALLS[name](jjnp, jjnp.asarray(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_clip_takes_x_by_position_only():
    with pytest.raises(TypeError):
        jnp.clip(x=jnp.ones(2), min=0)


# --- __setitem__ ---------------------------------------------------------------------------


def test_setitem_raises_jaxs_immutable_type_error_pointing_to_at():
    x = jnp.arange(3.0)
    with pytest.raises(TypeError) as ours:
        x[0] = 5.0
    with pytest.raises(TypeError) as theirs:
        jjnp.arange(3.0)[0] = 5.0
    for error in (ours, theirs):
        assert "arrays are immutable and do not support in-place item assignment" in str(error.value)
        assert "Instead of x[idx] = y, use x = x.at[idx].set(y)" in str(error.value)
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(x.at[0].set(5.0)), [5.0, 1.0, 2.0])


def test_setitem_on_a_traced_value_raises_the_same_error():
    def f(v):
        v[0] = 1.0
        return v

    with pytest.raises(TypeError, match="immutable.*x.at\\[idx\\].set\\(y\\)"):
        numlir.jit(f)(jnp.zeros(2))


@pytest.fixture
def item_assignment():
    numlir.config.update("numlir_array_item_assignment", True)
    try:
        yield
    finally:
        numlir.config.update("numlir_array_item_assignment", False)


def test_item_assignment_on_replaces_the_arrays_buffer_as_at_set_would(item_assignment):
    x = jnp.arange(6, dtype=jnp.int32)
    alias, before = x, np.asarray(x)
    x[1] = 7.9                      # cast to the array's dtype, as .at[].set
    x[2:4] = jnp.array([-1, -2])
    x[jnp.array([True, False, False, False, False, True])] = 9
    x[-2] += 100                    # __getitem__, __iadd__, __setitem__
    want = np.array([9, 7, -1, -2, 104, 9], np.int32)
    np.testing.assert_array_equal(np.asarray(x), want)
    assert x.dtype == np.int32 and x.shape == (6,)
    assert alias is x               # the same object, as a NumPy array
    # Copy on write: a buffer taken before (np.asarray, a view) is not written.
    np.testing.assert_array_equal(before, np.arange(6))
    with pytest.raises(IndexError):
        x[6] = 0
    x.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        x[0] = 1


def test_item_assignment_on_still_refuses_traced_values(item_assignment):
    def f(v):
        v[0] = 1.0
        return v

    with pytest.raises(TypeError, match="immutable.*numlir_array_item_assignment"):
        numlir.jit(f)(jnp.zeros(2))


@pytest.mark.parametrize("n, m, k", [(0, None, 2**31), (3, 4, 2**31), (3, 4, -2**40),
                                     (3, 4, 4), (3, 4, -3), (3, 4, 1), (2, 5, np.int64(-1))])
def test_eye_with_a_diagonal_beyond_the_matrix_is_zeros_not_an_overflow(n, m, k):
    # array-api-tests drew eye(0, None, k=2**31): converting k to int32 overflowed (jax: an
    # empty matrix). Any k beyond the matrix gives zeros, as at its edge.
    got = np.asarray(jnp.eye(n, m, k=k))
    want = np.asarray(jjnp.eye(n, m, k=k))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.asarray(numlir.jit(lambda: jnp.eye(n, m, k=k))()), want)
