//===- EntryPointSymbols.cpp - slots, tables and strings of an executable -===//
//
// See EntryPointSymbols.h.
//
//===----------------------------------------------------------------------===//

#include "EntryPointSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace numlir::cpu;

static LLVM::Linkage linkage(bool internal) {
  return internal ? LLVM::Linkage::Internal : LLVM::Linkage::External;
}

LLVM::GlobalOp entry_point::createSlot(OpBuilder &b, Location loc,
                                       StringRef name,
                                       LLVM::LLVMFunctionType type) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto missing = LLVM::LLVMFuncOp::create(b, loc, (name + "_missing").str(),
                                          type, LLVM::Linkage::Internal);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(missing.addEntryBlock(b));
    LLVM::ReturnOp::create(b, loc, ValueRange());
  }
  auto slot = LLVM::GlobalOp::create(b, loc, ptr, /*isConstant=*/false,
                                     LLVM::Linkage::External, name,
                                     Attribute());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(b.createBlock(&slot.getInitializerRegion()));
  LLVM::ReturnOp::create(b, loc,
                         LLVM::AddressOfOp::create(b, loc, missing).getResult());
  return slot;
}

Block *entry_point::defineInternally(func::FuncOp function, OpBuilder &b) {
  Block *body = function.addEntryBlock();
  function.setPrivate();
  function->setAttr("llvm.linkage", LLVM::LinkageAttr::get(
                                        b.getContext(), LLVM::Linkage::Internal));
  b.setInsertionPointToStart(body);
  return body;
}

Value entry_point::alignedPointer(OpBuilder &b, Location loc, Value buffer) {
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value integer = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(b, loc,
                                  LLVM::LLVMPointerType::get(b.getContext()),
                                  integer, LLVM::DereferenceableAttr());
}

LLVM::GlobalOp entry_point::createWordTable(OpBuilder &b, Location loc,
                                            StringRef name,
                                            ArrayRef<int64_t> values,
                                            bool internal) {
  auto type = LLVM::LLVMArrayType::get(b.getI64Type(), values.size());
  auto value = DenseIntElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(values.size())},
                            b.getI64Type()),
      values);
  return LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                linkage(internal), name, value);
}

LLVM::GlobalOp entry_point::createString(OpBuilder &b, Location loc,
                                         StringRef name, std::string text,
                                         bool internal) {
  text.push_back('\0');
  return LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), text.size()),
      /*isConstant=*/true, linkage(internal), name, b.getStringAttr(text));
}

static bool insideParallelRegion(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (parent->getName().getStringRef() == "scf.parallel" ||
        parent->getName().getDialectNamespace() == "omp")
      return true;
  return false;
}

LogicalResult entry_point::checkCallsOutsideParallelRegions(ModuleOp module,
                                                            StringRef attribute,
                                                            StringRef message) {
  for (auto owner : module.getOps<func::FuncOp>()) {
    WalkResult walk = owner.walk([&](func::CallOp site) {
      auto callee = module.lookupSymbol<func::FuncOp>(site.getCallee());
      if (callee && callee->hasAttr(attribute) && insideParallelRegion(site)) {
        site.emitError() << "cpu-emit-c-entry-point: " << message;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}
