//===- HLOInlineFusions.cpp - hlo.fusion back into its ops ----------------===//
//
// The inverse of hlo-fusion, for backends (and tests) that compile ops one
// at a time: each fusion's body takes its place.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "numlir/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace numlir {
#define GEN_PASS_DEF_HLOINLINEFUSIONS
#include "numlir/Transforms/Passes.h.inc"
} // namespace numlir

using namespace mlir;
using namespace numlir::hlo;

namespace {

struct HLOInlineFusionsPass
    : numlir::impl::HLOInlineFusionsBase<HLOInlineFusionsPass> {
  void runOnOperation() override {
    SmallVector<FusionOp> fusions;
    getOperation()->walk([&](FusionOp fusion) { fusions.push_back(fusion); });
    for (FusionOp fusion : fusions) {
      OpBuilder builder(fusion);
      IRMapping mapping;
      mapping.map(fusion.getBody().getArguments(), fusion.getOperands());
      Block &body = fusion.getBody().front();
      for (Operation &op : body.without_terminator())
        builder.clone(op, mapping);
      for (auto [result, returned] : llvm::zip_equal(
               fusion.getResults(), body.getTerminator()->getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
      fusion.erase();
    }
  }
};

} // namespace
