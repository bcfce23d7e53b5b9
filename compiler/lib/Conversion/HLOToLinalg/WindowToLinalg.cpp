//===- WindowToLinalg.cpp - lowering of hlo Window ops ------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;

void numlir::hlo_to_linalg::populateWindowPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {}
