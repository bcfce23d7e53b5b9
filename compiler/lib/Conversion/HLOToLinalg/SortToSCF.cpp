//===- SortToSCF.cpp - lowering of hlo Sort ops ------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;

void numlir::hlo_to_linalg::populateSortPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {}
