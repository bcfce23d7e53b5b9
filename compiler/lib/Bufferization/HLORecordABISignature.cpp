//===- HLORecordABISignature.cpp - the entry's tensor-level signature -----===//
//
// The signature is recorded before convert-hlo-to-linalg, while integer
// types still say whether they are unsigned; cpu-emit-c-entry-point exports
// it once the function works on memrefs.
//
//===----------------------------------------------------------------------===//

#include "numlir/Bufferization/ABISignature.h"

#include "numlir/Bufferization/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

namespace numlir {
#define GEN_PASS_DEF_HLORECORDABISIGNATURE
#include "numlir/Bufferization/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using numlir::abiBufferName;
using numlir::abiElementTypeName;

namespace {

struct HLORecordABISignaturePass
    : numlir::impl::HLORecordABISignatureBase<HLORecordABISignaturePass> {
  using Base::Base;

  void runOnOperation() override {
    auto func = getOperation().lookupSymbol<func::FuncOp>(function);
    if (!func) {
      getOperation().emitError()
          << "hlo-record-abi-signature: no function @" << function;
      return signalPassFailure();
    }
    auto describeAll = [&](TypeRange types, std::string &out) {
      SmallVector<std::string> parts;
      for (Type type : types) {
        auto shaped = dyn_cast<RankedTensorType>(type);
        if (!shaped || !shaped.hasStaticShape() ||
            abiElementTypeName(shaped.getElementType()).empty()) {
          func.emitError() << "hlo-record-abi-signature: " << type
                           << " is not a static tensor of a supported type";
          return failure();
        }
        parts.push_back(abiBufferName(shaped));
      }
      out = llvm::join(parts, ";");
      return success();
    };
    std::string inputs, outputs;
    if (failed(describeAll(func.getArgumentTypes(), inputs)) ||
        failed(describeAll(func.getResultTypes(), outputs)))
      return signalPassFailure();
    func->setAttr("numlir.abi_signature",
                  StringAttr::get(&getContext(), inputs + "->" + outputs));
    // The inputs are the caller's buffers (numlir arrays are immutable):
    // one-shot-bufferize must copy them before any in-place update.
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      func.setArgAttr(i, "bufferization.writable",
                      BoolAttr::get(&getContext(), false));
  }
};


} // namespace
