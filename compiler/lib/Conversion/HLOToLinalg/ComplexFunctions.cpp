//===- ComplexFunctions.cpp - complex functions from their parts ----------===//
//
// The complex dialect's own expansions lose small parts (sinh(y) as
// (e^y - e^-y) / 2, log|z| as the log of a rounded |z| near 1) and have no
// inverse trigonometric functions, so these build the results from the
// real and imaginary parts with real functions, as XLA does: the inverse
// functions with XLA's algorithms (Hull et al.'s for asin and acos), so
// that branch cuts, signed zeros and the infinite and NaN inputs come out
// as in jax; sinh and cosh with C99's special values. add, mul, div, exp,
// pow, rsqrt and sign stay complex dialect ops.
//
//===----------------------------------------------------------------------===//

#include "ScalarMath.h"

#include <limits>

using namespace mlir;

namespace numlir::hlo_to_linalg {

double ComplexMath::largest() const {
  return isDouble() ? std::numeric_limits<double>::max()
                    : std::numeric_limits<float>::max();
}

double ComplexMath::smallestNormal() const {
  return isDouble() ? std::numeric_limits<double>::min()
                    : std::numeric_limits<float>::min();
}

std::pair<Value, Value> ComplexMath::twoSum(Value a, Value b) {
  Value sum = m.add(a, b);
  Value bPart = m.sub(sum, a);
  Value aPart = m.sub(sum, bPart);
  Value error = m.add(m.sub(a, aPart), m.sub(b, bPart));
  return {sum, error};
}

std::pair<Value, Value> ComplexMath::exactSquare(Value a) {
  // 2^27 + 1 (2^12 + 1) splits a into halves whose products are exact.
  Value scaled = m.mul(m.c(isDouble() ? 134217729.0 : 4097.0), a);
  Value hi = m.sub(scaled, m.sub(scaled, a));
  Value lo = m.sub(a, hi);
  Value square = m.mul(a, a);
  Value error = m.add(m.add(m.sub(m.mul(hi, hi), square),
                            m.mul(m.c(2.0), m.mul(hi, lo))),
                      m.mul(lo, lo));
  return {square, error};
}

Value ComplexMath::compensatedSum(ArrayRef<Value> terms) {
  Value sum = terms.front(), errors = m.c(0.0);
  for (Value term : terms.drop_front()) {
    auto [next, error] = twoSum(sum, term);
    sum = next;
    errors = m.add(errors, error);
  }
  return m.add(sum, errors);
}

/// log(max) + log1p((min / max)^2) / 2; -inf at 0 and +inf at infinity.
/// The two terms cancel where |z| is near 1: see complexLog.
Value ComplexMath::logAbs(Value x, Value y) {
  Value ax = m.abs(x), ay = m.abs(y);
  Value big = m.max(ax, ay);
  Value small = m.min(ax, ay);
  Value ratio = m.div(small, big);
  Value general =
      m.add(m.log(big), m.mul(m.c(0.5), m.log1p(m.mul(ratio, ratio))));
  Value edge = m.either(m.eq(big, m.c(0.0)), m.eq(big, m.c(INFINITY)));
  return m.sel(edge, m.log(big), general);
}

/// big * sqrt(1 + r) with r = (small / big)^2, or big + big * r / 2 where
/// 0 < r < eps (where 1 + r would round r away); sqrt(2) * big where the two
/// are equal (both 0 or both infinite).
Value ComplexMath::hypot(Value x, Value y) {
  Value big = m.max(x, y), small = m.min(x, y);
  Value q = m.div(small, big);
  Value r = m.mul(q, q);
  double eps = isDouble() ? std::numeric_limits<double>::epsilon()
                          : std::numeric_limits<float>::epsilon();
  Value general = m.mul(big, m.sqrt(m.add(m.c(1.0), r)));
  Value nearBig = m.add(big, m.mul(big, m.mul(m.c(0.5), r)));
  Value tiny = m.both(m.gt(r, m.c(0.0)), m.lt(r, m.c(eps)));
  Value h = m.sel(tiny, nearBig, general);
  return m.sel(m.eq(big, small), m.mul(m.c(M_SQRT2), big), h);
}

/// Kahan's formula, with t = tan(y), b = 1 + t^2, h = sinh(x):
/// (b h sqrt(1 + h^2) + i t) / (1 + b h^2). Beyond |x| = 20 (where tanh x
/// rounds to +-1 in f64) it is (+-1, 4 sin y cos y e^(-2|x|)), and NaN for
/// finite x with infinite or NaN y (C99, as XLA). The imaginary part is y
/// itself for y = 0, and 0 for infinite x.
std::pair<Value, Value> ComplexMath::tanhParts(Value x, Value y) {
  Value t = m.op<math::TanOp>(y);
  Value b = m.add(m.c(1.0), m.mul(t, t));
  Value h = m.sinh(x);
  Value hh = m.mul(h, h);
  Value rho = m.sqrt(m.add(m.c(1.0), hh));
  Value den = m.add(m.c(1.0), m.mul(b, hh));
  Value re = m.div(m.mul(m.mul(b, rho), h), den);
  Value im = m.div(t, den);
  Value far = m.gt(m.abs(x), m.c(20.0));
  Value farIm = m.mul(m.mul(m.c(4.0), m.mul(m.sin(y), m.cos(y))),
                      m.exp(m.mul(m.c(-2.0), m.abs(x))));
  // Exact zeros: at x = +-inf (whatever y is) and at y = 0.
  farIm = m.sel(m.isInf(x), m.c(0.0), farIm);
  im = m.sel(m.eq(y, m.c(0.0)), y, im);
  Value farRe = m.sel(m.both(m.isFinite(x), m.isNotFinite(y)), m.c(NAN),
                      m.copysign(m.c(1.0), x));
  return {m.sel(far, farRe, re), m.sel(far, farIm, im)};
}

/// Hull, Fairgrieve and Tang ("Implementing the complex arcsine and
/// arccosine functions using exception handling", ACM TOMS 23(3), 1997)
/// split the quadrant into eleven regions; as in XLA (StableHLO's
/// decomposition of chlo.asin), the real part needs three of them and the
/// imaginary part four. With r = |z + 1|, s = |z - 1|, a = (r + s) / 2:
///
/// Real part sqrt(a^2 - x^2) = sqrt((a + x)(a - x)), with a - x free of
/// cancellation: (a + x) / 2 * (y^2 / (r + x + 1) + s - (x - 1)) under
/// the root for x <= 1, y sqrt((a + x) / 2 * (1 / (r + x + 1) + 1 /
/// (s + x - 1))) above; y itself where max(x, y) >= sqrt(max) / 8 (a ~ |z|).
///
/// Imaginary part log(a + sqrt(a^2 - 1)) = log1p(am1 + sqrt(am1 (a + 1)))
/// with am1 = a - 1 again free of cancellation (y^2 / 2 / (r + x + 1) +
/// (s + x - 1) / 2 for x >= 1, y^2 / 2 / (r + x + 1) + y^2 / 2 / (s - x + 1)
/// for a <= 1.5). Near the real segment (y < 4 sqrt(min normal), x < 1)
/// it is y / sqrt(1 - x^2), with 1 - x^2 as -(x + 1)(x - 1) / (a + 1) * (a
/// + 1); for large y (or x) log(2) + log(max) + log1p((x / y)^2) / 2.
std::pair<Value, Value> ComplexMath::asinAcosKernel(Value x, Value y) {
  Value one = m.c(1.0), half = m.c(0.5);
  double safeMaxValue = std::sqrt(largest()) / 8;
  Value safeMax = m.c(safeMaxValue);
  Value safeMin = m.c(std::sqrt(smallestNormal()) * 4);
  Value xp1 = m.add(x, one), xm1 = m.sub(x, one);
  Value r = hypot(xp1, y);
  Value s = hypot(m.abs(xm1), y);
  Value a = m.mul(half, m.add(r, s));
  Value halfApx = m.mul(half, m.add(a, x));
  Value yy = m.mul(y, y);
  Value rpxp1 = m.add(r, xp1);
  Value smxm1 = m.sub(s, xm1);
  Value spxm1 = m.add(s, xm1);

  Value inside = m.sqrt(m.mul(halfApx, m.add(m.div(yy, rpxp1), smxm1)));
  Value outside = m.mul(
      y, m.sqrt(m.add(m.div(halfApx, rpxp1), m.div(halfApx, spxm1))));
  Value re = m.sel(m.ge(m.max(x, y), safeMax), y,
                   m.sel(m.le(x, one), inside, outside));

  // The large-argument form takes over earlier where y dominates x.
  Value yThreshold = m.sel(m.lt(x, m.c(safeMaxValue * 1e12)),
                           m.c(safeMaxValue * 1e-6), m.c(safeMaxValue * 1e2));
  Value yLarge = m.ge(y, yThreshold);
  Value largest = m.sel(yLarge, y, x);
  Value far = m.ge(largest, m.sel(yLarge, yThreshold, safeMax));
  Value xOverY = m.sel(m.both(yLarge, m.lt(y, m.c(INFINITY))), m.div(x, y),
                       m.c(0.0));
  Value farIm = m.add(m.add(m.c(M_LN2), m.log(largest)),
                      m.mul(half, m.log1p(m.mul(xOverY, xOverY))));

  Value nearSegment = m.both(m.lt(y, safeMin), m.lt(x, one));
  Value ap1 = m.add(a, one);
  Value halfYy = m.mul(half, yy);
  Value halfYyOverRpxp1 = m.div(halfYy, rpxp1);
  Value am1 = m.sel(
      nearSegment, m.neg(m.div(m.mul(xp1, xm1), ap1)),
      m.sel(m.ge(x, one), m.add(halfYyOverRpxp1, m.mul(half, spxm1)),
            m.sel(m.le(a, m.c(1.5)),
                  m.add(halfYyOverRpxp1, m.div(halfYy, smxm1)),
                  m.sub(a, one))));
  Value sq = m.sqrt(m.mul(am1, ap1));
  Value im = m.sel(far, farIm,
                   m.sel(nearSegment, m.div(y, sq), m.log1p(m.add(am1, sq))));
  return {re, im};
}

/// atanh(x + iy) = (log1p(4|x| / ((1 - |x|)^2 + y^2)) / 4 with x's sign,
/// atan2(2y, (1 - |x|)(1 + |x|) - y^2) / 2). Beyond 1 / epsneg^2 in either
/// part (where the squares would overflow or lose x) the real part's
/// argument is 1 / |x| when |y| is below an ulp of |x|, 0 when a part is
/// infinite, and 1 / (|x| + y^2 / |x|) otherwise, and the imaginary part
/// is +-pi / 2 by y's sign. The signs are read with >= 0, so -0 and NaN
/// count as positive and negative respectively, as in XLA.
std::pair<Value, Value> ComplexMath::atanhParts(Value x, Value y) {
  Value one = m.c(1.0), zero = m.c(0.0);
  double invEpsNeg = isDouble() ? 9007199254740992.0 : 16777216.0;
  Value safeMax = m.c(invEpsNeg * invEpsNeg);
  Value ax = m.abs(x), ay = m.abs(y);
  Value inside = m.both(m.lt(ax, safeMax), m.lt(ay, safeMax));
  Value naxm1 = m.sub(one, ax);
  Value yy = m.mul(y, y);
  Value near = m.div(ax, m.add(m.mul(naxm1, naxm1), yy));
  Value xDominates = m.lt(m.mul(ay, m.c(invEpsNeg)), ax);
  Value infinite = m.either(m.isInf(x), m.isInf(y));
  Value far =
      m.div(m.div(one, m.add(m.div(ax, y), m.div(y, ax))), y);
  Value arg = m.sel(inside, near,
                    m.sel(xDominates, m.div(one, ax),
                          m.sel(infinite, zero, far)));
  Value xSign = m.sel(m.ge(x, zero), one, m.c(-1.0));
  Value re = m.mul(m.mul(xSign, m.log1p(m.mul(m.c(4.0), arg))), m.c(0.25));
  Value ySign = m.sel(m.ge(y, zero), one, m.c(-1.0));
  Value angle = m.sel(
      inside,
      m.atan2(m.add(y, y), m.sub(m.mul(naxm1, m.add(one, ax)), yy)),
      m.mul(ySign, m.c(M_PI)));
  return {re, m.mul(angle, m.c(0.5))};
}

/// The threshold beyond which e^-|x| is negligible next to e^|x| and
/// cosh(x) may overflow where e^|x| v / 2 does not.
static double expHalfThreshold(const ComplexMath &c) {
  return c.isDouble() ? 700.0 : 80.0;
}

Value ComplexMath::halfExpTimes(Value h, Value v) {
  return m.mul(m.mul(h, m.mul(m.c(0.5), v)), h);
}

//===----------------------------------------------------------------------===//
// The functions
//===----------------------------------------------------------------------===//

/// The principal root from t = sqrt((|x| + |z|) / 2): (t, y / 2t) for
/// x >= 0, else (|y| / 2t, +-t) with the sign of y (+t for y = -0, as XLA).
/// (0, y) at 0 and (inf, y) for infinite y but NaN x (NaN there, as XLA).
/// Beyond max / 4, t is twice the root of z / 4, so that |z| does not
/// overflow.
Value complexSqrt(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x), ay = m.abs(y);
  Value large = m.gt(m.max(ax, ay), m.c(c.largest() / 4));
  Value scale = m.sel(large, m.c(0.25), m.c(1.0));
  Value sx = m.mul(ax, scale);
  Value r = c.hypot(sx, m.mul(ay, scale));
  Value t = m.mul(m.sqrt(m.add(m.mul(m.c(0.5), sx), m.mul(m.c(0.5), r))),
                  m.sel(large, m.c(2.0), m.c(1.0)));
  Value twoT = m.mul(m.c(2.0), t);
  Value right = m.ge(x, m.c(0.0));
  Value re = m.sel(right, t, m.div(m.abs(y), twoT));
  Value im = m.sel(right, m.div(y, twoT),
                   m.sel(m.lt(y, m.c(0.0)), m.neg(t), t));
  Value zero = m.eq(t, m.c(0.0));
  re = m.sel(zero, m.c(0.0), re);
  im = m.sel(zero, y, im);
  Value infinite = m.both(m.isInf(y), m.eq(x, x));
  re = m.sel(infinite, m.c(INFINITY), re);
  return c.make(re, m.sel(infinite, y, im));
}

/// (log|z|, atan2(y, x)), |z| not rounded (ComplexMath::logAbs). Where
/// the larger part is in [0.5, 2], |z| may be near 1, where logAbs's terms
/// cancel: there log|z| = log1p(|z|^2 - 1) / 2, with |z|^2 - 1 summed from
/// the exact double-length squares (so that z = 0.6 + 0.8i rounded keeps
/// the digits that say how far it is from the unit circle).
Value complexLog(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x), ay = m.abs(y);
  Value big = m.max(ax, ay), small = m.min(ax, ay);
  auto [bigHi, bigLo] = c.exactSquare(big);
  auto [smallHi, smallLo] = c.exactSquare(small);
  Value normMinusOne =
      c.compensatedSum({m.c(-1.0), bigHi, smallHi, bigLo, smallLo});
  Value nearOne = m.both(m.ge(big, m.c(0.5)), m.le(big, m.c(2.0)));
  Value re = m.sel(nearOne, m.mul(m.c(0.5), m.log1p(normMinusOne)),
                   c.logAbs(x, y));
  return c.make(re, m.atan2(y, x));
}

/// log1p(x + iy) = (log|1 + z|, atan2(y, 1 + x)). Where |1 + z|^2 is in
/// [0.5, 2], the real part is log1p(|1 + z|^2 - 1) / 2 with |1 + z|^2 - 1
/// = 2x + x^2 + y^2 summed from the exact double-length squares (small z,
/// and x near -y^2 / 2, keep their digits); elsewhere (near -1, far out,
/// and where the squares overflow) log|1 + z| (ComplexMath::logAbs), with
/// 1 + x exact near -1.
Value complexLog1p(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value onePlusX = m.add(m.c(1.0), x);
  auto [xHi, xLo] = c.exactSquare(x);
  auto [yHi, yLo] = c.exactSquare(y);
  Value normMinusOne = c.compensatedSum({m.add(x, x), yHi, xHi, yLo, xLo});
  Value near = m.both(m.ge(normMinusOne, m.c(-0.5)),
                      m.le(normMinusOne, m.c(1.0)));
  Value re = m.sel(near, m.mul(m.c(0.5), m.log1p(normMinusOne)),
                   c.logAbs(onePlusX, y));
  return c.make(re, m.atan2(y, onePlusX));
}

/// expm1(x + iy) = (expm1(x) cos y - 2 sin^2(y / 2), e^x sin y); the
/// imaginary part is y itself for y = 0 (also at x = inf).
Value complexExpm1(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value halfSin = m.sin(m.mul(m.c(0.5), y));
  Value re = m.sub(m.mul(m.expm1(x), m.cos(y)),
                   m.mul(m.c(2.0), m.mul(halfSin, halfSin)));
  Value im = m.mul(m.exp(x), m.sin(y));
  return c.make(re, m.sel(m.eq(y, m.c(0.0)), y, im));
}

/// 1 / (1 + e^-z) in complex arithmetic, as jax defines it for complex z.
Value complexLogistic(Scalar &s, Value z) {
  ComplexMath c(s);
  Value one = c.constant(1.0, 0.0);
  Value e = complex::ExpOp::create(s.b, s.loc,
                                   complex::NegOp::create(s.b, s.loc, z));
  return complex::DivOp::create(s.b, s.loc, one,
                                complex::AddOp::create(s.b, s.loc, one, e));
}

/// (sin x cosh y, cos x sinh y); the real part is x itself for x = 0 (so
/// sin(iy) stays imaginary at y = inf).
Value complexSin(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value re = m.mul(m.sin(x), m.cosh(y));
  Value im = m.mul(m.cos(x), m.sinh(y));
  return c.make(m.sel(m.eq(x, m.c(0.0)), x, re), im);
}

/// (cos x cosh y, -sin x sinh y); the imaginary part is 0 for x = 0.
Value complexCos(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value re = m.mul(m.cos(x), m.cosh(y));
  Value im = m.neg(m.mul(m.sin(x), m.sinh(y)));
  return c.make(re, m.sel(m.eq(x, m.c(0.0)), m.c(0.0), im));
}

/// tan(z) = -i tanh(iz), with iz = -y + ix.
Value complexTan(Scalar &s, Value z) {
  ComplexMath c(s);
  Value x = c.re(z), y = c.im(z);
  auto [u, v] = c.tanhParts(c.m.neg(y), x);
  return c.make(v, c.m.neg(u));
}

Value complexTanh(Scalar &s, Value z) {
  ComplexMath c(s);
  Value x = c.re(z), y = c.im(z);
  return c.make(c.tanhParts(x, y));
}

/// (sinh x cos y, cosh x sin y); beyond |x| = 700 (80 in f32), e^|x| / 2
/// times cos y and sin y (ComplexMath::halfExpTimes). C99's special values
/// (as numpy): the real part is x for x = 0 and +inf for infinite x when y
/// is not finite, the imaginary part y for y = 0.
Value complexSinh(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x);
  Value cosY = m.cos(y), sinY = m.sin(y);
  Value big = m.ge(ax, m.c(expHalfThreshold(c)));
  Value h = m.exp(m.mul(m.c(0.5), ax));
  Value re = m.sel(big,
                   m.mul(m.copysign(m.c(1.0), x), c.halfExpTimes(h, cosY)),
                   m.mul(m.sinh(x), cosY));
  Value im = m.sel(big, c.halfExpTimes(h, sinY), m.mul(m.cosh(x), sinY));
  Value yNotFinite = m.isNotFinite(y);
  re = m.sel(m.both(m.eq(x, m.c(0.0)), yNotFinite), x, re);
  re = m.sel(m.both(m.isInf(x), yNotFinite), m.c(INFINITY), re);
  return c.make(re, m.sel(m.eq(y, m.c(0.0)), y, im));
}

/// (cosh x cos y, sinh x sin y), large |x| as in complexSinh. C99's
/// special values (as numpy): the real part is +inf for infinite x when y
/// is not finite, the imaginary part 0 for x = 0 when y is not finite and
/// y with x's sign for y = 0.
Value complexCosh(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x);
  Value cosY = m.cos(y), sinY = m.sin(y);
  Value xSign = m.copysign(m.c(1.0), x);
  Value big = m.ge(ax, m.c(expHalfThreshold(c)));
  Value h = m.exp(m.mul(m.c(0.5), ax));
  Value re = m.sel(big, c.halfExpTimes(h, cosY), m.mul(m.cosh(x), cosY));
  Value im = m.sel(big, m.mul(xSign, c.halfExpTimes(h, sinY)),
                   m.mul(m.sinh(x), sinY));
  Value yNotFinite = m.isNotFinite(y);
  re = m.sel(m.both(m.isInf(x), yNotFinite), m.c(INFINITY), re);
  im = m.sel(m.both(m.eq(x, m.c(0.0)), yNotFinite), m.c(0.0), im);
  return c.make(re, m.sel(m.eq(y, m.c(0.0)), m.mul(xSign, y), im));
}

/// (atan2(x, re w), +-im w with y's sign), w = asinAcosKernel(|x|, |y|);
/// y = -0 counts as positive (the upper side of the cuts), as in XLA.
Value complexAsin(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x), ay = m.abs(y);
  auto [wRe, wIm] = c.asinAcosKernel(ax, ay);
  Value re = m.atan2(x, wRe);
  Value im = m.sel(m.lt(y, m.c(0.0)), m.neg(wIm), wIm);
  return c.make(re, im);
}

/// (atan2(re w, x), -+im w against y's sign), w as in complexAsin.
Value complexAcos(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x), ay = m.abs(y);
  auto [wRe, wIm] = c.asinAcosKernel(ax, ay);
  Value re = m.atan2(wRe, x);
  Value im = m.sel(m.lt(y, m.c(0.0)), wIm, m.neg(wIm));
  return c.make(re, im);
}

/// asinh(z) = -i asin(iz): (+-im w with x's sign, atan2(y, re w)) with
/// w = asinAcosKernel(|y|, |x|); x = -0 counts as positive.
Value complexAsinh(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x), ay = m.abs(y);
  auto [wRe, wIm] = c.asinAcosKernel(ay, ax);
  Value re = m.sel(m.lt(x, m.c(0.0)), m.neg(wIm), wIm);
  Value im = m.atan2(y, wRe);
  return c.make(re, im);
}

/// acosh(z) = +-i acos(z) by y's sign: (im w, +-atan2(re w, x)), w as in
/// complexAsin.
Value complexAcosh(Scalar &s, Value z) {
  ComplexMath c(s);
  FloatMath &m = c.m;
  Value x = c.re(z), y = c.im(z);
  Value ax = m.abs(x), ay = m.abs(y);
  auto [wRe, wIm] = c.asinAcosKernel(ax, ay);
  Value angle = m.atan2(wRe, x);
  return c.make(wIm, m.sel(m.lt(y, m.c(0.0)), m.neg(angle), angle));
}

Value complexAtanh(Scalar &s, Value z) {
  ComplexMath c(s);
  Value x = c.re(z), y = c.im(z);
  return c.make(c.atanhParts(x, y));
}

/// atan(z) = -i atanh(iz), with iz = -y + ix.
Value complexAtan(Scalar &s, Value z) {
  ComplexMath c(s);
  Value x = c.re(z), y = c.im(z);
  auto [u, v] = c.atanhParts(c.m.neg(y), x);
  Value im = c.m.neg(u);
  return c.make(v, im);
}

} // namespace numlir::hlo_to_linalg
