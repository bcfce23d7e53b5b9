"""Numerics of the hlo -> linalg -> LLVM CPU lowering, checked end to end.

Each test compiles an hlo module with the cpu backend (hlo-to-cpu, LLVM,
link) and runs it through the runtime's `numlir_entry(void **buffers)`. The edge cases here are the ones where a naive lowering
crashes (integer division by zero traps on x86) or silently differs from
XLA (saturating float->int conversion, NaN-propagating max).

Example::

    run = compile_hlo(MODULE_TEXT)
    (out,) = run([x, y], [((4,), np.int32)])
"""

import numpy as np
from hlo_testing import compile_hlo as _compile


def compile_hlo(module: str, tmp_path=None):
    """`run(inputs, outputs)`: outputs lists the (shape, dtype) pairs expected."""
    run = _compile(module)

    def checked(inputs, outputs):
        results = run(inputs)
        assert [(r.shape, r.dtype) for r in results] == [
            (tuple(shape), np.dtype(dtype)) for shape, dtype in outputs
        ]
        return results

    return checked


def test_signed_integer_division_edge_cases(tmp_path):
    run = compile_hlo(
        """
func.func @main(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>) {
  %0 = hlo.divide %a, %b : tensor<6xi32>
  %1 = hlo.remainder %a, %b : tensor<6xi32>
  return %0, %1 : tensor<6xi32>, tensor<6xi32>
}""",
        tmp_path,
    )
    int_min = np.iinfo(np.int32).min
    a = np.array([7, -7, 5, int_min, int_min, 0], np.int32)
    b = np.array([2, 2, 0, -1, 0, 0], np.int32)
    q, r = run([a, b], [((6,), np.int32)] * 2)
    # Truncating division; x / 0 = -1; INT_MIN / -1 = INT_MIN.
    np.testing.assert_array_equal(q, [3, -3, -1, int_min, -1, -1])
    # Remainder has the dividend's sign; x % 0 = x; INT_MIN % -1 = 0.
    np.testing.assert_array_equal(r, [1, -1, 5, 0, int_min, 0])


def test_unsigned_integer_division_edge_cases(tmp_path):
    run = compile_hlo(
        """
func.func @main(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>) {
  %0 = hlo.divide %a, %b : tensor<4xui8>
  %1 = hlo.remainder %a, %b : tensor<4xui8>
  return %0, %1 : tensor<4xui8>, tensor<4xui8>
}""",
        tmp_path,
    )
    a = np.array([250, 7, 9, 0], np.uint8)
    b = np.array([3, 0, 200, 0], np.uint8)
    q, r = run([a, b], [((4,), np.uint8)] * 2)
    np.testing.assert_array_equal(q, [83, 255, 0, 255])
    np.testing.assert_array_equal(r, [1, 7, 9, 0])


def test_integer_power(tmp_path):
    run = compile_hlo(
        """
func.func @main(%a: tensor<6xi32>, %b: tensor<6xi32>, %c: tensor<3xui8>, %d: tensor<3xui8>) -> (tensor<6xi32>, tensor<3xui8>) {
  %0 = hlo.power %a, %b : tensor<6xi32>
  %1 = hlo.power %c, %d : tensor<3xui8>
  return %0, %1 : tensor<6xi32>, tensor<3xui8>
}""",
        tmp_path,
    )
    a = np.array([3, -2, 1, -1, -1, 2], np.int32)
    b = np.array([4, 3, -5, -3, -4, -1], np.int32)
    c = np.array([3, 2, 3], np.uint8)
    d = np.array([200, 200, 5], np.uint8)
    p, q = run([a, b, c, d], [((6,), np.int32), ((3,), np.uint8)])
    # Negative exponents: 1 for base 1, +-1 for base -1, 0 otherwise.
    np.testing.assert_array_equal(p, [81, -8, 1, -1, 1, 0])
    # Exponents >= 128 (top bit set) wrap like repeated multiplication.
    np.testing.assert_array_equal(q, [pow(3, 200, 256), pow(2, 200, 256), 243])


def test_convert(tmp_path):
    run = compile_hlo(
        """
func.func @main(%f: tensor<8xf32>, %i: tensor<3xi8>, %u: tensor<3xui32>) -> (tensor<8xi32>, tensor<8xui8>, tensor<8xi1>, tensor<3xi32>, tensor<3xf64>, tensor<3xf32>, tensor<8xf16>) {
  %0 = hlo.convert %f : tensor<8xf32> -> tensor<8xi32>
  %1 = hlo.convert %f : tensor<8xf32> -> tensor<8xui8>
  %2 = hlo.convert %f : tensor<8xf32> -> tensor<8xi1>
  %3 = hlo.convert %i : tensor<3xi8> -> tensor<3xi32>
  %4 = hlo.convert %i : tensor<3xi8> -> tensor<3xf64>
  %5 = hlo.convert %u : tensor<3xui32> -> tensor<3xf32>
  %6 = hlo.convert %f : tensor<8xf32> -> tensor<8xf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8xi32>, tensor<8xui8>, tensor<8xi1>, tensor<3xi32>, tensor<3xf64>, tensor<3xf32>, tensor<8xf16>
}""",
        tmp_path,
    )
    f = np.array([1.9, -1.9, np.nan, np.inf, -np.inf, 3e9, 300.0, -0.0], np.float32)
    i = np.array([-128, -1, 127], np.int8)
    u = np.array([0, 2**31, 2**32 - 1], np.uint32)
    outs = run(
        [f, i, u],
        [((8,), np.int32), ((8,), np.uint8), ((8,), np.bool_), ((3,), np.int32),
         ((3,), np.float64), ((3,), np.float32), ((8,), np.float16)],
    )
    to_i32, to_u8, to_bool, widened, i_to_f64, u_to_f32, to_f16 = outs
    i32 = np.iinfo(np.int32)
    # Float to int truncates and saturates; NaN becomes 0 (XLA's rule).
    np.testing.assert_array_equal(to_i32, [1, -1, 0, i32.max, i32.min, i32.max, 300, 0])
    np.testing.assert_array_equal(to_u8, [1, 0, 0, 255, 0, 255, 255, 0])
    np.testing.assert_array_equal(to_bool, [True, True, True, True, True, True, True, False])
    np.testing.assert_array_equal(widened, [-128, -1, 127])
    np.testing.assert_array_equal(i_to_f64, [-128.0, -1.0, 127.0])
    np.testing.assert_array_equal(u_to_f32, u.astype(np.float32))
    with np.errstate(over="ignore"):  # 3e9 is inf in f16, as intended
        np.testing.assert_array_equal(to_f16, f.astype(np.float16))


def test_reduce_max_min_propagate_nan(tmp_path):
    run = compile_hlo(
        """
func.func @main(%a: tensor<3x4xf32>, %e: tensor<2x0xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = hlo.reduce max %a, dims = [1] : tensor<3x4xf32> -> tensor<3xf32>
  %1 = hlo.reduce min %a, dims = [1] : tensor<3x4xf32> -> tensor<3xf32>
  %2 = hlo.reduce sum %a, dims = [0] : tensor<3x4xf32> -> tensor<4xf32>
  %3 = hlo.reduce max %e, dims = [1] : tensor<2x0xf32> -> tensor<2xf32>
  %4 = hlo.reduce prod %e, dims = [1] : tensor<2x0xf32> -> tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>
}""",
        tmp_path,
    )
    a = np.array([[1, 5, -2, 3], [np.nan, 1, 2, 3], [-np.inf, -1, -7, 0]], np.float32)
    e = np.zeros((2, 0), np.float32)
    mx, mn, s, empty_max, empty_prod = run(
        [a, e], [((3,), np.float32)] * 2 + [((4,), np.float32)] + [((2,), np.float32)] * 2
    )
    np.testing.assert_array_equal(mx, [5, np.nan, 0])
    np.testing.assert_array_equal(mn, [-2, np.nan, -np.inf])
    np.testing.assert_allclose(s, a.sum(axis=0))
    np.testing.assert_array_equal(empty_max, [-np.inf, -np.inf])
    np.testing.assert_array_equal(empty_prod, [1, 1])


def test_integer_reductions(tmp_path):
    run = compile_hlo(
        """
func.func @main(%a: tensor<2x3xi16>, %u: tensor<2x3xui16>, %p: tensor<2x3xi1>) -> (tensor<2xi16>, tensor<3xi16>, tensor<2xui16>, tensor<2xui16>, tensor<2xi1>, tensor<2xi1>) {
  %0 = hlo.reduce max %a, dims = [1] : tensor<2x3xi16> -> tensor<2xi16>
  %1 = hlo.reduce prod %a, dims = [0] : tensor<2x3xi16> -> tensor<3xi16>
  %2 = hlo.reduce max %u, dims = [1] : tensor<2x3xui16> -> tensor<2xui16>
  %3 = hlo.reduce min %u, dims = [1] : tensor<2x3xui16> -> tensor<2xui16>
  %4 = hlo.reduce and %p, dims = [1] : tensor<2x3xi1> -> tensor<2xi1>
  %5 = hlo.reduce or %p, dims = [1] : tensor<2x3xi1> -> tensor<2xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<2xi16>, tensor<3xi16>, tensor<2xui16>, tensor<2xui16>, tensor<2xi1>, tensor<2xi1>
}""",
        tmp_path,
    )
    a = np.array([[-5, -3, -9], [4, -2, 7]], np.int16)
    u = np.array([[65535, 3, 9], [4, 40000, 7]], np.uint16)
    p = np.array([[True, True, True], [False, True, False]])
    outs = run(
        [a, u, p],
        [((2,), np.int16), ((3,), np.int16), ((2,), np.uint16), ((2,), np.uint16),
         ((2,), np.bool_), ((2,), np.bool_)],
    )
    np.testing.assert_array_equal(outs[0], [-3, 7])
    np.testing.assert_array_equal(outs[1], [-20, 6, -63])
    np.testing.assert_array_equal(outs[2], [65535, 40000])
    np.testing.assert_array_equal(outs[3], [3, 4])
    np.testing.assert_array_equal(outs[4], [True, False])
    np.testing.assert_array_equal(outs[5], [True, True])


def test_dot_general(tmp_path):
    run = compile_hlo(
        """
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<4x2x3xf32>, %d: tensor<5x4x2xf32>, %x: tensor<3x4xi32>, %y: tensor<4xi32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3xi32>) {
  %0 = hlo.dot_general %a, %b, batch_dims = [0] x [0], contracting_dims = [2] x [1] : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %1 = hlo.dot_general %c, %d, batch_dims = [1] x [2], contracting_dims = [0] x [1] : tensor<4x2x3xf32>, tensor<5x4x2xf32> -> tensor<2x3x5xf32>
  %2 = hlo.dot_general %x, %y, batch_dims = [] x [], contracting_dims = [1] x [0] : tensor<3x4xi32>, tensor<4xi32> -> tensor<3xi32>
  return %0, %1, %2 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<3xi32>
}""",
        tmp_path,
    )
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4), np.float32)
    b = rng.standard_normal((2, 4, 5), np.float32)
    c = np.ascontiguousarray(a.transpose(2, 0, 1))  # [K, B, M]
    d = np.ascontiguousarray(b.transpose(2, 1, 0))  # [N, K, B]
    x = rng.integers(-100, 100, (3, 4), dtype=np.int32)
    y = rng.integers(-100, 100, (4,), dtype=np.int32)
    batched, permuted, matvec = run(
        [a, b, c, d, x, y],
        [((2, 3, 5), np.float32), ((2, 3, 5), np.float32), ((3,), np.int32)],
    )
    expected = np.einsum("bmk,bkn->bmn", a, b)
    np.testing.assert_allclose(batched, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(permuted, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(matvec, x @ y)


def test_shape_ops(tmp_path):
    run = compile_hlo(
        """
func.func @main(%a: tensor<1x3xf32>, %b: tensor<2x3x4xf32>) -> (tensor<2x4x3xf32>, tensor<4x2x3xf32>, tensor<4x6xf32>, tensor<2x3xi32>) {
  %0 = hlo.broadcast_in_dim %a, dims = [1, 2] : tensor<1x3xf32> -> tensor<2x4x3xf32>
  %1 = hlo.transpose %b, dims = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %2 = hlo.reshape %b : tensor<2x3x4xf32> -> tensor<4x6xf32>
  %3 = hlo.iota dim = 1 : tensor<2x3xi32>
  return %0, %1, %2, %3 : tensor<2x4x3xf32>, tensor<4x2x3xf32>, tensor<4x6xf32>, tensor<2x3xi32>
}""",
        tmp_path,
    )
    a = np.array([[1, 2, 3]], np.float32)
    b = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    bcast, trans, resh, iota = run(
        [a, b],
        [((2, 4, 3), np.float32), ((4, 2, 3), np.float32), ((4, 6), np.float32),
         ((2, 3), np.int32)],
    )
    np.testing.assert_array_equal(bcast, np.broadcast_to(a, (2, 4, 3)))
    np.testing.assert_array_equal(trans, b.transpose(2, 0, 1))
    np.testing.assert_array_equal(resh, b.reshape(4, 6))
    np.testing.assert_array_equal(iota, [[0, 1, 2], [0, 1, 2]])


def test_float_unary_edge_cases(tmp_path):
    run = compile_hlo(
        """
func.func @main(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = hlo.sign %x : tensor<6xf32>
  %1 = hlo.logistic %x : tensor<6xf32>
  %2 = hlo.rsqrt %x : tensor<6xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}""",
        tmp_path,
    )
    x = np.array([-3.0, -0.0, 0.0, np.nan, 200.0, -200.0], np.float32)
    sign, logistic, rsqrt = run([x], [((6,), np.float32)] * 3)
    np.testing.assert_array_equal(sign, [-1.0, -0.0, 0.0, np.nan, 1.0, -1.0])
    assert np.signbit(sign[1]) and not np.signbit(sign[2])  # sign(-0.0) is -0.0
    expected = (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)
    np.testing.assert_allclose(logistic, expected, rtol=1e-6)  # no NaN at +-200
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_allclose(rsqrt[4], 1 / np.sqrt(np.float32(200.0)), rtol=1e-6)


def test_dot_without_contraction_feeding_a_contraction():
    # Regression: the product-only dot used to accumulate into its init, and
    # elementwise fusion then summed it across the consumer's loop.
    run = compile_hlo(
        """
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>, %z: tensor<2x2xf32>) -> tensor<2xf32> {
  %0 = hlo.dot_general %x, %y, batch_dims = [0] x [0], contracting_dims = [] x [] : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %1 = hlo.dot_general %0, %z, batch_dims = [] x [], contracting_dims = [0] x [0] : tensor<2xf32>, tensor<2x2xf32> -> tensor<2xf32>
  return %1 : tensor<2xf32>
}"""
    )
    x = np.array([1.5, 1.0], np.float32)
    y = np.array([-2.0, 1.0], np.float32)
    z = np.array([[1.0, 2.0], [1.0, 1.0]], np.float32)
    (out,) = run([x, y, z], [((2,), np.float32)])
    np.testing.assert_allclose(out, (x * y) @ z)
