//===- SlicingToLinalg.cpp - lowering of hlo Slicing ops ------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;

void numlir::hlo_to_linalg::populateSlicingPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {}
