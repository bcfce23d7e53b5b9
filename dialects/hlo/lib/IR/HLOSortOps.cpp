//===- HLOSortOps.cpp - type inference and verifier of hlo.sort -----------===//

#include "HLOFormatting.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

using namespace mlir;
using namespace numlir::hlo;

LogicalResult SortOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}

LogicalResult SortOp::verify() {
  ValueRange inputs = getInputs();
  if (inputs.empty())
    return emitOpError("needs at least one operand");
  auto firstType = cast<RankedTensorType>(inputs[0].getType());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(input.getType()).getShape();
    if (shape != firstType.getShape())
      return emitOpError("operand #")
             << i + 1 << " shape " << listString(shape)
             << " must equal operand #0 shape "
             << listString(firstType.getShape());
  }
  int64_t rank = firstType.getRank();
  if (rank == 0)
    return emitOpError("operands must have rank at least 1, got ")
           << firstType;
  int64_t dim = getDimension();
  if (dim < 0 || dim >= rank)
    return emitOpError("sort dimension ")
           << dim << " is out of range for operands of rank " << rank;
  int64_t numKeys = getNumKeys();
  if (numKeys < 1 || numKeys > static_cast<int64_t>(inputs.size()))
    return emitOpError("num_keys ")
           << numKeys << " must be between 1 and the number of operands, "
           << inputs.size();
  return success();
}
