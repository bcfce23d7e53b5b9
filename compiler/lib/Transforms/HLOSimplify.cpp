//===- HLOSimplify.cpp - algebraic simplification of hlo ops --------------===//
//
// The patterns of the hlo-simplify pass (see its description in Passes.td).
// The greedy driver also runs the ops' folders, so constants fold and
// no-op reshapes, transposes and broadcasts disappear in the same sweep.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace numlir {
#define GEN_PASS_DEF_HLOSIMPLIFY
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo;

/// Unsigned integers and i1 hold no sign bit.
static bool isUnsignedLikeInt(Type type) {
  return type.isUnsignedInteger() || type.isInteger(1);
}

/// The splat constant that defines `value`, or null.
static DenseElementsAttr getSplatConstant(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return nullptr;
  return attr;
}

static bool isIntSplat(Value value, uint64_t expected) {
  DenseElementsAttr attr = getSplatConstant(value);
  return attr && isa<IntegerType>(attr.getElementType()) &&
         attr.getSplatValue<APInt>() ==
             APInt(attr.getElementType().getIntOrFloatBitWidth(), expected);
}

/// Matches a float splat equal to `expected`, telling -0.0 from +0.0.
static bool isFloatSplat(Value value, double expected) {
  DenseElementsAttr attr = getSplatConstant(value);
  if (!attr || !isa<FloatType>(attr.getElementType()))
    return false;
  APFloat splat = attr.getSplatValue<APFloat>();
  bool losesInfo;
  APFloat want(expected);
  want.convert(splat.getSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  return splat.bitwiseIsEqual(want);
}

static bool isZeroForAdd(Value value) {
  // x + (+0.0) is -0.0 + 0.0 = +0.0 for x = -0.0, so only -0.0 is neutral.
  return isIntSplat(value, 0) || isFloatSplat(value, -0.0);
}

static bool isZeroForSubtract(Value value) {
  return isIntSplat(value, 0) || isFloatSplat(value, 0.0);
}

static bool isOne(Value value) {
  return isIntSplat(value, 1) || isFloatSplat(value, 1.0);
}

/// Replaces `op` by `value` if it is non-null.
static LogicalResult replaceIf(Operation *op, Value value,
                               PatternRewriter &rewriter) {
  if (!value)
    return failure();
  rewriter.replaceOp(op, value);
  return success();
}

static LogicalResult simplifyAdd(AddOp op, PatternRewriter &rewriter) {
  Value x = isZeroForAdd(op.getRhs())   ? op.getLhs()
            : isZeroForAdd(op.getLhs()) ? op.getRhs()
                                        : Value();
  return replaceIf(op, x, rewriter);
}

static LogicalResult simplifySubtract(SubtractOp op,
                                      PatternRewriter &rewriter) {
  Value x = isZeroForSubtract(op.getRhs()) ? op.getLhs() : Value();
  return replaceIf(op, x, rewriter);
}

static LogicalResult simplifyMultiply(MultiplyOp op,
                                      PatternRewriter &rewriter) {
  Value x = isOne(op.getRhs())   ? op.getLhs()
            : isOne(op.getLhs()) ? op.getRhs()
                                 : Value();
  return replaceIf(op, x, rewriter);
}

static LogicalResult simplifyDivide(DivideOp op, PatternRewriter &rewriter) {
  Value x = isOne(op.getRhs()) ? op.getLhs() : Value();
  return replaceIf(op, x, rewriter);
}

/// negate(negate(x)) -> x, also for integers (negation wraps both times).
static LogicalResult simplifyNegate(NegateOp op, PatternRewriter &rewriter) {
  auto inner = op.getOperand().getDefiningOp<NegateOp>();
  if (!inner)
    return failure();
  rewriter.replaceOp(op, inner.getOperand());
  return success();
}

/// reshape(reshape(x)) -> reshape(x); the reshape folder removes it if the
/// result has x's type.
static LogicalResult simplifyReshape(ReshapeOp op, PatternRewriter &rewriter) {
  auto inner = op.getOperand().getDefiningOp<ReshapeOp>();
  if (!inner)
    return failure();
  rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getOperand());
  return success();
}

/// transpose(transpose(x, inner), outer) -> transpose(x, composed): result
/// dim i is the inner result's dim outer[i], which is x's dim
/// inner[outer[i]].
static LogicalResult simplifyTranspose(TransposeOp op,
                                       PatternRewriter &rewriter) {
  auto inner = op.getOperand().getDefiningOp<TransposeOp>();
  if (!inner)
    return failure();
  SmallVector<int64_t> composed;
  for (int64_t dim : op.getPermutation())
    composed.push_back(inner.getPermutation()[dim]);
  rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(),
                                           inner.getOperand(), composed);
  return success();
}

/// Whether `dims` are the last dimensions of a rank-`rank` operand, in any
/// order.
static bool areTrailing(ArrayRef<int64_t> dims, int64_t rank) {
  return llvm::all_of(dims, [&](int64_t dim) {
    return dim >= rank - static_cast<int64_t>(dims.size());
  });
}

/// How well a contraction's operands suit a register-tiled product: the lhs
/// read along its contracting dimensions and the rhs along its free ones
/// (a plain `a @ b` scores 2, `a^T @ b` and `a @ b^T` 1, `a^T @ b^T` 0).
static int layoutScore(Value lhs, ArrayRef<int64_t> lhsContracting, Value rhs,
                       ArrayRef<int64_t> rhsBatch, ArrayRef<int64_t> rhsContracting) {
  int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
  SmallVector<int64_t> rhsFree;
  for (int64_t dim = 0; dim < rhsRank; ++dim)
    if (!llvm::is_contained(rhsBatch, dim) && !llvm::is_contained(rhsContracting, dim))
      rhsFree.push_back(dim);
  return areTrailing(lhsContracting, cast<RankedTensorType>(lhs.getType()).getRank()) +
         areTrailing(rhsFree, rhsRank);
}

/// transpose(dot_general(a, b)) -> dot_general(b, a) where the transpose
/// only swaps the two operands' free dimensions (the result is [batch...,
/// a's free..., b's free...]) and the dot has no other use: a weight
/// gradient `(dy^T x)^T` becomes `x^T dy`, and the transposed copy, which an
/// elementwise consumer would read with a stride, disappears. Products and
/// sums commute, and each element sums the same products in the same order,
/// so the values are the same. Kept where the swapped operands would be
/// read against their layouts more than now (`(a @ b)^T` as `b^T @ a^T`).
static LogicalResult simplifyTransposeOfDot(TransposeOp op,
                                            PatternRewriter &rewriter) {
  auto dot = op.getOperand().getDefiningOp<DotGeneralOp>();
  if (!dot || !dot->hasOneUse())
    return failure();
  auto lhsType = cast<RankedTensorType>(dot.getLhs().getType());
  int64_t batches = dot.getLhsBatchingDimensions().size();
  int64_t lhsFree = lhsType.getRank() - batches -
                    static_cast<int64_t>(dot.getLhsContractingDimensions().size());
  int64_t rank = cast<RankedTensorType>(dot.getType()).getRank();
  SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, batches));
  llvm::append_range(swap, llvm::seq<int64_t>(batches + lhsFree, rank));
  llvm::append_range(swap, llvm::seq<int64_t>(batches, batches + lhsFree));
  if (!llvm::equal(op.getPermutation(), swap) ||
      llvm::equal(swap, llvm::seq<int64_t>(0, rank)))
    return failure();
  int before = layoutScore(dot.getLhs(), dot.getLhsContractingDimensions(),
                           dot.getRhs(), dot.getRhsBatchingDimensions(),
                           dot.getRhsContractingDimensions());
  int after = layoutScore(dot.getRhs(), dot.getRhsContractingDimensions(),
                          dot.getLhs(), dot.getLhsBatchingDimensions(),
                          dot.getLhsContractingDimensions());
  if (after < before)
    return failure();
  rewriter.replaceOpWithNewOp<DotGeneralOp>(
      op, op.getType(), dot.getRhs(), dot.getLhs(),
      dot.getRhsBatchingDimensions(), dot.getLhsBatchingDimensions(),
      dot.getRhsContractingDimensions(), dot.getLhsContractingDimensions());
  return success();
}

/// broadcast_in_dim(broadcast_in_dim(x, inner), outer) -> one broadcast:
/// x's dim i lands in the result's dim outer[inner[i]].
static LogicalResult simplifyBroadcast(BroadcastInDimOp op,
                                       PatternRewriter &rewriter) {
  auto inner = op.getOperand().getDefiningOp<BroadcastInDimOp>();
  if (!inner)
    return failure();
  SmallVector<int64_t> composed;
  for (int64_t dim : inner.getBroadcastDimensions())
    composed.push_back(op.getBroadcastDimensions()[dim]);
  rewriter.replaceOpWithNewOp<BroadcastInDimOp>(
      op, op.getType(), inner.getOperand(), composed);
  return success();
}

/// The number of bits an element type represents exactly: an integer type's
/// value bits, a float type's significand bits.
static int64_t exactBits(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getFPMantissaWidth();
  return type.getIntOrFloatBitWidth() - (isUnsignedLikeInt(type) ? 0 : 1);
}

/// True if converting from `from` to `to` preserves every value, so that
/// converting back gives the original value. A real value converts to a
/// complex one as its real part, so that is lossless when converting to the
/// part type is; complex to anything else drops parts.
static bool isLosslessConversion(Type from, Type to) {
  if (isa<ComplexType>(from)) {
    auto toComplex = dyn_cast<ComplexType>(to);
    return toComplex && isLosslessConversion(
                            cast<ComplexType>(from).getElementType(),
                            toComplex.getElementType());
  }
  if (auto toComplex = dyn_cast<ComplexType>(to))
    to = toComplex.getElementType();
  if (from.isInteger(1))
    return true;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat)
    return APFloat::isRepresentableBy(fromFloat.getFloatSemantics(),
                                      toFloat.getFloatSemantics());
  if (fromFloat || to.isInteger(1))
    return false;
  // An integer: signed values need a signed or float destination.
  if (!isUnsignedLikeInt(from) && !toFloat && isUnsignedLikeInt(to))
    return false;
  return exactBits(to) >= exactBits(from);
}

/// convert(convert(x)) -> x when the inner conversion loses nothing and the
/// outer one converts back to x's type.
static LogicalResult simplifyConvert(ConvertOp op, PatternRewriter &rewriter) {
  auto inner = op.getOperand().getDefiningOp<ConvertOp>();
  if (!inner || inner.getOperand().getType() != op.getType())
    return failure();
  if (!isLosslessConversion(inner.getOperand().getType().getElementType(),
                            inner.getType().getElementType()))
    return failure();
  rewriter.replaceOp(op, inner.getOperand());
  return success();
}

/// select(splat constant, a, b) -> a or b; select(p, x, x) -> x.
static LogicalResult simplifySelect(SelectOp op, PatternRewriter &rewriter) {
  if (op.getOnTrue() == op.getOnFalse())
    return replaceIf(op, op.getOnTrue(), rewriter);
  DenseElementsAttr pred = getSplatConstant(op.getPred());
  if (!pred)
    return failure();
  return replaceIf(
      op, pred.getSplatValue<bool>() ? op.getOnTrue() : op.getOnFalse(),
      rewriter);
}

/// compare(x, x) for integers is known from the direction alone (floats are
/// not: NaN compares unequal to itself).
static LogicalResult simplifyCompare(CompareOp op, PatternRewriter &rewriter) {
  if (op.getLhs() != op.getRhs() ||
      !isa<IntegerType>(op.getLhs().getType().getElementType()))
    return failure();
  ComparisonDirection direction = op.getComparisonDirection();
  bool result = direction == ComparisonDirection::EQ ||
                direction == ComparisonDirection::LE ||
                direction == ComparisonDirection::GE;
  rewriter.replaceOpWithNewOp<ConstantOp>(
      op, DenseElementsAttr::get(op.getType(), result));
  return success();
}

namespace {
struct HLOSimplifyPass : numlir::impl::HLOSimplifyBase<HLOSimplifyPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add(simplifyAdd);
    patterns.add(simplifySubtract);
    patterns.add(simplifyMultiply);
    patterns.add(simplifyDivide);
    patterns.add(simplifyNegate);
    patterns.add(simplifyReshape);
    patterns.add(simplifyTranspose);
    patterns.add(simplifyTransposeOfDot);
    patterns.add(simplifyBroadcast);
    patterns.add(simplifyConvert);
    patterns.add(simplifySelect);
    patterns.add(simplifyCompare);
    // Like canonicalize, a sweep that hits the iteration limit still leaves
    // valid IR, so it is not an error.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
