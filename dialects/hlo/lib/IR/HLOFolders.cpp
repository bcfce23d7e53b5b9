//===- HLOFolders.cpp - constant folding of hlo ops -----------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo;

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult NegateOp::fold(FoldAdaptor) { return {}; }
OpFoldResult AbsOp::fold(FoldAdaptor) { return {}; }
OpFoldResult SignOp::fold(FoldAdaptor) { return {}; }
OpFoldResult ExpOp::fold(FoldAdaptor) { return {}; }
OpFoldResult LogOp::fold(FoldAdaptor) { return {}; }
OpFoldResult TanhOp::fold(FoldAdaptor) { return {}; }
OpFoldResult LogisticOp::fold(FoldAdaptor) { return {}; }
OpFoldResult SqrtOp::fold(FoldAdaptor) { return {}; }
OpFoldResult RsqrtOp::fold(FoldAdaptor) { return {}; }
OpFoldResult SinOp::fold(FoldAdaptor) { return {}; }
OpFoldResult CosOp::fold(FoldAdaptor) { return {}; }
OpFoldResult FloorOp::fold(FoldAdaptor) { return {}; }
OpFoldResult CeilOp::fold(FoldAdaptor) { return {}; }
OpFoldResult NotOp::fold(FoldAdaptor) { return {}; }
OpFoldResult AddOp::fold(FoldAdaptor) { return {}; }
OpFoldResult SubtractOp::fold(FoldAdaptor) { return {}; }
OpFoldResult MultiplyOp::fold(FoldAdaptor) { return {}; }
OpFoldResult DivideOp::fold(FoldAdaptor) { return {}; }
OpFoldResult RemainderOp::fold(FoldAdaptor) { return {}; }
OpFoldResult MaximumOp::fold(FoldAdaptor) { return {}; }
OpFoldResult MinimumOp::fold(FoldAdaptor) { return {}; }
OpFoldResult PowerOp::fold(FoldAdaptor) { return {}; }
OpFoldResult AndOp::fold(FoldAdaptor) { return {}; }
OpFoldResult OrOp::fold(FoldAdaptor) { return {}; }
OpFoldResult XorOp::fold(FoldAdaptor) { return {}; }
OpFoldResult CompareOp::fold(FoldAdaptor) { return {}; }
OpFoldResult SelectOp::fold(FoldAdaptor) { return {}; }
OpFoldResult ConvertOp::fold(FoldAdaptor) { return {}; }
OpFoldResult BroadcastInDimOp::fold(FoldAdaptor) { return {}; }
OpFoldResult ReshapeOp::fold(FoldAdaptor) { return {}; }
OpFoldResult TransposeOp::fold(FoldAdaptor) { return {}; }
OpFoldResult ReduceOp::fold(FoldAdaptor) { return {}; }
