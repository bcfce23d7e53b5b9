//===- HLOBarrierOps.cpp - syntax and verifier of hlo.optimization_barrier ===//

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace numlir::hlo;

// hlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>
// The results have the operands' types, so those are spelled once. Without
// operands the op is `hlo.optimization_barrier()`: a bare name would take the
// next line's `%x = ...` for its operands.
ParseResult OptimizationBarrierOp::parse(OpAsmParser &parser,
                                         OperationState &result) {
  if (succeeded(parser.parseOptionalLParen()))
    return failure(parser.parseRParen() ||
                   parser.parseOptionalAttrDict(result.attributes));
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> types;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonTypeList(types) ||
      parser.resolveOperands(operands, types, loc, result.operands))
    return failure();
  result.addTypes(types);
  return success();
}

void OptimizationBarrierOp::print(OpAsmPrinter &p) {
  if (getOperands().empty())
    p << "()";
  else
    p << ' ' << getOperands();
  p.printOptionalAttrDict((*this)->getAttrs());
  if (!getOperands().empty())
    p << " : " << getOperands().getTypes();
}

LogicalResult OptimizationBarrierOp::verify() {
  if (getNumResults() != getNumOperands())
    return emitOpError("has ")
           << getNumOperands() << " operands but " << getNumResults()
           << " results; it returns each operand";
  for (auto [i, types] : llvm::enumerate(
           llvm::zip_equal(getOperands().getTypes(), getResultTypes()))) {
    auto [operand, result] = types;
    if (operand != result)
      return emitOpError("result #")
             << i << " has type " << result << ", but operand #" << i
             << " has type " << operand;
  }
  return success();
}
