//===- HLOHostCallbackOps.cpp - verifier and effects of hlo.host_callback -===//

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo;

LogicalResult HostCallbackOp::verify() {
  int64_t id = getCallbackIdAttr().getInt();
  if (id < 0)
    return emitOpError("callback id ") << id << " is negative; ids count from 0";
  if (getNumResults() == 0 && !getHasSideEffect())
    return emitOpError("has no results and no side effect, so it does "
                       "nothing; add `has_side_effect` or drop the op");
  return success();
}

void HostCallbackOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!getHasSideEffect())
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}
