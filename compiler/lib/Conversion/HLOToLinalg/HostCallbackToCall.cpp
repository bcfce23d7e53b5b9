//===- HostCallbackToCall.cpp - hlo.host_callback to a call on buffers ----===//
//
// A host callback reads and writes dense buffers, so its lowering already
// leaves tensors: each operand is copied into a fresh buffer
// (bufferization.materialize_in_destination, so the callback always sees a
// dense row-major array whatever layout bufferization gives the operand),
// each result gets a fresh buffer, and the op becomes a call of a private
// declaration
//
//   func.func private @__numlir_host_callback_3(memref<4xf32>, memref<2xf64>)
//       attributes {numlir.host_callback_id = 3 : i64,
//                   numlir.host_callback_operands = 1 : i64}
//
// that takes the operand buffers, then the result buffers. The results are
// the result buffers as tensors. A call has unknown effects, so nothing after
// this pass removes or reorders it. cpu-emit-c-entry-point gives the
// declaration its body: a call through the runtime's host callback slot
// (docs/runtime.md#host-callbacks).
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
namespace hlo = numlir::hlo;

namespace {

/// The private declaration a host callback with this id and these buffer
/// types calls; an existing one is reused.
func::FuncOp callbackDeclaration(ModuleOp module, int64_t id,
                                 FunctionType type, int64_t numOperands,
                                 OpBuilder &b) {
  std::string base = "__numlir_host_callback_" + std::to_string(id);
  std::string name = base;
  for (int suffix = 1;; ++suffix) {
    auto existing = module.lookupSymbol<func::FuncOp>(name);
    if (!existing)
      break;
    if (existing.getFunctionType() == type && existing.isDeclaration())
      return existing;
    name = base + "_" + std::to_string(suffix);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
  decl.setPrivate();
  decl->setAttr("numlir.host_callback_id", b.getI64IntegerAttr(id));
  decl->setAttr("numlir.host_callback_operands",
                b.getI64IntegerAttr(numOperands));
  return decl;
}

struct HostCallbackToCall : OpConversionPattern<hlo::HostCallbackOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::HostCallbackOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a module");
    return numlir::hlo_to_linalg::replaceWithCallOnFreshBuffers(
        op, adaptor.getOperands(), getTypeConverter(), rewriter,
        [&](FunctionType type) {
          return callbackDeclaration(module, op.getCallbackId(), type,
                                     op.getNumOperands(), rewriter);
        });
  }
};

} // namespace

Value numlir::hlo_to_linalg::copyIntoFreshBuffer(OpBuilder &b, Location loc,
                                                 Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = memref::AllocOp::create(b, loc, memrefType);
  auto copy =
      bufferization::MaterializeInDestinationOp::create(b, loc, tensor, buffer);
  copy.setRestrict(true);
  copy.setWritable(true);
  return buffer;
}

LogicalResult numlir::hlo_to_linalg::replaceWithCallOnFreshBuffers(
    Operation *op, ValueRange operands, const TypeConverter *converter,
    ConversionPatternRewriter &rewriter,
    function_ref<func::FuncOp(FunctionType)> declare) {
  Location loc = op->getLoc();
  SmallVector<Value> buffers;
  SmallVector<Type> bufferTypes;
  for (Value operand : operands) {
    Value buffer = copyIntoFreshBuffer(rewriter, loc, operand);
    buffers.push_back(buffer);
    bufferTypes.push_back(buffer.getType());
  }
  SmallVector<Value> resultBuffers;
  SmallVector<RankedTensorType> resultTypes;
  for (Type result : op->getResultTypes()) {
    RankedTensorType type = convertedTensorType(converter, result);
    if (!type)
      return rewriter.notifyMatchFailure(op, "unconvertible result type");
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = memref::AllocOp::create(rewriter, loc, memrefType);
    buffers.push_back(buffer);
    bufferTypes.push_back(memrefType);
    resultBuffers.push_back(buffer);
    resultTypes.push_back(type);
  }
  func::FuncOp callee = declare(rewriter.getFunctionType(bufferTypes, {}));
  func::CallOp::create(rewriter, loc, callee, buffers);
  SmallVector<Value> results;
  for (auto [buffer, type] : llvm::zip_equal(resultBuffers, resultTypes))
    results.push_back(bufferization::ToTensorOp::create(
        rewriter, loc, type, buffer, /*restrict=*/true, /*writable=*/true));
  rewriter.replaceOp(op, results);
  return success();
}

void numlir::hlo_to_linalg::populateHostCallbackPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<HostCallbackToCall>(converter, patterns.getContext());
}
