"""Numerics of the slicing and indexing ops (slice, dynamic_slice,
dynamic_update_slice, concatenate, pad, reverse, gather, scatter) compiled
with hlo-to-cpu, checked against NumPy and jax.lax with the same parameters.

The edge cases are those where a naive lowering reads or writes out of
bounds: start indices below 0 or past the end (clamped as in XLA), unsigned
indices above INT64_MAX, scatter windows partly outside the operand
(skipped), duplicate scatter indices (applied in order), negative padding
and zero-size tensors.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hlo_testing import compile_hlo
from jax import lax

RNG = np.random.default_rng(0)


def _t(shape, dtype="f32"):
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{dtype}>"


def _list(values):
    return "[" + ", ".join(map(str, values)) + "]"


def test_slice_matches_numpy_strided_slicing():
    x = RNG.standard_normal((5, 7)).astype(np.float32)
    run = compile_hlo(f"""
func.func @main(%a: {_t((5, 7))}) -> ({_t((2, 3))}, {_t((5, 0))}) {{
  %0 = hlo.slice %a, start = [1, 0], limit = [5, 7], strides = [2, 3] : {_t((5, 7))} -> {_t((2, 3))}
  %1 = hlo.slice %a, start = [0, 4], limit = [5, 4], strides = [1, 1] : {_t((5, 7))} -> {_t((5, 0))}
  return %0, %1 : {_t((2, 3))}, {_t((5, 0))}
}}""")
    out, empty = run([x])
    np.testing.assert_array_equal(out, x[1:5:2, 0:7:3])
    np.testing.assert_array_equal(out, lax.slice(x, (1, 0), (5, 7), (2, 3)))
    assert empty.shape == (5, 0)


@pytest.mark.parametrize("index_type,np_index", [("i32", np.int32), ("i8", np.int8),
                                                 ("ui64", np.uint64), ("ui8", np.uint8)])
def test_dynamic_slice_clamps_starts_like_xla(index_type, np_index):
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    it = _t((), index_type)
    run = compile_hlo(f"""
func.func @main(%a: {_t((5, 6))}, %i: {it}, %j: {it}) -> {_t((2, 3))} {{
  %0 = hlo.dynamic_slice %a[%i, %j], sizes = [2, 3] : {_t((5, 6))}[{it}, {it}] -> {_t((2, 3))}
  return %0 : {_t((2, 3))}
}}""")
    info = np.iinfo(np_index)
    starts = [(0, 0), (1, 2), (4, 5), (3, 100), (info.max, info.max)]
    if info.min < 0:
        starts += [(-1, 2), (info.min, -3)]
    for i, j in starts:
        (out,) = run([x, np.array(i, np_index), np.array(j, np_index)])
        ci, cj = min(max(int(i), 0), 3), min(max(int(j), 0), 3)
        np.testing.assert_array_equal(out, x[ci:ci + 2, cj:cj + 3], err_msg=f"start {i}, {j}")
        # jax wraps negative starts before clamping; the op clamps only.
        if np_index != np.uint64 and i >= 0 and j >= 0:
            ref = lax.dynamic_slice(x, (np_index(i), np_index(j)), (2, 3))
            np.testing.assert_array_equal(out, ref)


def test_dynamic_update_slice_clamps_starts_like_xla():
    x = np.zeros((4, 5), np.int32)
    u = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    it = _t((), "i32")
    run = compile_hlo(f"""
func.func @main(%a: {_t((4, 5), 'i32')}, %i: {it}, %j: {it}, %u: {_t((2, 3), 'i32')}) -> {_t((4, 5), 'i32')} {{
  %0 = hlo.dynamic_update_slice %a[%i, %j], %u : {_t((4, 5), 'i32')}[{it}, {it}], {_t((2, 3), 'i32')}
  return %0 : {_t((4, 5), 'i32')}
}}""")
    for i, j in [(0, 0), (1, 1), (-5, 9), (3, 2), (2**31 - 1, -(2**31))]:
        (out,) = run([x, np.int32(i), np.int32(j), u])
        ref = lax.dynamic_update_slice(x, u, (np.int32(i), np.int32(j)))
        np.testing.assert_array_equal(out, ref, err_msg=f"start {i}, {j}")
    np.testing.assert_array_equal(x, 0)  # the input buffer is not written


def test_concatenate_joins_along_middle_dim_with_empty_input():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 0, 4)).astype(np.float32)
    c = RNG.standard_normal((2, 2, 4)).astype(np.float32)
    run = compile_hlo(f"""
func.func @main(%a: {_t((2, 3, 4))}, %b: {_t((2, 0, 4))}, %c: {_t((2, 2, 4))}) -> {_t((2, 5, 4))} {{
  %0 = hlo.concatenate dim = 1, %a, %b, %c : {_t((2, 3, 4))}, {_t((2, 0, 4))}, {_t((2, 2, 4))} -> {_t((2, 5, 4))}
  return %0 : {_t((2, 5, 4))}
}}""")
    (out,) = run([a, b, c])
    np.testing.assert_array_equal(out, np.concatenate([a, b, c], axis=1))


def _pad_shape(shape, low, high, interior):
    return tuple(lo + hi + n + max(n - 1, 0) * it
                 for n, lo, hi, it in zip(shape, low, high, interior))


@pytest.mark.parametrize("low,high,interior", [
    ((1, 2), (3, 0), (0, 0)),
    ((0, 1), (1, 0), (2, 1)),
    ((-1, 2), (1, -2), (0, 1)),
    ((-2, -3), (-1, 0), (1, 2)),   # cropping into the interior padding
    ((-6, 0), (4, 0), (0, 0)),     # everything cropped away, padding only
    ((2, 0), (-3, 1), (0, 0)),
])
def test_pad_matches_lax_pad(low, high, interior):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    shape = _pad_shape(x.shape, low, high, interior)
    run = compile_hlo(f"""
func.func @main(%a: {_t((3, 4))}, %v: {_t(())}) -> {_t(shape)} {{
  %0 = hlo.pad %a, %v, low = {_list(low)}, high = {_list(high)}, interior = {_list(interior)} : {_t((3, 4))}, {_t(())} -> {_t(shape)}
  return %0 : {_t(shape)}
}}""")
    (out,) = run([x, np.float32(-7.5)])
    ref = lax.pad(x, np.float32(-7.5), list(zip(low, high, interior)))
    np.testing.assert_array_equal(out, ref)


def test_reverse_matches_numpy_flip():
    x = RNG.integers(-100, 100, (3, 4, 5)).astype(np.int16)
    run = compile_hlo(f"""
func.func @main(%a: {_t((3, 4, 5), 'i16')}) -> {_t((3, 4, 5), 'i16')} {{
  %0 = hlo.reverse %a, dims = [2, 0] : {_t((3, 4, 5), 'i16')}
  return %0 : {_t((3, 4, 5), 'i16')}
}}""")
    (out,) = run([x])
    np.testing.assert_array_equal(out, np.flip(x, (0, 2)))


def _gather_module(operand, indices, result, dnums, slice_sizes, dtype="f32", index_type="i32"):
    ot, it, rt = _t(operand, dtype), _t(indices, index_type), _t(result, dtype)
    return f"""
func.func @main(%a: {ot}, %i: {it}) -> {rt} {{
  %0 = hlo.gather %a[%i], offset_dims = {_list(dnums.offset_dims)}, collapsed_slice_dims = {_list(dnums.collapsed_slice_dims)}, start_index_map = {_list(dnums.start_index_map)}, index_vector_dim = {len(indices) - 1}, slice_sizes = {_list(slice_sizes)} : {ot}[{it}] -> {rt}
  return %0 : {rt}
}}"""


@pytest.mark.parametrize("case", ["rows", "windows", "scalar_elements", "transposed_map"])
def test_gather_matches_lax_gather_with_clamping(case):
    x = RNG.standard_normal((5, 6)).astype(np.float32)
    if case == "rows":  # x[idx] with out-of-range rows clamped
        idx = np.array([[2], [0], [-3], [9]], np.int32)
        dnums = lax.GatherDimensionNumbers((1,), (0,), (0,))
        sizes = (1, 6)
    elif case == "windows":  # 2x3 windows, offsets in dims 1 and 2
        idx = np.array([[0, 0], [4, 5], [-1, 2], [3, 3]], np.int32)
        dnums = lax.GatherDimensionNumbers((1, 2), (), (0, 1))
        sizes = (2, 3)
    elif case == "scalar_elements":  # x[i, j] pairs, batch shape 2x3
        idx = RNG.integers(-2, 8, (2, 3, 2)).astype(np.int32)
        dnums = lax.GatherDimensionNumbers((), (0, 1), (0, 1))
        sizes = (1, 1)
    else:  # index vector entries in the order (dim 1, dim 0)
        idx = np.array([[5, 1], [0, 4], [2, 2]], np.int32)
        dnums = lax.GatherDimensionNumbers((1,), (1,), (1, 0))
        sizes = (3, 1)
    ref = lax.gather(x, idx, dnums, sizes, mode=lax.GatherScatterMode.CLIP)
    (out,) = compile_hlo(_gather_module(x.shape, idx.shape, ref.shape, dnums, sizes))([x, idx])
    np.testing.assert_array_equal(out, ref)


def test_gather_with_implicit_index_vector_dim_and_unsigned_indices():
    x = RNG.standard_normal((7, 3)).astype(np.float32)
    idx = np.array([[0, 6], [200, 3]], np.uint8)
    run = compile_hlo(f"""
func.func @main(%a: {_t((7, 3))}, %i: {_t((2, 2), 'ui8')}) -> {_t((2, 2, 3))} {{
  %0 = hlo.gather %a[%i], offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2, slice_sizes = [1, 3] : {_t((7, 3))}[{_t((2, 2), 'ui8')}] -> {_t((2, 2, 3))}
  return %0 : {_t((2, 2, 3))}
}}""")
    (out,) = run([x, idx])
    np.testing.assert_array_equal(out, x[np.minimum(idx, 6)])


def _scatter_module(kind, operand, indices, updates, dnums, dtype="f32", index_type="i32"):
    ot, it, ut = _t(operand, dtype), _t(indices, index_type), _t(updates, dtype)
    return f"""
func.func @main(%a: {ot}, %i: {it}, %u: {ut}) -> {ot} {{
  %0 = hlo.scatter {kind} %a[%i], %u, update_window_dims = {_list(dnums.update_window_dims)}, inserted_window_dims = {_list(dnums.inserted_window_dims)}, scatter_dims_to_operand_dims = {_list(dnums.scatter_dims_to_operand_dims)}, index_vector_dim = {len(indices) - 1} : {ot}[{it}], {ut}
  return %0 : {ot}
}}"""


_LAX_SCATTER = {"set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul,
                "min": lax.scatter_min, "max": lax.scatter_max}


@pytest.mark.parametrize("kind", ["set", "add", "mul", "min", "max"])
def test_scatter_rows_with_duplicates_and_out_of_bounds(kind):
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    # Row 1 twice (applied in order), rows -1 and 5 are out of bounds.
    idx = np.array([[1], [3], [1], [-1], [5], [0]], np.int32)
    upd = RNG.standard_normal((6, 3)).astype(np.float32)
    dnums = lax.ScatterDimensionNumbers((1,), (0,), (0,))
    run = compile_hlo(_scatter_module(kind, x.shape, idx.shape, upd.shape, dnums))
    (out,) = run([x, idx, upd])
    ref = _LAX_SCATTER[kind](x, idx, upd, dnums, mode=lax.GatherScatterMode.FILL_OR_DROP)
    if kind == "set":  # jax leaves the order of duplicates unspecified: last wins here
        expected = x.copy()
        for i, row in zip(idx[:, 0], upd):
            if 0 <= i < 5:
                expected[i] = row
        np.testing.assert_array_equal(out, expected)
    else:
        np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_scatter_skips_windows_that_stick_out():
    x = np.zeros((4, 6), np.int32)
    idx = np.array([[0, 0], [2, 4], [3, 1], [1, 5], [-1, 0], [2, 3]], np.int32)
    upd = np.arange(1, 6 * 2 * 3 + 1, dtype=np.int32).reshape(6, 2, 3)
    dnums = lax.ScatterDimensionNumbers((1, 2), (), (0, 1))
    run = compile_hlo(_scatter_module("add", x.shape, idx.shape, upd.shape, dnums, "i32"))
    (out,) = run([x, idx, upd])
    ref = lax.scatter_add(x, idx, upd, dnums, mode=lax.GatherScatterMode.FILL_OR_DROP)
    np.testing.assert_array_equal(out, ref)
    # Windows at (2, 4), (3, 1), (1, 5), (-1, 0) stick out and are skipped.
    assert out.sum() == upd[0].sum() + upd[5].sum()


def test_scatter_scalar_updates_unsigned_and_implicit_index_vector_dim():
    x = np.full((6,), 10, np.uint16)
    idx = np.array([[5, 0], [65535, 5]], np.uint16)  # 65535 is out of bounds
    upd = np.array([[1, 2], [3, 4]], np.uint16)
    run = compile_hlo(f"""
func.func @main(%a: {_t((6,), 'ui16')}, %i: {_t((2, 2), 'ui16')}, %u: {_t((2, 2), 'ui16')}) -> {_t((6,), 'ui16')} {{
  %0 = hlo.scatter max %a[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2 : {_t((6,), 'ui16')}[{_t((2, 2), 'ui16')}], {_t((2, 2), 'ui16')}
  %1 = hlo.scatter add %0[%i], %u, update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2 : {_t((6,), 'ui16')}[{_t((2, 2), 'ui16')}], {_t((2, 2), 'ui16')}
  return %1 : {_t((6,), 'ui16')}
}}""")
    (out,) = run([x, idx, upd])
    np.testing.assert_array_equal(out, [12, 10, 10, 10, 10, 15])


def test_scatter_does_not_write_its_input():
    x = np.zeros((3,), np.float32)
    idx = np.array([[0], [2]], np.int32)
    upd = np.ones((2,), np.float32)
    dnums = lax.ScatterDimensionNumbers((), (0,), (0,))
    run = compile_hlo(_scatter_module("set", x.shape, idx.shape, upd.shape, dnums))
    (out,) = run([x, idx, upd])
    np.testing.assert_array_equal(out, [1, 0, 1])
    np.testing.assert_array_equal(x, 0)


def test_jnp_reference_helpers_agree():
    # Sanity check of the oracle: jnp indexing clamps gathers like XLA.
    x = jnp.arange(5.0)
    assert float(x[jnp.array(9)]) == 4.0
    assert jax.devices()[0].platform == "cpu"
