//===- ShapeOpsToLinalg.cpp - broadcast_in_dim, reshape, transpose --------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

/// A generic whose input map sends result dimension dims[i] to operand
/// dimension i, or the constant 0 where a size-1 operand dimension is
/// stretched.
struct BroadcastInDimLowering : OpConversionPattern<hlo::BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    auto operandType = cast<RankedTensorType>(adaptor.getOperand().getType());
    MLIRContext *ctx = getContext();
    SmallVector<AffineExpr> operandExprs;
    for (auto [operandDim, resultDim] :
         llvm::enumerate(op.getBroadcastDimensions())) {
      bool stretched = operandType.getDimSize(operandDim) == 1 &&
                       resultType.getDimSize(resultDim) != 1;
      operandExprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                       : getAffineDimExpr(resultDim, ctx));
    }
    int64_t rank = resultType.getRank();
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, operandExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = emptyTensor(rewriter, op.getLoc(), resultType);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{resultType}, ValueRange{adaptor.getOperand()},
        ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    return success();
  }
};

/// Reshapes that only merge or only split adjacent dimensions become one
/// collapse_shape or expand_shape; any other reshape collapses to rank 1
/// (rank 0 expands to rank 1) and expands from there.
struct ReshapeLowering : OpConversionPattern<hlo::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    Value operand = adaptor.getOperand();
    auto operandType = cast<RankedTensorType>(operand.getType());
    if (operandType == resultType) {
      rewriter.replaceOp(op, operand);
      return success();
    }
    Location loc = op.getLoc();
    int64_t operandRank = operandType.getRank();
    int64_t resultRank = resultType.getRank();
    if (operandRank > resultRank) {
      if (auto reassociation = getReassociationIndicesForCollapse(
              operandType.getShape(), resultType.getShape())) {
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
            op, resultType, operand, *reassociation);
        return success();
      }
    } else if (operandRank < resultRank) {
      if (auto reassociation = getReassociationIndicesForCollapse(
              resultType.getShape(), operandType.getShape())) {
        rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
            op, resultType, operand, *reassociation);
        return success();
      }
    }

    auto flatType = RankedTensorType::get({operandType.getNumElements()},
                                          operandType.getElementType());
    auto allDims = [](int64_t rank) {
      ReassociationIndices all;
      for (int64_t d = 0; d < rank; ++d)
        all.push_back(d);
      return SmallVector<ReassociationIndices>{all};
    };
    // A rank-0 tensor and a rank-1 one of one element relate by an empty
    // reassociation.
    Value flat = operand;
    if (operandRank == 0)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, operand,
                                           ArrayRef<ReassociationIndices>{});
    else if (operandRank > 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flatType, operand,
                                             allDims(operandRank));
    Value result = flat;
    if (resultRank == 0)
      result = tensor::CollapseShapeOp::create(
          rewriter, loc, resultType, flat, ArrayRef<ReassociationIndices>{});
    else if (resultRank > 1)
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, flat,
                                             allDims(resultRank));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<hlo::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), resultType);
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(), init, op.getPermutation());
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateShapeOpPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<BroadcastInDimLowering, ReshapeLowering, TransposeLowering>(
      converter, patterns.getContext());
}
