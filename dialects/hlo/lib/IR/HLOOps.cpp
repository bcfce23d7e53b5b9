//===- HLOOps.cpp - verifiers and custom syntax of hlo ops ----------------===//
//
// The rules checked here are written down in docs/hlo-dialect.md. Messages
// name the offending dimensions and sizes so a frontend bug is easy to find.
//
//===----------------------------------------------------------------------===//

#include "HLOFormatting.h"
#include "HLOVerification.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace numlir::hlo;

//===----------------------------------------------------------------------===//
// Custom syntax: enum attributes as bare keywords (`hlo.compare LT, ...`).
//===----------------------------------------------------------------------===//

template <typename AttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  std::string keyword;
  if (parser.parseKeywordOrString(&keyword))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value)
    return parser.emitError(loc)
           << "unknown " << AttrT::getMnemonic() << " '" << keyword << "'";
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

/// Replica groups as rows of ids, `[[0, 2], [1, 3]]`, held as a
/// tensor<num_groups x group_size x i64> (StableHLO's form).
static ParseResult parseReplicaGroups(OpAsmParser &parser,
                                      DenseIntElementsAttr &groups) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<SmallVector<int64_t>> rows;
  auto parseRow = [&]() -> ParseResult {
    SmallVector<int64_t> &row = rows.emplace_back();
    return parser.parseCommaSeparatedList(
        OpAsmParser::Delimiter::Square,
        [&]() { return parser.parseInteger(row.emplace_back()); });
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseRow))
    return failure();
  size_t size = rows.empty() ? 0 : rows.front().size();
  SmallVector<int64_t> ids;
  for (const SmallVector<int64_t> &row : rows) {
    if (row.size() != size)
      return parser.emitError(loc)
             << "replica groups must have one size, got " << size << " and "
             << row.size();
    ids.append(row);
  }
  auto type = RankedTensorType::get(
      {static_cast<int64_t>(rows.size()), static_cast<int64_t>(size)},
      parser.getBuilder().getI64Type());
  groups = DenseIntElementsAttr::get(type, ids);
  return success();
}

static void printReplicaGroups(OpAsmPrinter &printer, Operation *,
                               DenseIntElementsAttr groups) {
  ArrayRef<int64_t> shape = groups.getType().getShape();
  int64_t size = shape.size() == 2 ? shape[1] : groups.getNumElements();
  SmallVector<int64_t> ids(groups.getValues<int64_t>());
  printer << '[';
  for (int64_t start = 0; start < static_cast<int64_t>(ids.size());
       start += std::max<int64_t>(size, 1)) {
    if (start > 0)
      printer << ", ";
    printer << listString(ArrayRef(ids).slice(start, size));
  }
  printer << ']';
}

/// hlo.abs writes its result type only where it differs from the operand's
/// (the modulus of complex values): `: tensor<4xcomplex<f32>> ->
/// tensor<4xf32>`, but `: tensor<4xf32>` for real values.
static ParseResult parseAbsTypes(OpAsmParser &parser, Type &operandType,
                                 Type &resultType) {
  if (parser.parseType(operandType))
    return failure();
  if (failed(parser.parseOptionalArrow())) {
    resultType = operandType;
    return success();
  }
  return parser.parseType(resultType);
}

static void printAbsTypes(OpAsmPrinter &printer, Operation *, Type operandType,
                          Type resultType) {
  printer << operandType;
  if (resultType != operandType)
    printer << " -> " << resultType;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The part type of a complex element type (f32 of complex<f32>), or null.
static Type complexPartType(Type elementType) {
  auto complexType = dyn_cast<ComplexType>(elementType);
  return complexType ? complexType.getElementType() : Type();
}

static LogicalResult verifySameShape(Operation *op, Value operand,
                                     Value result, StringRef operandName) {
  ArrayRef<int64_t> operandShape = tensorType(operand).getShape();
  ArrayRef<int64_t> resultShape = tensorType(result).getShape();
  if (operandShape == resultShape)
    return success();
  return op->emitOpError("result shape ")
         << listString(resultShape) << " must equal " << operandName
         << " shape " << listString(operandShape);
}

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  // AllTypesMatch has checked that the value's type is the result type.
  if (!isa<DenseElementsAttr>(getValue()))
    return emitOpError("value must be a dense elements attribute, got ")
           << getValue();
  return success();
}

LogicalResult IotaOp::verify() {
  RankedTensorType type = getType();
  if (type.getRank() == 0)
    return emitOpError("result must have rank at least 1, got ") << type;
  int64_t dim = getIotaDimension();
  if (dim < 0 || dim >= type.getRank())
    return emitOpError("iota dimension ")
           << dim << " is out of range for a result of rank "
           << type.getRank();
  return success();
}

LogicalResult CompareOp::verifyShapes() {
  return verifySameShape(*this, getLhs(), getResult(), "operand");
}

LogicalResult CompareOp::verify() {
  ComparisonDirection direction = getComparisonDirection();
  if (isa<ComplexType>(getLhs().getType().getElementType()) &&
      direction != ComparisonDirection::EQ &&
      direction != ComparisonDirection::NE)
    return emitOpError("complex values compare only EQ or NE, got ")
           << stringifyEnum(direction);
  return success();
}

LogicalResult AbsOp::verifyShapes() {
  if (failed(verifySameShape(*this, getOperand(), getResult(), "operand")))
    return failure();
  Type operandElement = getOperand().getType().getElementType();
  Type part = complexPartType(operandElement);
  Type expected = part ? part : operandElement;
  if (getType().getElementType() != expected)
    return emitOpError("result element type must be ")
           << expected << " for an operand of element type " << operandElement
           << ", got " << getType().getElementType();
  return success();
}

/// hlo.real and hlo.imag: same shape, and the operand's part type.
static LogicalResult verifyComplexPart(Operation *op, Value operand,
                                       Value result) {
  if (failed(verifySameShape(op, operand, result, "operand")))
    return failure();
  Type part = complexPartType(tensorType(operand).getElementType());
  Type element = tensorType(result).getElementType();
  if (element != part)
    return op->emitOpError("result element type must be the operand's part "
                           "type ")
           << part << ", got " << element;
  return success();
}

LogicalResult RealOp::verifyShapes() {
  return verifyComplexPart(*this, getOperand(), getResult());
}

LogicalResult ImagOp::verifyShapes() {
  return verifyComplexPart(*this, getOperand(), getResult());
}

LogicalResult ComplexOp::verifyShapes() {
  if (failed(verifySameShape(*this, getLhs(), getResult(), "operand")))
    return failure();
  Type part = getLhs().getType().getElementType();
  Type element = getType().getElementType();
  if (complexPartType(element) != part)
    return emitOpError("result element type must be ")
           << ComplexType::get(part) << ", got " << element;
  return success();
}

LogicalResult SelectOp::verifyShapes() {
  ArrayRef<int64_t> predShape = getPred().getType().getShape();
  ArrayRef<int64_t> resultShape = getType().getShape();
  if (predShape != resultShape)
    return emitOpError("pred shape ")
           << listString(predShape) << " must equal result shape "
           << listString(resultShape);
  return success();
}

LogicalResult ConvertOp::verifyShapes() {
  return verifySameShape(*this, getOperand(), getResult(), "operand");
}

LogicalResult BitcastConvertOp::verifyShapes() {
  if (failed(verifySameShape(*this, getOperand(), getResult(), "operand")))
    return failure();
  Type from = getOperand().getType().getElementType();
  Type to = getType().getElementType();
  if (from.getIntOrFloatBitWidth() != to.getIntOrFloatBitWidth())
    return emitOpError("operand and result element types must have the same "
                       "bit width, got ")
           << from << " (" << from.getIntOrFloatBitWidth() << " bits) and "
           << to << " (" << to.getIntOrFloatBitWidth() << " bits)";
  return success();
}

LogicalResult IsFiniteOp::verifyShapes() {
  return verifySameShape(*this, getOperand(), getResult(), "operand");
}

LogicalResult ClampOp::verifyShapes() {
  RankedTensorType operandType = getOperand().getType();
  for (auto [name, bound] : {std::pair<StringRef, Value>{"min", getMin()},
                             {"max", getMax()}}) {
    RankedTensorType boundType = tensorType(bound);
    if (boundType.getElementType() != operandType.getElementType())
      return emitOpError() << name << " element type "
                           << boundType.getElementType()
                           << " must equal the operand element type "
                           << operandType.getElementType();
    if (boundType.getRank() != 0 &&
        boundType.getShape() != operandType.getShape())
      return emitOpError()
             << name << " shape " << listString(boundType.getShape())
             << " must be [] or the operand shape "
             << listString(operandType.getShape());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  RankedTensorType resultType = getType();
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (static_cast<int64_t>(dims.size()) != operandType.getRank())
    return emitOpError("expected one broadcast dimension per operand "
                       "dimension, got ")
           << dims.size() << " for an operand of rank "
           << operandType.getRank();
  for (auto [operandDim, resultDim] : llvm::enumerate(dims)) {
    if (resultDim < 0 || resultDim >= resultType.getRank())
      return emitOpError("broadcast dimension ")
             << resultDim << " (of operand dim " << operandDim
             << ") is out of range for a result of rank "
             << resultType.getRank();
    if (operandDim > 0 && resultDim <= dims[operandDim - 1])
      return emitOpError("broadcast dimensions must be strictly increasing, "
                         "got ")
             << listString(dims);
    int64_t operandSize = operandType.getDimSize(operandDim);
    int64_t resultSize = resultType.getDimSize(resultDim);
    if (operandSize != 1 && operandSize != resultSize)
      return emitOpError("operand dim ")
             << operandDim << " of size " << operandSize
             << " must have size 1 or the size of result dim " << resultDim
             << ", which is " << resultSize;
  }
  return verifyEqualElementTypes(
      *this, {{"operand", getOperand().getType()}, {"result", getType()}});
}

LogicalResult ReshapeOp::verify() {
  int64_t operandCount = getOperand().getType().getNumElements();
  int64_t resultCount = getType().getNumElements();
  if (operandCount != resultCount)
    return emitOpError("element counts must match, got ")
           << operandCount << " in the operand and " << resultCount
           << " in the result";
  return verifyEqualElementTypes(
      *this, {{"operand", getOperand().getType()}, {"result", getType()}});
}

LogicalResult TransposeOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  ArrayRef<int64_t> permutation = getPermutation();
  int64_t rank = operandType.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitOpError("permutation ")
           << listString(permutation) << " must have one entry per operand "
           << "dimension, got " << permutation.size()
           << " for an operand of rank " << rank;
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> expectedShape;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank)
      return emitOpError("permutation entry ")
             << dim << " is out of range for an operand of rank " << rank;
    if (seen.test(dim))
      return emitOpError("permutation ")
             << listString(permutation) << " repeats dimension " << dim;
    seen.set(dim);
    expectedShape.push_back(operandType.getDimSize(dim));
  }
  ArrayRef<int64_t> resultShape = getType().getShape();
  if (resultShape != ArrayRef(expectedShape))
    return emitOpError("result shape ")
           << listString(resultShape)
           << " must be the permuted operand shape "
           << listString(expectedShape);
  return verifyEqualElementTypes(
      *this, {{"operand", getOperand().getType()}, {"result", getType()}});
}

//===----------------------------------------------------------------------===//
// Reductions and contractions
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  int64_t rank = operandType.getRank();
  llvm::SmallBitVector reduced(rank);
  for (int64_t dim : getDimensions()) {
    if (dim < 0 || dim >= rank)
      return emitOpError("reduce dimension ")
             << dim << " is out of range for an operand of rank " << rank;
    if (reduced.test(dim))
      return emitOpError("reduce dimensions must be unique, got ")
             << listString(getDimensions());
    reduced.set(dim);
  }
  SmallVector<int64_t> expectedShape;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!reduced.test(dim))
      expectedShape.push_back(operandType.getDimSize(dim));
  ArrayRef<int64_t> resultShape = getType().getShape();
  if (resultShape != ArrayRef(expectedShape))
    return emitOpError("result shape ")
           << listString(resultShape) << " must be the operand shape "
           << listString(operandType.getShape()) << " without dims "
           << listString(getDimensions()) << ", which is "
           << listString(expectedShape);
  if (failed(verifyEqualElementTypes(
      *this, {{"operand", getOperand().getType()}, {"result", getType()}})))
    return failure();

  return verifyReduceKindFitsType(*this, getKind(),
                                  operandType.getElementType());
}

LogicalResult numlir::hlo::verifyReduceKindFitsType(Operation *op,
                                                    ReduceKind kind,
                                                    Type elementType) {
  switch (kind) {
  case ReduceKind::And:
  case ReduceKind::Or:
    if (!isa<IntegerType>(elementType))
      return op->emitOpError("'") << stringifyEnum(kind)
                                  << "' reduction needs an integer or i1 "
                                     "element type, got "
                                  << elementType;
    break;
  case ReduceKind::Sum:
  case ReduceKind::Prod:
    if (elementType.isInteger(1))
      return op->emitOpError("'")
             << stringifyEnum(kind)
             << "' reduction needs a float or integer element type, got i1";
    break;
  case ReduceKind::Max:
  case ReduceKind::Min:
    if (isa<ComplexType>(elementType))
      return op->emitOpError("'") << stringifyEnum(kind)
                                  << "' reduction needs a real element type, "
                                     "got "
                                  << elementType;
    break;
  }
  return success();
}

/// Checks that `dim` is a dimension of `type`.
static LogicalResult verifyDimension(Operation *op, int64_t dim,
                                     RankedTensorType type) {
  if (dim < 0 || dim >= type.getRank())
    return op->emitOpError("dimension ")
           << dim << " is out of range for an operand of rank "
           << type.getRank();
  return success();
}

LogicalResult ArgReduceOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  int64_t dim = getDimension();
  if (failed(verifyDimension(*this, dim, operandType)))
    return failure();
  SmallVector<int64_t> expectedShape(operandType.getShape());
  expectedShape.erase(expectedShape.begin() + dim);
  ArrayRef<int64_t> resultShape = getType().getShape();
  if (resultShape != ArrayRef(expectedShape))
    return emitOpError("result shape ")
           << listString(resultShape) << " must be the operand shape "
           << listString(operandType.getShape()) << " without dim " << dim
           << ", which is " << listString(expectedShape);
  Type indexType = getType().getElementType();
  if (!indexType.isSignlessInteger(32) && !indexType.isSignlessInteger(64))
    return emitOpError("result element type must be i32 or i64, got ")
           << indexType;
  if (getKind() != ReduceKind::Max && getKind() != ReduceKind::Min)
    return emitOpError("kind must be 'max' or 'min', got '")
           << stringifyEnum(getKind()) << "'";
  return success();
}

LogicalResult CumulativeOp::verify() {
  RankedTensorType type = getOperand().getType();
  if (failed(verifyDimension(*this, getDimension(), type)))
    return failure();
  Type elementType = type.getElementType();
  switch (getKind()) {
  case ReduceKind::Sum:
  case ReduceKind::Prod:
    if (elementType.isInteger(1))
      return emitOpError("'")
             << stringifyEnum(getKind())
             << "' scan needs a float or integer element type, got i1";
    return success();
  case ReduceKind::Max:
  case ReduceKind::Min:
    if (isa<ComplexType>(elementType))
      return emitOpError("'") << stringifyEnum(getKind())
                              << "' scan needs a real element type, got "
                              << elementType;
    return success();
  case ReduceKind::And:
  case ReduceKind::Or:
    break;
  }
  return emitOpError("kind must be 'sum', 'prod', 'max' or 'min', got '")
         << stringifyEnum(getKind()) << "'";
}

namespace {
/// One side (lhs or rhs) of a dot_general.
struct DotSide {
  StringRef name;
  RankedTensorType type;
  ArrayRef<int64_t> batch;
  ArrayRef<int64_t> contracting;
};
} // namespace

/// Checks that the batch and contracting dims of one side are in range and
/// used once, and appends the sizes of the remaining (free) dims to `shape`.
static LogicalResult verifyDotSide(DotGeneralOp op, const DotSide &side,
                                   SmallVectorImpl<int64_t> &shape) {
  int64_t rank = side.type.getRank();
  llvm::SmallBitVector used(rank);
  for (ArrayRef<int64_t> dims : {side.batch, side.contracting}) {
    for (int64_t dim : dims) {
      if (dim < 0 || dim >= rank)
        return op.emitOpError()
               << side.name << " dimension " << dim
               << " is out of range for " << side.name << " of rank " << rank;
      if (used.test(dim))
        return op.emitOpError()
               << side.name << " dimension " << dim
               << " is used more than once in batch_dims and "
                  "contracting_dims";
      used.set(dim);
    }
  }
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!used.test(dim))
      shape.push_back(side.type.getDimSize(dim));
  return success();
}

/// Checks that paired lhs/rhs dims (batch or contracting) have equal sizes.
static LogicalResult verifyDotPairs(DotGeneralOp op, StringRef what,
                                    RankedTensorType lhsType,
                                    ArrayRef<int64_t> lhsDims,
                                    RankedTensorType rhsType,
                                    ArrayRef<int64_t> rhsDims) {
  if (lhsDims.size() != rhsDims.size())
    return op.emitOpError()
           << what << " dimensions must pair up, got "
           << listString(lhsDims) << " for lhs and " << listString(rhsDims)
           << " for rhs";
  for (auto [lhsDim, rhsDim] : llvm::zip_equal(lhsDims, rhsDims)) {
    int64_t lhsSize = lhsType.getDimSize(lhsDim);
    int64_t rhsSize = rhsType.getDimSize(rhsDim);
    if (lhsSize != rhsSize)
      return op.emitOpError()
             << what << " dimension sizes must match, got lhs dim " << lhsDim
             << " of size " << lhsSize << " and rhs dim " << rhsDim
             << " of size " << rhsSize;
  }
  return success();
}

LogicalResult DotGeneralOp::verify() {
  RankedTensorType lhsType = getLhs().getType();
  RankedTensorType rhsType = getRhs().getType();
  RankedTensorType resultType = getType();
  DotSide lhs{"lhs", lhsType, getLhsBatchingDimensions(),
              getLhsContractingDimensions()};
  DotSide rhs{"rhs", rhsType, getRhsBatchingDimensions(),
              getRhsContractingDimensions()};

  SmallVector<int64_t> lhsFree, rhsFree;
  if (failed(verifyDotSide(*this, lhs, lhsFree)) ||
      failed(verifyDotSide(*this, rhs, rhsFree)) ||
      failed(verifyDotPairs(*this, "batch", lhsType, lhs.batch, rhsType,
                            rhs.batch)) ||
      failed(verifyDotPairs(*this, "contracting", lhsType, lhs.contracting,
                            rhsType, rhs.contracting)))
    return failure();

  SmallVector<int64_t> expectedShape;
  for (int64_t dim : lhs.batch)
    expectedShape.push_back(lhsType.getDimSize(dim));
  llvm::append_range(expectedShape, lhsFree);
  llvm::append_range(expectedShape, rhsFree);
  if (resultType.getShape() != ArrayRef(expectedShape))
    return emitOpError("result shape ")
           << listString(resultType.getShape())
           << " must be the batch, lhs free and rhs free dims, which is "
           << listString(expectedShape);

  return verifyEqualElementTypes(
      *this, {{"lhs", lhsType}, {"rhs", rhsType}, {"result", resultType}});
}

#define GET_OP_CLASSES
#include "numlir/Dialect/HLO/IR/HLOOps.cpp.inc"
