//===- HLOToLinalg.cpp - lowering of hlo ops to linalg on tensors ---------===//

#include "numlir/Conversion/Passes.h"
#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace numlir {
#define GEN_PASS_DEF_CONVERTHLOTOLINALG
#include "numlir/Conversion/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct ConvertHLOToLinalgPass
    : numlir::impl::ConvertHLOToLinalgBase<ConvertHLOToLinalgPass> {
  void runOnOperation() override {}
};
} // namespace
