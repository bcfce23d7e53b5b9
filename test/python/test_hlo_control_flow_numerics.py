"""Numerics of hlo.while/if/case and hlo.sort through the CPU pipeline.

Each module is compiled with the cpu backend (or NUMLIR_TEST_HLO_OPT's
hlo-opt) and compared against NumPy / jax.lax.sort's order: -0.0 equals
0.0, NaNs of either sign are equal and sort after +inf, and equal keys keep
their order.

Example::

    run = compile_hlo(MODULE_TEXT)
    keys, perm = run([x, np.arange(x.size, dtype=np.int32)])
"""


import numpy as np
import pytest
from hlo_testing import compile_hlo


def jax_sort_order(keys: list[np.ndarray], axis: int) -> np.ndarray:
    """The stable permutation jax.lax.sort applies along `axis` (NaNs last, -0 == 0)."""
    canon = []
    for k in keys:
        if k.dtype.kind == "f":
            k = k.astype(np.float64)
            k = np.where(np.isnan(k), np.inf, k) + 0.0  # -0.0 -> 0.0
            # NaN after +inf: rank NaNs one above the maximum.
            canon.append((np.isnan(keys[len(canon)].astype(np.float64)), k))
        else:
            canon.append((np.zeros(k.shape, bool), k))
    moved = [(np.moveaxis(n, axis, -1), np.moveaxis(v, axis, -1)) for n, v in canon]
    flat = [(n.reshape(-1, n.shape[-1]), v.reshape(-1, v.shape[-1])) for n, v in moved]
    rows = []
    for r in range(flat[0][0].shape[0]):
        # np.lexsort sorts by the last key first and is stable.
        columns = []
        for n, v in reversed(flat):
            columns += [v[r], n[r]]
        rows.append(np.lexsort(columns))
    order = np.array(rows).reshape(moved[0][0].shape)
    return np.moveaxis(order, -1, axis)


def test_while_counts_and_doubles():
    run = compile_hlo("""
func.func @main(%n: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %zero = hlo.constant dense<0> : tensor<i32>
  %one = hlo.constant dense<1> : tensor<i32>
  %r:2 = hlo.while (%i = %zero, %v = %x) : tensor<i32>, tensor<4xf32> cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %i1 = hlo.add %i, %one : tensor<i32>
    %v1 = hlo.add %v, %v : tensor<4xf32>
    hlo.return %i1, %v1 : tensor<i32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<4xf32>
}""")
    x = np.array([1, -2, 0.5, 3], np.float32)
    for n in [0, 1, 5]:
        i, v = run([np.array(n, np.int32), x])
        assert i == n
        np.testing.assert_array_equal(v, x * 2.0**n)
    i, v = run([np.array(-3, np.int32), x])  # the body never runs
    assert i == 0
    np.testing.assert_array_equal(v, x)


def test_while_carries_unsigned_values():
    # Collatz steps of an unsigned value: unsigned compare and divide inside.
    run = compile_hlo("""
func.func @main(%x: tensor<ui32>) -> tensor<ui32> {
  %one = hlo.constant dense<1> : tensor<ui32>
  %two = hlo.constant dense<2> : tensor<ui32>
  %three = hlo.constant dense<3> : tensor<ui32>
  %zero = hlo.constant dense<0> : tensor<ui32>
  %r:2 = hlo.while (%v = %x, %steps = %zero) : tensor<ui32>, tensor<ui32> cond {
    %c = hlo.compare GT, %v, %one : tensor<ui32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %rem = hlo.remainder %v, %two : tensor<ui32>
    %odd = hlo.compare EQ, %rem, %one : tensor<ui32> -> tensor<i1>
    %half = hlo.divide %v, %two : tensor<ui32>
    %m = hlo.multiply %v, %three : tensor<ui32>
    %up = hlo.add %m, %one : tensor<ui32>
    %next = hlo.select %odd, %up, %half : tensor<i1>, tensor<ui32>
    %s = hlo.add %steps, %one : tensor<ui32>
    hlo.return %next, %s : tensor<ui32>, tensor<ui32>
  }
  return %r#1 : tensor<ui32>
}""")
    (steps,) = run([np.array(27, np.uint32)])
    assert steps == 111


def test_if_runs_the_chosen_branch():
    run = compile_hlo("""
func.func @main(%p: tensor<i1>, %x: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<i32>) {
  %r:2 = hlo.if %p -> (tensor<2x3xf64>, tensor<i32>) {
    %e = hlo.exp %x : tensor<2x3xf64>
    %one = hlo.constant dense<1> : tensor<i32>
    hlo.return %e, %one : tensor<2x3xf64>, tensor<i32>
  } else {
    %n = hlo.negate %x : tensor<2x3xf64>
    %two = hlo.constant dense<2> : tensor<i32>
    hlo.return %n, %two : tensor<2x3xf64>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<2x3xf64>, tensor<i32>
}""")
    x = np.arange(6, dtype=np.float64).reshape(2, 3) / 3
    y, k = run([np.array(True), x])
    np.testing.assert_allclose(y, np.exp(x))
    assert k == 1
    y, k = run([np.array(False), x])
    np.testing.assert_array_equal(y, -x)
    assert k == 2


def test_case_out_of_range_runs_the_last_branch():
    run = compile_hlo("""
func.func @main(%i: tensor<i32>, %x: tensor<3xi64>) -> tensor<3xi64> {
  %r = hlo.case %i -> (tensor<3xi64>) {
    hlo.return %x : tensor<3xi64>
  }, {
    %n = hlo.negate %x : tensor<3xi64>
    hlo.return %n : tensor<3xi64>
  }, {
    %m = hlo.multiply %x, %x : tensor<3xi64>
    hlo.return %m : tensor<3xi64>
  }
  return %r : tensor<3xi64>
}""")
    x = np.array([1, -2, 3], np.int64)
    expected = {0: x, 1: -x, 2: x * x, 3: x * x, -1: x * x, 2**31 - 1: x * x,
                -(2**31): x * x}
    for i, want in expected.items():
        (got,) = run([np.array(i, np.int32), x])
        np.testing.assert_array_equal(got, want, err_msg=f"index {i}")


def test_case_with_one_branch_always_runs_it():
    run = compile_hlo("""
func.func @main(%i: tensor<i32>, %x: tensor<f32>) -> tensor<f32> {
  %r = hlo.case %i -> (tensor<f32>) {
    %n = hlo.negate %x : tensor<f32>
    hlo.return %n : tensor<f32>
  }
  return %r : tensor<f32>
}""")
    for i in [0, 1, -1]:
        (got,) = run([np.array(i, np.int32), np.array(2.5, np.float32)])
        assert got == -2.5


def test_nested_control_flow_sorts_inside_a_loop():
    # Each iteration adds the loop index to every other element and re-sorts.
    run = compile_hlo("""
func.func @main(%x: tensor<6xf32>, %n: tensor<i32>) -> tensor<6xf32> {
  %zero = hlo.constant dense<0> : tensor<i32>
  %one = hlo.constant dense<1> : tensor<i32>
  %mask = hlo.constant dense<[1.0, 0.0, 1.0, 0.0, 1.0, 0.0]> : tensor<6xf32>
  %r:2 = hlo.while (%i = %zero, %v = %x) : tensor<i32>, tensor<6xf32> cond {
    %c = hlo.compare LT, %i, %n : tensor<i32> -> tensor<i1>
    hlo.return %c : tensor<i1>
  } do {
    %even = hlo.remainder %i, %one : tensor<i32>
    %f = hlo.convert %i : tensor<i32> -> tensor<f32>
    %b = hlo.broadcast_in_dim %f, dims = [] : tensor<f32> -> tensor<6xf32>
    %d = hlo.multiply %b, %mask : tensor<6xf32>
    %p = hlo.compare EQ, %even, %zero : tensor<i32> -> tensor<i1>
    %w = hlo.if %p -> (tensor<6xf32>) {
      %a = hlo.add %v, %d : tensor<6xf32>
      hlo.return %a : tensor<6xf32>
    } else {
      hlo.return %v : tensor<6xf32>
    }
    %s = hlo.sort(%w) dim = 0, num_keys = 1 : tensor<6xf32>
    %i1 = hlo.add %i, %one : tensor<i32>
    hlo.return %i1, %s : tensor<i32>, tensor<6xf32>
  }
  return %r#1 : tensor<6xf32>
}""")
    x = np.array([5, 3, 9, 1, 0, 2], np.float32)
    mask = np.array([1, 0, 1, 0, 1, 0], np.float32)
    want = x.copy()
    for i in range(4):
        want = np.sort(want + i * mask)
    (got,) = run([x, np.array(4, np.int32)])
    np.testing.assert_array_equal(got, want)


SORT_1D = """
func.func @main(%k: tensor<{n}x{t}>, %v: tensor<{n}xi32>) -> (tensor<{n}x{t}>, tensor<{n}xi32>) {{
  %r:2 = hlo.sort(%k, %v) dim = 0, num_keys = 1, stable : tensor<{n}x{t}>, tensor<{n}xi32>
  return %r#0, %r#1 : tensor<{n}x{t}>, tensor<{n}xi32>
}}"""


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 17, 100])
def test_sort_sizes_permute_values_stably(n):
    run = compile_hlo(SORT_1D.format(n=n, t="i32"))
    rng = np.random.default_rng(n)
    keys = rng.integers(-3, 4, n).astype(np.int32)  # many ties
    values = np.arange(n, dtype=np.int32)
    k, v = run([keys, values])
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(k, keys[order])
    np.testing.assert_array_equal(v, order)


@pytest.mark.parametrize("t,dtype", [("f32", np.float32), ("f64", np.float64),
                                     ("f16", np.float16)])
def test_sort_floats_total_order_like_jax(t, dtype):
    keys = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -np.inf, np.inf, -0.0, 0.0,
                     -1.5, np.nan, 2.0], dtype)
    n = keys.size
    run = compile_hlo(SORT_1D.format(n=n, t=t))
    k, v = run([keys, np.arange(n, dtype=np.int32)])
    # jax.lax.sort((keys, iota), num_keys=1, is_stable=True) gives this order.
    expected = [5, 9, 0, 1, 7, 8, 4, 11, 6, 2, 3, 10]
    np.testing.assert_array_equal(v, expected)
    np.testing.assert_array_equal(k.view(np.uint8), keys[expected].view(np.uint8))


@pytest.mark.parametrize("t,dtype", [("ui8", np.uint8), ("i8", np.int8), ("ui64", np.uint64),
                                     ("i1", np.bool_)])
def test_sort_integer_signedness(t, dtype):
    rng = np.random.default_rng(0)
    if dtype == np.bool_:
        keys = rng.integers(0, 2, 40).astype(bool)
    else:
        info = np.iinfo(dtype)
        keys = rng.integers(info.min, info.max, 40, dtype=dtype, endpoint=True)
    run = compile_hlo(SORT_1D.format(n=40, t=t))
    k, v = run([keys, np.arange(40, dtype=np.int32)])
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(v, order)
    np.testing.assert_array_equal(k, keys[order])


def test_sort_lexicographic_by_two_keys_with_a_payload():
    run = compile_hlo("""
func.func @main(%a: tensor<30xf32>, %b: tensor<30xi32>, %c: tensor<30xi32>) -> (tensor<30xf32>, tensor<30xi32>, tensor<30xi32>) {
  %r:3 = hlo.sort(%a, %b, %c) dim = 0, num_keys = 2 : tensor<30xf32>, tensor<30xi32>, tensor<30xi32>
  return %r#0, %r#1, %r#2 : tensor<30xf32>, tensor<30xi32>, tensor<30xi32>
}""")
    rng = np.random.default_rng(1)
    a = rng.choice(np.array([np.nan, -0.0, 0.0, 1.0, -1.0], np.float32), 30)
    b = rng.integers(0, 3, 30).astype(np.int32)
    c = np.arange(30, dtype=np.int32)
    ra, rb, rc = run([a, b, c])
    order = jax_sort_order([a, b], axis=0)
    np.testing.assert_array_equal(rc, order)
    np.testing.assert_array_equal(rb, b[order])


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_sort_along_each_axis_of_a_3d_tensor(axis):
    run = compile_hlo(f"""
func.func @main(%k: tensor<4x7x5xf32>, %v: tensor<4x7x5xi64>) -> (tensor<4x7x5xf32>, tensor<4x7x5xi64>) {{
  %r:2 = hlo.sort(%k, %v) dim = {axis}, num_keys = 1, stable : tensor<4x7x5xf32>, tensor<4x7x5xi64>
  return %r#0, %r#1 : tensor<4x7x5xf32>, tensor<4x7x5xi64>
}}""")
    rng = np.random.default_rng(axis)
    keys = rng.integers(0, 4, (4, 7, 5)).astype(np.float32)
    values = np.arange(keys.size, dtype=np.int64).reshape(keys.shape)
    k, v = run([keys, values])
    order = np.argsort(keys, axis=axis, kind="stable")
    np.testing.assert_array_equal(k, np.take_along_axis(keys, order, axis))
    np.testing.assert_array_equal(v, np.take_along_axis(values, order, axis))


def test_sort_with_a_size_0_other_dimension():
    run = compile_hlo("""
func.func @main(%k: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %r = hlo.sort(%k) dim = 1, num_keys = 1 : tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}""")
    (k,) = run([np.zeros((0, 4), np.float32)])
    assert k.shape == (0, 4)


def test_sort_100k_elements_is_stable_and_exact():
    # Large enough that the merge sort runs many passes (speed is measured in
    # bench/, not here).
    n = 100_000
    run = compile_hlo(SORT_1D.format(n=n, t="f32"))
    rng = np.random.default_rng(7)
    keys = rng.standard_normal(n).astype(np.float32)
    keys[::7] = keys[0]  # ties, to check stability
    values = np.arange(n, dtype=np.int32)
    k, v = run([keys, values])
    np.testing.assert_array_equal(k, np.sort(keys))
    np.testing.assert_array_equal(v, np.argsort(keys, kind="stable"))
