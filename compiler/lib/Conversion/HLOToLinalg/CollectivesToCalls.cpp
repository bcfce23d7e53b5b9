//===- CollectivesToCalls.cpp - hlo collectives to calls on buffers -------===//
//
// The replicas of an SPMD module meet in the runtime, which exchanges dense
// buffers, so a collective leaves tensors here, as a host callback does: the
// operand is copied into a fresh buffer, the result gets one, and the op
// becomes a call of a private declaration of its own
//
//   func.func private @__numlir_collective_0(memref<8xf32>, memref<8xf32>)
//       attributes {numlir.collective = 0 : i64, numlir.collective_op = 0 : i64,
//                   numlir.collective_kind = 0 : i64, numlir.collective_dtype = 2 : i64,
//                   numlir.replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
//
// whose attributes are the record cpu-emit-c-entry-point writes into the
// executable's collective table (CollectiveCalls.h). Each op gets its own
// declaration, at the op's location, so the runtime's messages name the line
// a replica stopped at. A call has unknown effects: nothing after this pass
// removes or reorders it.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Conversion/CollectiveCalls.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
namespace hlo = numlir::hlo;
namespace calls = numlir::collective_calls;

namespace {

/// The number of collective declarations the module has so far: the next
/// record's index.
int64_t nextRecordIndex(ModuleOp module) {
  int64_t count = 0;
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr(calls::kIndexAttr))
      ++count;
  return count;
}

/// A new private declaration for one collective, carrying its record.
func::FuncOp declareCollective(ModuleOp module, Location loc,
                               calls::CollectiveOpCode code, int64_t kind,
                               int64_t dtype, DenseIntElementsAttr groups,
                               FunctionType type, OpBuilder &b) {
  int64_t index = nextRecordIndex(module);
  std::string name = "__numlir_collective_" + std::to_string(index);
  for (int suffix = 1; module.lookupSymbol(name); ++suffix)
    name = "__numlir_collective_" + std::to_string(index) + "_" +
           std::to_string(suffix);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto decl = func::FuncOp::create(b, loc, name, type);
  decl.setPrivate();
  decl->setAttr(calls::kIndexAttr, b.getI64IntegerAttr(index));
  decl->setAttr(calls::kOpAttr,
                b.getI64IntegerAttr(static_cast<int64_t>(code)));
  decl->setAttr(calls::kKindAttr, b.getI64IntegerAttr(kind));
  decl->setAttr(calls::kDTypeAttr, b.getI64IntegerAttr(dtype));
  if (groups)
    decl->setAttr(calls::kGroupsAttr, groups);
  return decl;
}

/// A fresh buffer for a result of hlo type `type`, and the tensor type the
/// converted result has.
std::pair<Value, RankedTensorType>
resultBuffer(const TypeConverter *converter, Type type, Location loc,
             OpBuilder &b) {
  RankedTensorType converted =
      numlir::hlo_to_linalg::convertedTensorType(converter, type);
  if (!converted)
    return {Value(), converted};
  auto memrefType =
      MemRefType::get(converted.getShape(), converted.getElementType());
  return {memref::AllocOp::create(b, loc, memrefType), converted};
}

Value asTensor(OpBuilder &b, Location loc, RankedTensorType type,
               Value buffer) {
  return bufferization::ToTensorOp::create(b, loc, type, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

struct AllReduceToCall : OpConversionPattern<hlo::AllReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::AllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    std::optional<int64_t> dtype =
        calls::runtimeDTypeCode(op.getType().getElementType());
    if (!module || !dtype)
      return rewriter.notifyMatchFailure(op, "no module or no runtime dtype");
    Location loc = op.getLoc();
    Value operand = numlir::hlo_to_linalg::copyIntoFreshBuffer(
        rewriter, loc, adaptor.getOperand());
    auto [result, resultType] =
        resultBuffer(getTypeConverter(), op.getType(), loc, rewriter);
    if (!result)
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    func::FuncOp callee = declareCollective(
        module, loc, calls::CollectiveOpCode::AllReduce,
        static_cast<int64_t>(op.getKind()), *dtype, op.getReplicaGroups(),
        rewriter.getFunctionType({operand.getType(), result.getType()}, {}),
        rewriter);
    func::CallOp::create(rewriter, loc, callee, ValueRange{operand, result});
    rewriter.replaceOp(op, asTensor(rewriter, loc, resultType, result));
    return success();
  }
};

struct ReplicaIdToCall : OpConversionPattern<hlo::ReplicaIdOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ReplicaIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a module");
    Location loc = op.getLoc();
    auto [result, resultType] =
        resultBuffer(getTypeConverter(), op.getType(), loc, rewriter);
    if (!result)
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    func::FuncOp callee = declareCollective(
        module, loc, calls::CollectiveOpCode::ReplicaId, /*kind=*/-1,
        *calls::runtimeDTypeCode(op.getType().getElementType()),
        DenseIntElementsAttr(),
        rewriter.getFunctionType({result.getType()}, {}), rewriter);
    func::CallOp::create(rewriter, loc, callee, ValueRange{result});
    rewriter.replaceOp(op, asTensor(rewriter, loc, resultType, result));
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateCollectivePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AllReduceToCall, ReplicaIdToCall>(converter,
                                                 patterns.getContext());
}
