//===- CustomCallToCall.cpp - hlo.custom_call to a call on buffers --------===//
//
// A library routine reads and writes dense row-major buffers, as a host
// callback does, so the lowering is the same: each operand is copied into a
// fresh buffer (whatever layout bufferization gives it), each result gets a
// fresh buffer, and the op becomes a call of a private declaration
//
//   func.func private @__numlir_library_call_0(memref<8x4x4xf32>,
//                                              memref<8x4x4xf32>)
//       attributes {numlir.library_routine = "lapack.potrf",
//                   numlir.library_config = array<i64>,
//                   numlir.library_operands = 1 : i64}
//
// taking the operand buffers, then the result buffers. Calls with the same
// routine, config and buffer types share one declaration.
// cpu-emit-c-entry-point gives it its body (docs/runtime.md#library-calls).
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Conversion/LibraryCalls.h"
#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
namespace hlo = numlir::hlo;
namespace calls = numlir::library_calls;

namespace {

func::FuncOp libraryDeclaration(ModuleOp module, hlo::CustomCallOp op,
                                FunctionType type, OpBuilder &b) {
  StringAttr routine = op.getCallTargetNameAttr();
  DenseI64ArrayAttr config = op.getConfigAttr();
  int64_t index = 0;
  for (auto existing : module.getOps<func::FuncOp>()) {
    if (!existing->hasAttr(calls::kRoutineAttr))
      continue;
    ++index;
    if (existing.getFunctionType() == type &&
        existing->getAttr(calls::kRoutineAttr) == routine &&
        existing->getAttr(calls::kConfigAttr) == config)
      return existing;
  }
  std::string name;
  do {
    name = "__numlir_library_call_" + std::to_string(index++);
  } while (module.lookupSymbol(name));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
  decl.setPrivate();
  decl->setAttr(calls::kRoutineAttr, routine);
  decl->setAttr(calls::kConfigAttr, config);
  decl->setAttr(calls::kOperandsAttr,
                b.getI64IntegerAttr(op.getNumOperands()));
  return decl;
}

struct CustomCallToCall : OpConversionPattern<hlo::CustomCallOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::CustomCallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a module");
    return numlir::hlo_to_linalg::replaceWithCallOnFreshBuffers(
        op, adaptor.getOperands(), getTypeConverter(), rewriter,
        [&](FunctionType type) {
          return libraryDeclaration(module, op, type, rewriter);
        });
  }
};

} // namespace

void numlir::hlo_to_linalg::populateCustomCallPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<CustomCallToCall>(converter, patterns.getContext());
}
