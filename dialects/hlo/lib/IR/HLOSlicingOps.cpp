//===- HLOSlicingOps.cpp - verifiers and folders of Slicing ops ---------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo;
