//===- AllocationSites.cpp - the runtime's out-of-memory sites ------------===//

#include "numlir/Bufferization/AllocationSites.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

std::string numlir::userLocation(Location loc, ModuleOp module) {
  StringRef textBuffer;
  if (auto file = dyn_cast<FileLineColLoc>(module.getLoc()))
    textBuffer = file.getFilename();
  std::string found;
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColLoc>(inner);
    if (!file || file.getFilename() == textBuffer)
      return WalkResult::advance();
    found = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
             ":" + Twine(file.getColumn()))
                .str();
    return WalkResult::interrupt();
  });
  return found;
}

std::optional<int64_t> numlir::staticAllocationBytes(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> bytes = numlir::hlo::elementBytes(type.getElementType());
  for (int64_t extent : type.getShape())
    if (bytes)
      bytes = llvm::checkedMul(*bytes, extent);
  return bytes;
}

void numlir::appendAllocationSites(ModuleOp module, ArrayRef<std::string> lines) {
  if (lines.empty())
    return;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (!global.getSymName().ends_with(kAllocationSitesSuffix))
      continue;
    auto value = dyn_cast_or_null<StringAttr>(global.getValueOrNull());
    if (!value)
      return;
    std::string sites = value.getValue().str();
    if (!sites.empty() && sites.back() == '\0')
      sites.pop_back();
    for (const std::string &line : lines)
      sites += (sites.empty() ? "" : "\n") + line;
    sites.push_back('\0');
    OpBuilder b(global);
    global.setValueAttr(b.getStringAttr(sites));
    global.setGlobalType(LLVM::LLVMArrayType::get(b.getI8Type(), sites.size()));
    return;
  }
}
