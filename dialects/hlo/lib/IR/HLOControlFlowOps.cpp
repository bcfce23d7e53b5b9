//===- HLOControlFlowOps.cpp - syntax and verifiers of while, if, case ----===//
//
// The region verifiers name the region, the position and both types of a
// mismatch, so a frontend that builds a region for the wrong carried values
// is easy to debug. See docs/hlo-dialect.md#control-flow.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "HLOVerification.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace numlir::hlo;

/// The hlo.return ending `region`, or an error naming `regionName`.
static FailureOr<ReturnOp> getReturn(Operation *op, Region &region,
                                     const Twine &regionName) {
  auto ret = dyn_cast<ReturnOp>(region.front().getTerminator());
  if (!ret)
    return op->emitOpError() << regionName << " must end with hlo.return";
  return ret;
}

LogicalResult numlir::hlo::verifyRegionReturns(Operation *op, Region &region,
                                               const Twine &name,
                                               TypeRange types) {
  FailureOr<ReturnOp> ret = getReturn(op, region, name);
  if (failed(ret))
    return failure();
  TypeRange returned = ret->getResults().getTypes();
  if (returned.size() != types.size())
    return op->emitOpError() << name << " returns " << returned.size()
                             << " values, but the op has " << types.size()
                             << " results";
  for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(returned, types))) {
    auto [got, expected] = pair;
    if (got != expected)
      return op->emitOpError()
             << name << " result #" << i << " has type " << got
             << ", but the op's result #" << i << " has type " << expected;
  }
  return success();
}

/// Checks that `region` takes no arguments and returns `types`.
static LogicalResult verifyBranch(Operation *op, Region &region,
                                  const Twine &name, TypeRange types) {
  if (region.getNumArguments() != 0)
    return op->emitOpError() << name << " must take no arguments, got "
                             << region.getNumArguments();
  return verifyRegionReturns(op, region, name, types);
}

//===----------------------------------------------------------------------===//
// WhileOp
//===----------------------------------------------------------------------===//

// hlo.while (%a = %x, %b = %y) : tensor<i32>, tensor<4xf32> cond {...} do {...}
// The region arguments of both regions are named in the header.
ParseResult WhileOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> types;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAssignmentList(args, operands))
    return failure();
  if (!args.empty() && parser.parseColonTypeList(types))
    return failure();
  if (types.size() != args.size())
    return parser.emitError(loc) << "expected " << args.size()
                                 << " types, one per carried value, got "
                                 << types.size();
  for (auto [arg, type] : llvm::zip_equal(args, types))
    arg.type = type;
  if (parser.resolveOperands(operands, types, loc, result.operands))
    return failure();
  result.addTypes(types);
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *cond = result.addRegion();
  Region *body = result.addRegion();
  if (parser.parseKeyword("cond") || parser.parseRegion(*cond, args) ||
      parser.parseKeyword("do") || parser.parseRegion(*body, args))
    return failure();
  return success();
}

void WhileOp::print(OpAsmPrinter &p) {
  Block::BlockArgListType args = getCond().getArguments();
  p << " (";
  llvm::interleaveComma(llvm::zip(args, getOperands()), p, [&](auto pair) {
    p << std::get<0>(pair) << " = " << std::get<1>(pair);
  });
  p << ")";
  if (!getOperands().empty())
    p << " : " << getOperands().getTypes();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  p << " cond ";
  p.printRegion(getCond(), /*printEntryBlockArgs=*/false);
  p << " do ";
  if (getBody().getNumArguments() == args.size())
    p.shadowRegionArgs(getBody(), args);
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult WhileOp::verify() {
  if (getNumOperands() != getNumResults())
    return emitOpError("has ") << getNumOperands() << " operands but "
                               << getNumResults()
                               << " results; they must be the carried values";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip_equal(getOperands().getTypes(), getResultTypes()))) {
    auto [operand, result] = pair;
    if (operand != result)
      return emitOpError("result #")
             << i << " has type " << result << ", but operand #" << i
             << " has type " << operand;
  }
  return success();
}

/// Checks that `region` takes one argument per carried value, of its type.
static LogicalResult verifyCarriedArgs(WhileOp op, Region &region,
                                       StringRef name) {
  TypeRange types = op.getOperands().getTypes();
  if (region.getNumArguments() != types.size())
    return op.emitOpError()
           << name << " region must take " << types.size()
           << " arguments, one per operand, got " << region.getNumArguments();
  for (auto [i, arg] : llvm::enumerate(region.getArguments()))
    if (arg.getType() != types[i])
      return op.emitOpError()
             << name << " region argument #" << i << " has type "
             << arg.getType() << ", but operand #" << i << " has type "
             << types[i];
  return success();
}

LogicalResult WhileOp::verifyRegions() {
  if (failed(verifyCarriedArgs(*this, getCond(), "cond")) ||
      failed(verifyCarriedArgs(*this, getBody(), "body")))
    return failure();

  FailureOr<ReturnOp> condReturn = getReturn(*this, getCond(), "cond region");
  if (failed(condReturn))
    return failure();
  TypeRange condTypes = condReturn->getResults().getTypes();
  auto pred = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (condTypes.size() != 1 || condTypes[0] != pred) {
    InFlightDiagnostic diag =
        emitOpError("cond region must return one tensor<i1>, got ");
    if (condTypes.empty())
      diag << "no values";
    else
      diag << "(" << condTypes << ")";
    return diag;
  }

  FailureOr<ReturnOp> bodyReturn = getReturn(*this, getBody(), "body region");
  if (failed(bodyReturn))
    return failure();
  TypeRange bodyTypes = bodyReturn->getResults().getTypes();
  TypeRange types = getOperands().getTypes();
  if (bodyTypes.size() != types.size())
    return emitOpError("body region must return ")
           << types.size() << " values, one per operand, got "
           << bodyTypes.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip_equal(bodyTypes, types))) {
    auto [got, expected] = pair;
    if (got != expected)
      return emitOpError("body region result #")
             << i << " has type " << got << ", but operand #" << i
             << " has type " << expected;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// IfOp and CaseOp
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verifyRegions() {
  if (failed(verifyBranch(*this, getThenBranch(), "then_branch",
                          getResultTypes())))
    return failure();
  return verifyBranch(*this, getElseBranch(), "else_branch", getResultTypes());
}

LogicalResult CaseOp::verifyRegions() {
  if (getBranches().empty())
    return emitOpError("must have at least one branch");
  for (auto [i, region] : llvm::enumerate(getBranches()))
    if (failed(verifyBranch(*this, region, "branch #" + Twine(i),
                            getResultTypes())))
      return failure();
  return success();
}
