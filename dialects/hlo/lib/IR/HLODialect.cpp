//===- HLODialect.cpp - registration of the hlo dialect -------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

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
