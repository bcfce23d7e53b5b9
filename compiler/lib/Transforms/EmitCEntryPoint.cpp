//===- EmitCEntryPoint.cpp - the runtime's `void entry(void **)` ABI ------===//
//
// The runtime calls every CPU executable through one C signature, so that it
// never needs to know MLIR's memref descriptor layout. This pass builds that
// wrapper while the IR is still at the memref level, where the shapes are
// known; the descriptors it builds fold away in the LLVM lowering.
//
//===----------------------------------------------------------------------===//

#include "numlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace numlir {
#define GEN_PASS_DEF_EMITCENTRYPOINT
#define GEN_PASS_DEF_RECORDABISIGNATURE
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {

/// Spells an element type the way the runtime's signature parser expects.
std::string elementTypeName(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.getWidth() == 1)
      return "i1";
    return (intType.isUnsigned() ? "ui" : "i") +
           std::to_string(intType.getWidth());
  }
  return "";
}

std::string describeBuffer(ShapedType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << elementTypeName(type.getElementType()) << "[";
  llvm::interleave(type.getShape(), os, ",");
  os << "]";
  return text;
}

/// Builds the LLVM struct of a memref descriptor for a dense row-major
/// buffer at `pointer`, and casts it to `type`.
Value wrapPointerInMemRef(OpBuilder &b, Location loc, Value pointer,
                          MemRefType type) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  int64_t rank = type.getRank();
  SmallVector<Type> fields = {ptr, ptr, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto descriptorType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value descriptor = LLVM::PoisonOp::create(b, loc, descriptorType);
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, pointer, ArrayRef<int64_t>{0});
  descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, pointer, ArrayRef<int64_t>{1});
  descriptor =
      LLVM::InsertValueOp::create(b, loc, descriptor, constant(0),
                                           ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    descriptor = LLVM::InsertValueOp::create(
        b, loc, descriptor, constant(type.getDimSize(d)),
        ArrayRef<int64_t>{3, d});
    descriptor = LLVM::InsertValueOp::create(
        b, loc, descriptor, constant(stride), ArrayRef<int64_t>{4, d});
    stride *= type.getDimSize(d);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, descriptor)
      .getResult(0);
}

/// The signature with signedness erased, as the memref level sees it.
std::string signless(StringRef signature) {
  std::string text = signature.str();
  size_t pos = 0;
  while ((pos = text.find("ui", pos)) != std::string::npos)
    text.erase(pos, 1);
  return text;
}

struct RecordABISignaturePass
    : numlir::impl::RecordABISignatureBase<RecordABISignaturePass> {
  using Base::Base;

  void runOnOperation() override {
    auto func = getOperation().lookupSymbol<func::FuncOp>(function);
    if (!func) {
      getOperation().emitError()
          << "numlir-record-abi-signature: no function @" << function;
      return signalPassFailure();
    }
    auto describeAll = [&](TypeRange types, std::string &out) {
      SmallVector<std::string> parts;
      for (Type type : types) {
        auto shaped = dyn_cast<RankedTensorType>(type);
        if (!shaped || !shaped.hasStaticShape() ||
            elementTypeName(shaped.getElementType()).empty()) {
          func.emitError() << "numlir-record-abi-signature: " << type
                           << " is not a static tensor of a supported type";
          return failure();
        }
        parts.push_back(describeBuffer(shaped));
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

struct EmitCEntryPointPass
    : numlir::impl::EmitCEntryPointBase<EmitCEntryPointPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto callee = module.lookupSymbol<func::FuncOp>(function);
    if (!callee) {
      module.emitError() << "numlir-emit-c-entry-point: no function @"
                         << function << " to wrap";
      return signalPassFailure();
    }
    if (module.lookupSymbol(entry)) {
      module.emitError() << "numlir-emit-c-entry-point: symbol @" << entry
                         << " already exists";
      return signalPassFailure();
    }
    FunctionType calleeType = callee.getFunctionType();
    if (calleeType.getNumResults() != 0) {
      callee.emitError() << "numlir-emit-c-entry-point: @" << function
                         << " still returns values; run "
                            "buffer-results-to-out-params first";
      return signalPassFailure();
    }

    SmallVector<std::string> inputs, outputs;
    for (auto [index, argType] : llvm::enumerate(calleeType.getInputs())) {
      auto memrefType = dyn_cast<MemRefType>(argType);
      if (!memrefType || !memrefType.hasStaticShape() ||
          !memrefType.getLayout().isIdentity() ||
          elementTypeName(memrefType.getElementType()).empty()) {
        callee.emitError() << "numlir-emit-c-entry-point: argument #"
                           << index << " of type " << argType
                           << " is not a static, identity-layout memref of "
                              "a supported element type";
        return signalPassFailure();
      }
      bool isOutput = static_cast<bool>(
          callee.getArgAttr(index, "bufferize.result"));
      if (!isOutput && !outputs.empty()) {
        callee.emitError() << "numlir-emit-c-entry-point: input argument #"
                           << index << " follows an output buffer";
        return signalPassFailure();
      }
      (isOutput ? outputs : inputs).push_back(describeBuffer(memrefType));
    }

    MLIRContext *ctx = &getContext();
    Location loc = callee.getLoc();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    Type ptr = LLVM::LLVMPointerType::get(ctx);

    // The signature string, NUL-terminated, exported next to the entry.
    std::string signature = llvm::join(inputs, ";") + "->" +
                            llvm::join(outputs, ";");
    if (auto recorded =
            callee->getAttrOfType<StringAttr>("numlir.abi_signature")) {
      if (signless(recorded.getValue()) != signless(signature)) {
        callee.emitError() << "numlir-emit-c-entry-point: recorded signature '"
                           << recorded.getValue()
                           << "' does not match the buffers '" << signature
                           << "'";
        return signalPassFailure();
      }
      signature = recorded.getValue().str();
    }
    signature.push_back('\0');
    auto stringType =
        LLVM::LLVMArrayType::get(b.getI8Type(), signature.size());
    LLVM::GlobalOp::create(b, loc, stringType, /*isConstant=*/true,
                           LLVM::Linkage::External, entry + "_signature",
                           b.getStringAttr(signature));

    auto entryFunc = func::FuncOp::create(
        b, loc, entry, FunctionType::get(ctx, {ptr}, {}));
    Block *body = entryFunc.addEntryBlock();
    b.setInsertionPointToStart(body);
    Value buffers = body->getArgument(0);
    SmallVector<Value> args;
    for (auto [index, argType] : llvm::enumerate(calleeType.getInputs())) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, buffers,
                                       ArrayRef<LLVM::GEPArg>{
                                           static_cast<int32_t>(index)});
      Value pointer = LLVM::LoadOp::create(b, loc, ptr, slot);
      args.push_back(
          wrapPointerInMemRef(b, loc, pointer, cast<MemRefType>(argType)));
    }
    func::CallOp::create(b, loc, callee, args);
    func::ReturnOp::create(b, loc);

    // Only the entry is exported; the wrapped function may be inlined.
    callee.setPrivate();
    callee->setAttr("llvm.linkage",
                    LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
  }
};

} // namespace
