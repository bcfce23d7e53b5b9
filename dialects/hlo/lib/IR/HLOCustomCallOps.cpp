//===- HLOCustomCallOps.cpp - the targets hlo.custom_call may name --------===//
//
// Each target is a routine with a fixed contract, so the verifier checks it
// here, where a hand-written or corrupted module fails with a message, and
// never in the runtime, where a wrong shape would be a wild write. The
// runtime checks the same facts again from the call's buffer descriptor
// (docs/runtime.md#library-calls).
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace numlir::hlo;

namespace {

using Verifier = LogicalResult (*)(CustomCallOp);

bool isLinalgElement(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    type = complex.getElementType();
  return type.isF32() || type.isF64();
}

RankedTensorType tensorAt(TypeRange types, unsigned index) {
  return cast<RankedTensorType>(types[index]);
}

LogicalResult expectCounts(CustomCallOp op, unsigned operands, unsigned results,
                           size_t config) {
  if (op.getNumOperands() != operands || op.getNumResults() != results)
    return op.emitOpError() << "'" << op.getCallTargetName() << "' takes "
                            << operands << " operand(s) and gives " << results
                            << " result(s), got " << op.getNumOperands()
                            << " and " << op.getNumResults();
  if (op.getConfig().size() != config)
    return op.emitOpError() << "'" << op.getCallTargetName() << "' takes "
                            << config << " config value(s), got "
                            << op.getConfig().size();
  return success();
}

/// A batch of matrices (rank >= 2) of f32, f64, complex<f32> or complex<f64>.
LogicalResult expectMatrices(CustomCallOp op, RankedTensorType type,
                             StringRef role) {
  if (type.getRank() < 2 || !isLinalgElement(type.getElementType()))
    return op.emitOpError() << role
                            << " must be a batch of f32, f64 or complex "
                               "matrices (rank >= 2), got "
                            << type;
  return success();
}

LogicalResult expectType(CustomCallOp op, Type got, Type expected,
                         StringRef role) {
  if (got != expected)
    return op.emitOpError() << role << " must be " << expected << ", got "
                            << got;
  return success();
}

LogicalResult verifyPotrf(CustomCallOp op) {
  if (failed(expectCounts(op, 1, 1, 0)))
    return failure();
  RankedTensorType a = tensorAt(op.getOperandTypes(), 0);
  if (failed(expectMatrices(op, a, "operand")))
    return failure();
  if (a.getDimSize(a.getRank() - 1) != a.getDimSize(a.getRank() - 2))
    return op.emitOpError() << "operand must hold square matrices, got " << a;
  return expectType(op, op.getResult(0).getType(), a, "result");
}

LogicalResult verifyGetrf(CustomCallOp op) {
  if (failed(expectCounts(op, 1, 3, 0)))
    return failure();
  RankedTensorType a = tensorAt(op.getOperandTypes(), 0);
  if (failed(expectMatrices(op, a, "operand")))
    return failure();
  int64_t rank = a.getRank(), m = a.getDimSize(rank - 2),
          n = a.getDimSize(rank - 1);
  SmallVector<int64_t> batch(a.getShape().drop_back(2));
  auto vector = [&](int64_t length) {
    SmallVector<int64_t> shape(batch);
    shape.push_back(length);
    return RankedTensorType::get(shape,
                                 IntegerType::get(op.getContext(), 32));
  };
  if (failed(expectType(op, op.getResult(0).getType(), a, "result #0 (lu)")) ||
      failed(expectType(op, op.getResult(1).getType(),
                        vector(std::min(m, n)), "result #1 (pivots)")) ||
      failed(expectType(op, op.getResult(2).getType(), vector(m),
                        "result #2 (permutation)")))
    return failure();
  return success();
}

/// config: left_side, lower, transpose (0 none, 1 transpose, 2 adjoint),
/// unit_diagonal.
LogicalResult verifyTrsm(CustomCallOp op) {
  if (failed(expectCounts(op, 2, 1, 4)))
    return failure();
  ArrayRef<int64_t> config = op.getConfig();
  if (config[0] < 0 || config[0] > 1 || config[1] < 0 || config[1] > 1 ||
      config[2] < 0 || config[2] > 2 || config[3] < 0 || config[3] > 1)
    return op.emitOpError()
           << "'lapack.trsm' config is [left_side (0/1), lower (0/1), "
              "transpose (0 none, 1 transpose, 2 adjoint), unit_diagonal "
              "(0/1)], got ["
           << config << "]";
  RankedTensorType a = tensorAt(op.getOperandTypes(), 0);
  RankedTensorType b = tensorAt(op.getOperandTypes(), 1);
  if (failed(expectMatrices(op, a, "operand #0 (a)")) ||
      failed(expectMatrices(op, b, "operand #1 (b)")))
    return failure();
  if (a.getElementType() != b.getElementType())
    return op.emitOpError() << "a and b element types must be equal, got "
                            << a.getElementType() << " and "
                            << b.getElementType();
  int64_t rank = a.getRank();
  int64_t m = a.getDimSize(rank - 1);
  if (a.getDimSize(rank - 2) != m)
    return op.emitOpError() << "a must hold square matrices, got " << a;
  if (b.getRank() != rank ||
      a.getShape().drop_back(2) != b.getShape().drop_back(2))
    return op.emitOpError() << "a and b must have the same batch dimensions, "
                               "got "
                            << a << " and " << b;
  int64_t solved = b.getDimSize(rank - (config[0] ? 2 : 1));
  if (solved != m)
    return op.emitOpError() << "b's " << (config[0] ? "rows" : "columns")
                            << " (" << solved << ") must match a's order ("
                            << m << ")";
  return expectType(op, op.getResult(0).getType(), b, "result");
}

/// The element type of `type` if real, its part type if complex.
Type realPart(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    return complex.getElementType();
  return type;
}

/// `a`'s batch dimensions followed by `trailing`, of element type `element`.
RankedTensorType batched(RankedTensorType a, ArrayRef<int64_t> trailing,
                         Type element) {
  SmallVector<int64_t> shape(a.getShape().drop_back(2));
  llvm::append_range(shape, trailing);
  return RankedTensorType::get(shape, element);
}

/// The operand of a one-operand routine on batches of matrices, square
/// when `square`; null after a diagnostic.
RankedTensorType matrixOperand(CustomCallOp op, bool square) {
  RankedTensorType a = tensorAt(op.getOperandTypes(), 0);
  if (failed(expectMatrices(op, a, "operand")))
    return nullptr;
  if (square && a.getDimSize(a.getRank() - 1) != a.getDimSize(a.getRank() - 2)) {
    op.emitOpError() << "operand must hold square matrices, got " << a;
    return nullptr;
  }
  return a;
}

LogicalResult expectFlags(CustomCallOp op, StringRef names) {
  for (int64_t value : op.getConfig())
    if (value != 0 && value != 1)
      return op.emitOpError() << "'" << op.getCallTargetName()
                              << "' config is [" << names
                              << "], each 0 or 1, got [" << op.getConfig()
                              << "]";
  return success();
}

/// Householder QR: the reflectors below the diagonal with R on and above
/// it, and the reflectors' scales.
LogicalResult verifyGeqrf(CustomCallOp op) {
  if (failed(expectCounts(op, 1, 2, 0)))
    return failure();
  RankedTensorType a = matrixOperand(op, /*square=*/false);
  if (!a)
    return failure();
  int64_t m = a.getDimSize(a.getRank() - 2), n = a.getDimSize(a.getRank() - 1);
  if (failed(expectType(op, op.getResult(0).getType(), a, "result #0")) ||
      failed(expectType(op, op.getResult(1).getType(),
                        batched(a, {std::min(m, n)}, a.getElementType()),
                        "result #1 (taus)")))
    return failure();
  return success();
}

/// The product of geqrf's reflectors: the first n columns of Q, m >= n >= k.
LogicalResult verifyOrgqr(CustomCallOp op) {
  if (failed(expectCounts(op, 2, 1, 0)))
    return failure();
  RankedTensorType a = matrixOperand(op, /*square=*/false);
  if (!a)
    return failure();
  RankedTensorType taus = tensorAt(op.getOperandTypes(), 1);
  int64_t m = a.getDimSize(a.getRank() - 2), n = a.getDimSize(a.getRank() - 1);
  int64_t k = taus.getRank() > 0 ? taus.getDimSize(taus.getRank() - 1) : -1;
  if (n > m || k < 0 || k > n ||
      taus != batched(a, {k}, a.getElementType()))
    return op.emitOpError() << "'lapack.orgqr' needs reflectors (..., m, n) "
                               "with m >= n and taus (..., k) with k <= n "
                               "of their type, got "
                            << a << " and " << taus;
  return expectType(op, op.getResult(0).getType(), a, "result");
}

/// Hermitian eigendecomposition: vectors (columns), ascending real values.
LogicalResult verifySyevd(CustomCallOp op) {
  if (failed(expectCounts(op, 1, 2, 1)) || failed(expectFlags(op, "lower")))
    return failure();
  RankedTensorType a = matrixOperand(op, /*square=*/true);
  if (!a)
    return failure();
  int64_t n = a.getDimSize(a.getRank() - 1);
  if (failed(expectType(op, op.getResult(0).getType(), a,
                        "result #0 (vectors)")) ||
      failed(expectType(op, op.getResult(1).getType(),
                        batched(a, {n}, realPart(a.getElementType())),
                        "result #1 (values)")))
    return failure();
  return success();
}

/// SVD: singular values (real, descending), then U and V^H when computed.
LogicalResult verifyGesdd(CustomCallOp op) {
  if (op.getConfig().size() != 2)
    return op.emitOpError() << "'lapack.gesdd' takes 2 config value(s), got "
                            << op.getConfig().size();
  bool full = op.getConfig()[0] == 1, vectors = op.getConfig()[1] == 1;
  if (failed(expectCounts(op, 1, vectors ? 3 : 1, 2)) ||
      failed(expectFlags(op, "full_matrices, compute_uv")))
    return failure();
  RankedTensorType a = matrixOperand(op, /*square=*/false);
  if (!a)
    return failure();
  int64_t m = a.getDimSize(a.getRank() - 2), n = a.getDimSize(a.getRank() - 1);
  int64_t k = std::min(m, n);
  Type element = a.getElementType();
  if (failed(expectType(op, op.getResult(0).getType(),
                        batched(a, {k}, realPart(element)), "result #0 (s)")))
    return failure();
  if (!vectors)
    return success();
  if (failed(expectType(op, op.getResult(1).getType(),
                        batched(a, {m, full ? m : k}, element),
                        "result #1 (u)")) ||
      failed(expectType(op, op.getResult(2).getType(),
                        batched(a, {full ? n : k, n}, element),
                        "result #2 (vh)")))
    return failure();
  return success();
}

/// General eigendecomposition: complex values, then the right vectors.
LogicalResult verifyGeev(CustomCallOp op) {
  if (op.getConfig().size() != 1)
    return op.emitOpError() << "'lapack.geev' takes 1 config value(s), got "
                            << op.getConfig().size();
  bool vectors = op.getConfig()[0] == 1;
  if (failed(expectCounts(op, 1, vectors ? 2 : 1, 1)) ||
      failed(expectFlags(op, "compute_right_vectors")))
    return failure();
  RankedTensorType a = matrixOperand(op, /*square=*/true);
  if (!a)
    return failure();
  int64_t n = a.getDimSize(a.getRank() - 1);
  Type complex = ComplexType::get(realPart(a.getElementType()));
  if (failed(expectType(op, op.getResult(0).getType(),
                        batched(a, {n}, complex), "result #0 (values)")))
    return failure();
  if (vectors && failed(expectType(op, op.getResult(1).getType(),
                                   batched(a, {n, n}, complex),
                                   "result #1 (vectors)")))
    return failure();
  return success();
}

/// Schur form: T (real quasi-triangular for real a) and the unitary Z.
LogicalResult verifyGees(CustomCallOp op) {
  if (failed(expectCounts(op, 1, 2, 0)))
    return failure();
  RankedTensorType a = matrixOperand(op, /*square=*/true);
  if (!a)
    return failure();
  if (failed(expectType(op, op.getResult(0).getType(), a, "result #0 (t)")) ||
      failed(expectType(op, op.getResult(1).getType(), a, "result #1 (z)")))
    return failure();
  return success();
}

/// config: fft_type (jax's FftType: 0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT), then
/// the 1 to 3 transform lengths.
LogicalResult verifyFft(CustomCallOp op) {
  ArrayRef<int64_t> config = op.getConfig();
  if (config.size() < 2 || config.size() > 4)
    return op.emitOpError() << "'numlir.fft' config is [fft_type, 1 to 3 "
                               "lengths], got "
                            << config.size() << " value(s)";
  if (failed(expectCounts(op, 1, 1, config.size())))
    return failure();
  int64_t type = config[0];
  ArrayRef<int64_t> lengths = config.drop_front();
  if (type < 0 || type > 3)
    return op.emitOpError() << "fft_type must be 0 (FFT), 1 (IFFT), 2 (RFFT) "
                               "or 3 (IRFFT), got "
                            << type;
  if (llvm::any_of(lengths, [](int64_t n) { return n < 1; }))
    return op.emitOpError() << "fft lengths must be positive, got ["
                            << lengths << "]";
  RankedTensorType x = tensorAt(op.getOperandTypes(), 0);
  auto rank = static_cast<int64_t>(lengths.size());
  if (x.getRank() < rank)
    return op.emitOpError() << "operand " << x << " has fewer than " << rank
                            << " dimensions";
  Type element = x.getElementType();
  auto complexElement = dyn_cast<ComplexType>(element);
  Type part = complexElement ? complexElement.getElementType() : element;
  if (!part.isF32() && !part.isF64())
    return op.emitOpError() << "operand must hold f32, f64 or complex "
                               "values, got "
                            << x;
  bool realInput = type == 2;
  if (realInput == static_cast<bool>(complexElement))
    return op.emitOpError() << (realInput ? "RFFT needs a real operand"
                                          : "FFT, IFFT and IRFFT need a "
                                            "complex operand")
                            << ", got " << x;
  SmallVector<int64_t> expected(lengths);
  if (type == 3)
    expected.back() = lengths.back() / 2 + 1;
  if (x.getShape().take_back(rank) != ArrayRef<int64_t>(expected))
    return op.emitOpError() << "operand's trailing dimensions must be ["
                            << ArrayRef<int64_t>(expected) << "], got " << x;
  SmallVector<int64_t> shape(x.getShape());
  Type resultElement = element;
  if (type == 2) {
    shape.back() = lengths.back() / 2 + 1;
    resultElement = ComplexType::get(part);
  } else if (type == 3) {
    shape.back() = lengths.back();
    resultElement = part;
  }
  return expectType(op, op.getResult(0).getType(),
                    RankedTensorType::get(shape, resultElement), "result");
}

Verifier verifierFor(StringRef target) {
  return llvm::StringSwitch<Verifier>(target)
      .Case("lapack.potrf", verifyPotrf)
      .Case("lapack.getrf", verifyGetrf)
      .Case("lapack.trsm", verifyTrsm)
      .Case("lapack.geqrf", verifyGeqrf)
      .Case("lapack.orgqr", verifyOrgqr)
      .Case("lapack.syevd", verifySyevd)
      .Case("lapack.gesdd", verifyGesdd)
      .Case("lapack.geev", verifyGeev)
      .Case("lapack.gees", verifyGees)
      .Case("numlir.fft", verifyFft)
      .Default(nullptr);
}

} // namespace

LogicalResult CustomCallOp::verify() {
  Verifier verifier = verifierFor(getCallTargetName());
  if (!verifier)
    return emitOpError() << "unknown call target '" << getCallTargetName()
                         << "'; the targets are lapack.potrf, lapack.getrf, "
                            "lapack.trsm, lapack.geqrf, lapack.orgqr, "
                            "lapack.syevd, lapack.gesdd, lapack.geev, "
                            "lapack.gees and numlir.fft";
  return verifier(*this);
}
