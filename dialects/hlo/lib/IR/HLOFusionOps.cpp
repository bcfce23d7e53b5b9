//===- HLOFusionOps.cpp - syntax and verifier of hlo.fusion ---------------===//
//
// The verifier checks the body against the operands and results, and the
// kind against what the body holds, so a fusion pass that groups the wrong
// ops is caught where it makes them. See docs/hlo-dialect.md#fusion.
//
//===----------------------------------------------------------------------===//

#include "numlir/Dialect/HLO/IR/HLO.h"
#include "HLOVerification.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace numlir::hlo;

// hlo.fusion input (%a = %x, %b = %y) : (tensor<4xf32>, tensor<4xf32>)
//     -> tensor<f32> attributes {...} { ... hlo.return %s : tensor<f32> }
// The body's arguments are named in the header, as hlo.while's are.
ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string kindName;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&kindName))
    return failure();
  std::optional<FusionKind> kind = symbolizeFusionKind(kindName);
  if (!kind)
    return parser.emitError(kindLoc)
           << "expected a fusion kind (loop, input or output), got '"
           << kindName << "'";
  result.addAttribute(getKindAttrName(result.name),
                      FusionKindAttr::get(parser.getContext(), *kind));

  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            if (parser.parseArgument(args.emplace_back()) ||
                parser.parseEqual() ||
                parser.parseOperand(operands.emplace_back()))
              return failure();
            return success();
          }))
    return failure();
  SMLoc typeLoc = parser.getCurrentLocation();
  FunctionType type;
  if (parser.parseColonType(type))
    return failure();
  if (type.getNumInputs() != args.size())
    return parser.emitError(typeLoc)
           << "expected " << args.size()
           << " operand types, one per body argument, got "
           << type.getNumInputs();
  for (auto [arg, argType] : llvm::zip_equal(args, type.getInputs()))
    arg.type = argType;
  if (parser.resolveOperands(operands, type.getInputs(), typeLoc,
                             result.operands))
    return failure();
  result.addTypes(type.getResults());
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return parser.parseRegion(*result.addRegion(), args);
}

void FusionOp::print(OpAsmPrinter &p) {
  p << ' ' << stringifyFusionKind(getKind()) << " (";
  llvm::interleaveComma(
      llvm::zip(getBody().getArguments(), getOperands()), p, [&](auto pair) {
        p << std::get<0>(pair) << " = " << std::get<1>(pair);
      });
  p << ") : ";
  p.printFunctionalType(getOperands().getTypes(), getResultTypes());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getKindAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult FusionOp::verifyRegions() {
  Region &body = getBody();
  if (body.getNumArguments() != getNumOperands())
    return emitOpError("body must take ")
           << getNumOperands() << " arguments, one per operand, got "
           << body.getNumArguments();
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    if (arg.getType() != getOperand(i).getType())
      return emitOpError("body argument #")
             << i << " has type " << arg.getType() << ", but operand #" << i
             << " has type " << getOperand(i).getType();
  if (getNumResults() == 0)
    return emitOpError("must return at least one value");
  if (failed(verifyRegionReturns(*this, body, "body", getResultTypes())))
    return failure();

  // The kind names the group's one kind of hero: a backend picks its
  // kernel from it without looking at the body again.
  unsigned contractions = 0, reductions = 0;
  for (Operation &op : body.front().without_terminator()) {
    if (op.getDialect() != (*this)->getDialect() || op.getNumRegions() != 0)
      return emitOpError("body may hold only hlo ops without regions, got '")
             << op.getName() << "'";
    if (isa<DotGeneralOp, ConvolutionOp>(op))
      ++contractions;
    if (isa<ReduceOp>(op))
      ++reductions;
  }
  switch (getKind()) {
  case FusionKind::Loop:
    if (contractions || reductions)
      return emitOpError("of kind loop may not hold a reduction, "
                         "dot_general or convolution");
    break;
  case FusionKind::Input:
    if (reductions == 0 || contractions)
      return emitOpError("of kind input must hold an hlo.reduce and no "
                         "dot_general or convolution");
    break;
  case FusionKind::Output:
    if (contractions != 1 || reductions)
      return emitOpError("of kind output must hold exactly one dot_general "
                         "or convolution and no hlo.reduce, got ")
             << contractions << " and " << reductions;
    break;
  }
  return success();
}
