//===- HLOSortOps.cpp - verifiers and folders of Sort ops ---------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo;
