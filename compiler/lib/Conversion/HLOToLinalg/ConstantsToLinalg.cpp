//===- ConstantsToLinalg.cpp - hlo.constant and hlo.iota ------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

/// An arith.constant of the same attribute; unsigned dense attributes are
/// reinterpreted bit for bit as signless.
struct ConstantLowering : OpConversionPattern<hlo::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    auto value = cast<TypedAttr>(op.getValue());
    if (value.getType() != resultType) {
      auto dense = dyn_cast<DenseElementsAttr>(value);
      if (!dense)
        return rewriter.notifyMatchFailure(
            op, "unsigned constants must be dense elements attributes");
      value = dense.bitcast(getElementTypeOrSelf(resultType));
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

/// A generic with no inputs whose body casts `linalg.index` of the iota
/// dimension to the element type.
struct IotaLowering : OpConversionPattern<hlo::IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    int64_t dim = op.getIotaDimension();
    Value result = buildElementwiseGeneric(
        rewriter, op.getLoc(), resultType, /*inputs=*/{},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = linalg::IndexOp::create(b, loc, dim);
          Type element = resultType.getElementType();
          if (isa<IntegerType>(element))
            return arith::IndexCastUIOp::create(b, loc, element, index);
          Value i64 =
              arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
          return arith::UIToFPOp::create(b, loc, element, i64);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateConstantPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, IotaLowering>(converter,
                                               patterns.getContext());
}
