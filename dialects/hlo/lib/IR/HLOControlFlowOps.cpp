//===- HLOControlFlowOps.cpp - verifiers and folders of ControlFlow ops ---------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo;
