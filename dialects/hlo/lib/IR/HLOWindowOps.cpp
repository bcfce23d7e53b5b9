//===- HLOWindowOps.cpp - verifiers and folders of Window ops ---------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo;
