//===- HLOOps.cpp - verifiers of hlo ops ----------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace numlir::hlo;

LogicalResult IotaOp::verify() { return success(); }
LogicalResult CompareOp::verify() { return success(); }
LogicalResult SelectOp::verify() { return success(); }
LogicalResult ConvertOp::verify() { return success(); }
LogicalResult BroadcastInDimOp::verify() { return success(); }
LogicalResult ReshapeOp::verify() { return success(); }
LogicalResult TransposeOp::verify() { return success(); }
LogicalResult ReduceOp::verify() { return success(); }
LogicalResult DotGeneralOp::verify() { return success(); }

#define GET_OP_CLASSES
#include "numlir/Dialect/HLO/IR/HLOOps.cpp.inc"
