//===- HLOSimplify.cpp - algebraic simplification of hlo ops --------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace numlir {
#define GEN_PASS_DEF_HLOSIMPLIFY
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;

namespace {
struct HLOSimplifyPass : numlir::impl::HLOSimplifyBase<HLOSimplifyPass> {
  void runOnOperation() override {}
};
} // namespace
