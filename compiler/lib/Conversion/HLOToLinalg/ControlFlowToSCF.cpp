//===- ControlFlowToSCF.cpp - lowering of hlo ControlFlow ops ------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;

void numlir::hlo_to_linalg::populateControlFlowPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {}
