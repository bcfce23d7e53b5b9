//===- ScalarMath.h - scalar formulas of elementwise bodies -----*- C++ -*-===//
//
// Internal to convert-hlo-to-linalg: the builders that the bodies of
// elementwise generics are written with (Scalar, FloatMath, ComplexMath),
// and the complex functions computed from the real and imaginary parts
// (ComplexFunctions.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_CONVERSION_HLOTOLINALG_SCALARMATH_H
#define NUMLIR_LIB_CONVERSION_HLOTOLINALG_SCALARMATH_H

#include "Lowerings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <utility>

namespace numlir::hlo_to_linalg {

/// What a scalar body needs: a builder, and the element type of the hlo
/// operands (with its signedness; the values themselves are signless).
struct Scalar {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type element; // original hlo element type, e.g. ui32
  mlir::Type type;    // the signless type of the values, e.g. i32

  bool isComplex() const { return mlir::isa<mlir::ComplexType>(element); }
  bool isFloat() const { return mlir::isa<mlir::FloatType>(element); }
  bool isUnsigned() const { return element.isUnsignedInteger(); }
  bool isBool() const { return element.isInteger(1); }
  unsigned width() const { return type.getIntOrFloatBitWidth(); }

  mlir::Value i(int64_t v) const { return intConstant(b, loc, type, v); }
  mlir::Value i(const llvm::APInt &v) const {
    return intConstant(b, loc, type, v);
  }
  mlir::Value f(double v) const { return floatConstant(b, loc, type, v); }
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x,
                  mlir::Value y) const {
    return mlir::arith::CmpIOp::create(b, loc, p, x, y);
  }
  mlir::Value cmp(mlir::arith::CmpFPredicate p, mlir::Value x,
                  mlir::Value y) const {
    return mlir::arith::CmpFOp::create(b, loc, p, x, y);
  }
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y) const {
    return mlir::arith::SelectOp::create(b, loc, c, x, y);
  }
};

/// Scalar float arithmetic shorthands for the longer formulas. Comparisons
/// are ordered (false when either side is NaN); max and min propagate NaN.
struct FloatMath {
  Scalar &s;

  template <typename Op, typename... Args>
  mlir::Value op(Args... args) {
    return Op::create(s.b, s.loc, args...);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::AddFOp>(x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::SubFOp>(x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::MulFOp>(x, y);
  }
  mlir::Value div(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::DivFOp>(x, y);
  }
  mlir::Value neg(mlir::Value x) { return op<mlir::arith::NegFOp>(x); }
  mlir::Value max(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::MaximumFOp>(x, y);
  }
  mlir::Value min(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::MinimumFOp>(x, y);
  }
  mlir::Value log(mlir::Value x) { return op<mlir::math::LogOp>(x); }
  mlir::Value exp(mlir::Value x) { return op<mlir::math::ExpOp>(x); }
  mlir::Value abs(mlir::Value x) { return op<mlir::math::AbsFOp>(x); }
  mlir::Value floor(mlir::Value x) { return op<mlir::math::FloorOp>(x); }
  mlir::Value sqrt(mlir::Value x) { return op<mlir::math::SqrtOp>(x); }
  mlir::Value sin(mlir::Value x) { return op<mlir::math::SinOp>(x); }
  mlir::Value cos(mlir::Value x) { return op<mlir::math::CosOp>(x); }
  mlir::Value sinh(mlir::Value x) { return op<mlir::math::SinhOp>(x); }
  mlir::Value cosh(mlir::Value x) { return op<mlir::math::CoshOp>(x); }
  mlir::Value atan2(mlir::Value y, mlir::Value x) {
    return op<mlir::math::Atan2Op>(y, x);
  }
  mlir::Value copysign(mlir::Value x, mlir::Value sign) {
    return op<mlir::math::CopySignOp>(x, sign);
  }
  mlir::Value eq(mlir::Value x, mlir::Value y) {
    return s.cmp(mlir::arith::CmpFPredicate::OEQ, x, y);
  }
  mlir::Value lt(mlir::Value x, mlir::Value y) {
    return s.cmp(mlir::arith::CmpFPredicate::OLT, x, y);
  }
  mlir::Value le(mlir::Value x, mlir::Value y) {
    return s.cmp(mlir::arith::CmpFPredicate::OLE, x, y);
  }
  mlir::Value gt(mlir::Value x, mlir::Value y) {
    return s.cmp(mlir::arith::CmpFPredicate::OGT, x, y);
  }
  mlir::Value ge(mlir::Value x, mlir::Value y) {
    return s.cmp(mlir::arith::CmpFPredicate::OGE, x, y);
  }
  /// Bitwise logic on i1 conditions.
  mlir::Value both(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::AndIOp>(x, y);
  }
  mlir::Value either(mlir::Value x, mlir::Value y) {
    return op<mlir::arith::OrIOp>(x, y);
  }
  mlir::Value sel(mlir::Value c, mlir::Value x, mlir::Value y) {
    return s.select(c, x, y);
  }
  mlir::Value isInf(mlir::Value x) { return eq(abs(x), c(INFINITY)); }
  mlir::Value isFinite(mlir::Value x) { return lt(abs(x), c(INFINITY)); }
  /// True for infinities and NaN.
  mlir::Value isNotFinite(mlir::Value x) {
    return s.cmp(mlir::arith::CmpFPredicate::UGE, abs(x), c(INFINITY));
  }
  mlir::Value c(double v) { return s.f(v); }

  /// log(1 + x), accurate near 0, by Goldberg's trick: with u = 1 + x
  /// rounded, log(u) * x / (u - 1) is accurate to a few ulp; u == 1 means x
  /// is below half an ulp of 1. (math.log1p would lower to log(1 + x).)
  mlir::Value log1p(mlir::Value x) {
    mlir::Value one = c(1.0), inf = c(INFINITY);
    mlir::Value u = add(one, x);
    mlir::Value general = mul(log(u), div(x, sub(u, one)));
    mlir::Value result = s.select(eq(u, inf), inf, general);
    return s.select(eq(u, one), x, result);
  }
  /// exp(x) - 1, accurate near 0, by Kahan's trick: with u = exp(x),
  /// (u - 1) * (x / log(u)) (in this order, finite up to the overflow of
  /// exp); exact cases for u == 1 (x tiny), u - 1 == -1 (x very negative)
  /// and u == inf.
  mlir::Value expm1(mlir::Value x) {
    mlir::Value one = c(1.0), inf = c(INFINITY);
    mlir::Value u = exp(x);
    mlir::Value um1 = sub(u, one);
    mlir::Value general = mul(um1, div(x, log(u)));
    mlir::Value result = s.select(eq(u, inf), inf, general);
    result = s.select(eq(um1, c(-1.0)), c(-1.0), result);
    return s.select(eq(u, one), x, result);
  }
  /// Horner: coefficients from the highest power down.
  mlir::Value poly(mlir::Value x, llvm::ArrayRef<double> coefficients) {
    mlir::Value p = c(coefficients.front());
    for (double k : coefficients.drop_front())
      p = add(mul(p, x), c(k));
    return p;
  }
};

/// Shorthands on complex values of type `s.type`, with FloatMath on their
/// parts (of type f32 or f64).
struct ComplexMath {
  Scalar &s;
  Scalar part;
  FloatMath m;

  explicit ComplexMath(Scalar &s)
      : s(s), part{s.b, s.loc, partType(s), partType(s)}, m{part} {}
  static mlir::Type partType(Scalar &s) {
    return mlir::cast<mlir::ComplexType>(s.type).getElementType();
  }
  bool isDouble() const { return part.width() == 64; }
  /// The largest finite value and the smallest normal one of the part type.
  double largest() const;
  double smallestNormal() const;

  mlir::Value re(mlir::Value z) {
    return mlir::complex::ReOp::create(s.b, s.loc, z);
  }
  mlir::Value im(mlir::Value z) {
    return mlir::complex::ImOp::create(s.b, s.loc, z);
  }
  mlir::Value make(mlir::Value re, mlir::Value im) {
    return mlir::complex::CreateOp::create(s.b, s.loc, s.type, re, im);
  }
  mlir::Value make(std::pair<mlir::Value, mlir::Value> parts) {
    return make(parts.first, parts.second);
  }
  mlir::Value constant(double re, double im) {
    return complexConstant(s.b, s.loc, s.type, re, im);
  }

  /// (s, e) with s = fl(a + b) and s + e == a + b exactly (Knuth's TwoSum).
  std::pair<mlir::Value, mlir::Value> twoSum(mlir::Value a, mlir::Value b);
  /// (h, l) with h = fl(a * a) and h + l == a * a exactly, by Veltkamp's
  /// split and Dekker's product, for |a| far below sqrt(max).
  std::pair<mlir::Value, mlir::Value> exactSquare(mlir::Value a);
  /// The sum of `terms` (largest first) with every rounding error kept.
  mlir::Value compensatedSum(llvm::ArrayRef<mlir::Value> terms);
  /// log(|x + iy|) without rounding |z| first.
  mlir::Value logAbs(mlir::Value x, mlir::Value y);
  /// sqrt(x^2 + y^2) for x, y >= 0, without overflow or underflow.
  mlir::Value hypot(mlir::Value x, mlir::Value y);
  /// The parts of tanh(x + iy).
  std::pair<mlir::Value, mlir::Value> tanhParts(mlir::Value x, mlir::Value y);
  /// The parts of atanh(x + iy).
  std::pair<mlir::Value, mlir::Value> atanhParts(mlir::Value x,
                                                 mlir::Value y);
  /// (sqrt(a^2 - x^2), log(a + sqrt(a^2 - 1))) for x, y >= 0, with
  /// a = (|z + 1| + |z - 1|) / 2: what asin, acos, asinh and acosh of
  /// +-x +- iy are built from.
  std::pair<mlir::Value, mlir::Value> asinAcosKernel(mlir::Value x,
                                                     mlir::Value y);
  /// e^|x| * v / 2 as (h * v / 2) * h with h = e^(|x|/2): finite wherever
  /// the result is, though e^|x| is not.
  mlir::Value halfExpTimes(mlir::Value h, mlir::Value v);
};

/// The complex functions that are built from the parts with real functions
/// (ComplexFunctions.cpp). `z` is a value of the complex type `s.type`.
mlir::Value complexSqrt(Scalar &s, mlir::Value z);
mlir::Value complexLog(Scalar &s, mlir::Value z);
mlir::Value complexLog1p(Scalar &s, mlir::Value z);
mlir::Value complexExpm1(Scalar &s, mlir::Value z);
mlir::Value complexLogistic(Scalar &s, mlir::Value z);
mlir::Value complexSin(Scalar &s, mlir::Value z);
mlir::Value complexCos(Scalar &s, mlir::Value z);
mlir::Value complexTan(Scalar &s, mlir::Value z);
mlir::Value complexSinh(Scalar &s, mlir::Value z);
mlir::Value complexCosh(Scalar &s, mlir::Value z);
mlir::Value complexTanh(Scalar &s, mlir::Value z);
mlir::Value complexAsin(Scalar &s, mlir::Value z);
mlir::Value complexAcos(Scalar &s, mlir::Value z);
mlir::Value complexAtan(Scalar &s, mlir::Value z);
mlir::Value complexAsinh(Scalar &s, mlir::Value z);
mlir::Value complexAcosh(Scalar &s, mlir::Value z);
mlir::Value complexAtanh(Scalar &s, mlir::Value z);

} // namespace numlir::hlo_to_linalg

#endif // NUMLIR_LIB_CONVERSION_HLOTOLINALG_SCALARMATH_H
