//===- Lowerings.h - shared pieces of hlo-to-linalg -------------*- C++ -*-===//
//
// Internal to convert-hlo-to-linalg: the signless type converter, the
// builders every op family uses, and one populate function per op family.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_CONVERSION_HLOTOLINALG_LOWERINGS_H
#define NUMLIR_LIB_CONVERSION_HLOTOLINALG_LOWERINGS_H

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace numlir::hlo_to_linalg {

/// Maps unsigned integer types (scalar or tensor element) to the signless
/// type of the same width, which is all arith and linalg accept; every
/// other type is legal as is. Patterns read signedness from the original
/// hlo op, never from converted values.
class SignlessTypeConverter : public mlir::TypeConverter {
public:
  SignlessTypeConverter();
};

/// The signless form of an hlo op's tensor type `type`; every pattern asks
/// the converter for its result type through this.
mlir::RankedTensorType convertedTensorType(const mlir::TypeConverter *converter,
                                           mlir::Type type);

/// An integer or float scalar constant of the (signless) type `type`.
mlir::Value intConstant(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type type, const llvm::APInt &value);
mlir::Value intConstant(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type type, int64_t value);
mlir::Value floatConstant(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type type, double value);
/// A `complex.constant` (re, im) of the complex type `type`.
mlir::Value complexConstant(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Type type, double re, double im);
/// Zero of the (signless) scalar type `type`: integer, float or complex.
mlir::Value zeroConstant(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type type);

/// `tensor.empty` of `type`'s shape and element type.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type);

/// Builds the body of one elementwise generic: scalar arguments in, the
/// scalar result out.
using ScalarBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// A `linalg.generic` with identity maps and parallel iterators over
/// `inputs` (all shaped like `resultType`, possibly none) into a fresh
/// `tensor.empty`; `body` computes one element.
mlir::Value buildElementwiseGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::RankedTensorType resultType,
                                    mlir::ValueRange inputs, ScalarBodyFn body);

/// The hlo reduction combiners, shared by hlo.reduce and hlo.reduce_window.
/// On i1, sum and max are `or`, prod and min are `and`.
numlir::hlo::ReduceKind boolReduceKind(numlir::hlo::ReduceKind kind);
/// What a reduce or reduce_window lowering starts from: the converted
/// result type, the original (possibly unsigned) element type and the
/// combiner that runs on it.
struct ReductionParts {
  mlir::RankedTensorType resultType;
  mlir::Type element;
  numlir::hlo::ReduceKind kind;
};
/// ReductionParts of `op`, an hlo.reduce or hlo.reduce_window of kind
/// `kind` over the (unconverted) `operand`; the combiner is boolReduceKind
/// on i1, and a bitwise kind on floats is a match failure.
mlir::FailureOr<ReductionParts>
matchReduction(mlir::Operation *op, mlir::Value operand,
               numlir::hlo::ReduceKind kind,
               const mlir::TypeConverter *converter,
               mlir::ConversionPatternRewriter &rewriter);
/// The shared start of the hlo.reduce and hlo.reduce_window lowerings: the
/// op's ReductionParts (matchReduction), then `rewrite`.
template <typename OpT>
struct ReductionLowering : mlir::OpConversionPattern<OpT> {
  using mlir::OpConversionPattern<OpT>::OpConversionPattern;
  using Adaptor = typename OpT::Adaptor;

  mlir::LogicalResult
  matchAndRewrite(OpT op, Adaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    mlir::FailureOr<ReductionParts> parts =
        matchReduction(op, op.getOperand(), op.getKind(),
                       this->getTypeConverter(), rewriter);
    if (mlir::failed(parts))
      return mlir::failure();
    return rewrite(op, adaptor, *parts, rewriter);
  }

  virtual mlir::LogicalResult
  rewrite(OpT op, Adaptor adaptor, const ReductionParts &parts,
          mlir::ConversionPatternRewriter &rewriter) const = 0;
};
/// The identity of `kind` on `element` (the original, possibly unsigned,
/// element type), as a constant of the signless `type`.
mlir::Value reduceIdentity(mlir::OpBuilder &b, mlir::Location loc,
                           numlir::hlo::ReduceKind kind, mlir::Type element,
                           mlir::Type type);
/// Combines the accumulator with one element; floats propagate NaN; complex
/// values only sum or multiply.
mlir::Value reduceCombine(mlir::OpBuilder &b, mlir::Location loc,
                          numlir::hlo::ReduceKind kind, mlir::Type element,
                          mlir::Value x, mlir::Value acc);

void populateElementwisePatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateCompareSelectConvertPatterns(const mlir::TypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);
void populateConstantPatterns(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns);
void populateShapeOpPatterns(const mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
void populateReductionPatterns(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateDotGeneralPatterns(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
void populateSlicingPatterns(const mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
void populateWindowPatterns(const mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateControlFlowPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
void populateSortPatterns(const mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);
/// hlo.host_callback becomes a call of a private declaration on copies of
/// its operands and fresh result buffers (HostCallbackToCall.cpp).
void populateHostCallbackPatterns(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
/// hlo.custom_call becomes a call of a private declaration on copies of its
/// operands and fresh result buffers, which cpu-emit-c-entry-point routes to
/// the runtime's library slot (CustomCallToCall.cpp).
void populateCustomCallPatterns(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
/// hlo.all_reduce and hlo.replica_id become calls of private declarations
/// that cpu-emit-c-entry-point routes to the runtime's collective slot
/// (CollectivesToCalls.cpp).
void populateCollectivePatterns(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);
/// A fresh dense row-major buffer holding `tensor`'s value, for a call that
/// reads raw memory (host callbacks, collectives).
mlir::Value copyIntoFreshBuffer(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value tensor);
/// Replaces `op` by a call of the declaration `declare` gives for the
/// buffers' function type, on fresh copies of `operands` and fresh buffers
/// for `op`'s results (converted by `converter`), which become the op's
/// results as tensors: the lowering of host callbacks and library calls.
mlir::LogicalResult replaceWithCallOnFreshBuffers(
    mlir::Operation *op, mlir::ValueRange operands,
    const mlir::TypeConverter *converter,
    mlir::ConversionPatternRewriter &rewriter,
    llvm::function_ref<mlir::func::FuncOp(mlir::FunctionType)> declare);
/// Keeps hlo.optimization_barrier legal (once its types are signless), the
/// one hlo op that outlives the conversion.
void populateOptimizationBarrierPatterns(const mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns,
                                         mlir::ConversionTarget &target);

} // namespace numlir::hlo_to_linalg

#endif // NUMLIR_LIB_CONVERSION_HLOTOLINALG_LOWERINGS_H
