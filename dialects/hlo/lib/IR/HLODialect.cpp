//===- HLODialect.cpp - registration of the hlo dialect -------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace numlir::hlo;

#include "numlir/Dialect/HLO/IR/HLODialect.cpp.inc"
#include "numlir/Dialect/HLO/IR/HLOEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "numlir/Dialect/HLO/IR/HLOAttrs.cpp.inc"

void HLODialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "numlir/Dialect/HLO/IR/HLOAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "numlir/Dialect/HLO/IR/HLOOps.cpp.inc"
      >();
}

Operation *HLODialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

std::optional<int64_t> numlir::hlo::elementBytes(Type type) {
  if (auto complexType = dyn_cast<ComplexType>(type)) {
    std::optional<int64_t> part = elementBytes(complexType.getElementType());
    return part ? std::optional<int64_t>(2 * *part) : std::nullopt;
  }
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return std::nullopt;
}

/// The bytes a tensor of `type` holds with zero dims counted as 1, or
/// nullopt if that overflows int64.
static std::optional<int64_t> boundedByteSize(RankedTensorType type) {
  std::optional<int64_t> bytes =
      elementBytes(type.getElementType()).value_or(1);
  for (int64_t size : type.getShape())
    if (bytes && size > 0)
      bytes = llvm::checkedMul<int64_t>(*bytes, size);
  return bytes;
}

LogicalResult numlir::hlo::verifyBoundedTensorSizes(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned i) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || boundedByteSize(tensor))
      return success();
    return op->emitOpError()
           << what << " #" << i << " of type " << type
           << " is larger than 2^63 - 1 bytes, the most a tensor may hold";
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}
