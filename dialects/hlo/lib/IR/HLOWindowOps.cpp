//===- HLOWindowOps.cpp - syntax and verifiers of the windowed ops --------===//
//
// reduce_window and convolution print `key = value` window parameters after
// their operands, omitting those that have their default value. The shape
// rules checked here are written down in docs/hlo-dialect.md.
//
//===----------------------------------------------------------------------===//

#include "HLOFormatting.h"
#include "HLOVerification.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace numlir::hlo;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::string pairsString(ArrayRef<int64_t> flat) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << '[';
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    os << (i ? ", [" : "[") << flat[i] << ", " << flat[i + 1] << ']';
  os << ']';
  return result;
}

static SmallVector<std::pair<int64_t, int64_t>>
toPairs(ArrayRef<int64_t> flat) {
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    pairs.push_back({flat[i], flat[i + 1]});
  return pairs;
}

/// The size of `size` elements with `dilation - 1` holes between them, plus
/// `low` and `high`; nullopt if that overflows int64. (low + high first: a
/// huge low cancelled by a huge negative high is a valid padding.)
static std::optional<int64_t> dilatedSize(int64_t size, int64_t dilation,
                                          int64_t low = 0, int64_t high = 0) {
  std::optional<int64_t> dilated =
      size == 0 ? std::optional<int64_t>(0)
                : llvm::checkedMulAdd<int64_t>(size - 1, dilation, 1);
  std::optional<int64_t> edges = llvm::checkedAdd<int64_t>(low, high);
  if (!dilated || !edges)
    return std::nullopt;
  return llvm::checkedAdd<int64_t>(*dilated, *edges);
}

/// The number of windows of `window` elements, `stride` apart, in `size`.
static int64_t windowCount(int64_t size, int64_t window, int64_t stride) {
  return window > size ? 0 : (size - window) / stride + 1;
}

static ParseResult parseIntList(OpAsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
        return parser.parseInteger(values.emplace_back());
      });
}

/// `[[low, high], ...]`, flattened to `low0, high0, low1, ...`.
static ParseResult parsePairList(OpAsmParser &parser,
                                 SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
        if (parser.parseLSquare() ||
            parser.parseInteger(values.emplace_back()) ||
            parser.parseComma() ||
            parser.parseInteger(values.emplace_back()) ||
            parser.parseRSquare())
          return failure();
        return success();
      });
}

/// Parses `, key = value` clauses until none is left. `parseValue` parses
/// the value of `key` and fails on an unknown key; each key appears once.
static ParseResult
parseClauses(OpAsmParser &parser,
             function_ref<ParseResult(StringRef key, SMLoc loc)> parseValue) {
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc) << "'" << key << "' is given twice";
    if (parseValue(key, loc))
      return failure();
  }
  return success();
}

static ParseResult unknownClause(OpAsmParser &parser, SMLoc loc,
                                 StringRef key) {
  return parser.emitError(loc) << "unknown window parameter '" << key << "'";
}

/// `values`, or `rank` copies of `fill` when the clause was omitted.
static DenseI64ArrayAttr orDefault(Builder &b, ArrayRef<int64_t> values,
                                   bool given, int64_t rank, int64_t fill) {
  if (given)
    return b.getDenseI64ArrayAttr(values);
  return b.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, fill));
}

static bool allEqual(ArrayRef<int64_t> values, int64_t value) {
  return llvm::all_of(values, [&](int64_t v) { return v == value; });
}

/// Checks that `values` has `count` entries (one per `per`) that are
/// positive, naming the list `name` in messages.
static LogicalResult verifyPositiveList(Operation *op, StringRef name,
                                        ArrayRef<int64_t> values, int64_t count,
                                        StringRef per) {
  if (static_cast<int64_t>(values.size()) != count)
    return op->emitOpError()
           << name << " must have one entry per " << per << " (" << count
           << "), got " << values.size();
  if (llvm::any_of(values, [](int64_t v) { return v <= 0; }))
    return op->emitOpError()
           << name << " must be positive, got " << listString(values);
  return success();
}

static LogicalResult verifyPadding(Operation *op, ArrayRef<int64_t> padding,
                                   int64_t count, StringRef per) {
  if (static_cast<int64_t>(padding.size()) != 2 * count)
    return op->emitOpError()
           << "padding must have one [low, high] pair per " << per << " ("
           << count << "), got " << padding.size() << " values";
  return success();
}

//===----------------------------------------------------------------------===//
// reduce_window
//===----------------------------------------------------------------------===//

SmallVector<std::pair<int64_t, int64_t>> ReduceWindowOp::getPaddingPairs() {
  return toPairs(getPadding());
}

ParseResult ReduceWindowOp::parse(OpAsmParser &parser, OperationState &result) {
  SMLoc kindLoc = parser.getCurrentLocation();
  std::string kindName;
  OpAsmParser::UnresolvedOperand operand;
  if (parser.parseKeywordOrString(&kindName))
    return failure();
  std::optional<ReduceKind> kind = symbolizeReduceKind(kindName);
  if (!kind)
    return parser.emitError(kindLoc) << "unknown reduce_kind '" << kindName
                                     << "'";
  if (parser.parseOperand(operand))
    return failure();

  SmallVector<int64_t> window, strides, padding, baseDilations,
      windowDilations;
  llvm::StringSet<> given;
  SMLoc clausesLoc = parser.getCurrentLocation();
  if (parseClauses(parser, [&](StringRef key, SMLoc loc) -> ParseResult {
        given.insert(key);
        if (key == "window")
          return parseIntList(parser, window);
        if (key == "strides")
          return parseIntList(parser, strides);
        if (key == "padding")
          return parsePairList(parser, padding);
        if (key == "base_dilations")
          return parseIntList(parser, baseDilations);
        if (key == "window_dilations")
          return parseIntList(parser, windowDilations);
        return unknownClause(parser, loc, key);
      }))
    return failure();
  if (!given.contains("window"))
    return parser.emitError(clausesLoc) << "expected 'window = [...]'";

  Type operandType, resultType;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(operandType) || parser.parseArrow() ||
      parser.parseType(resultType) ||
      parser.resolveOperand(operand, operandType, result.operands))
    return failure();
  result.addTypes(resultType);

  auto rankedType = dyn_cast<RankedTensorType>(operandType);
  int64_t rank = rankedType ? rankedType.getRank() : 0;
  Builder &b = parser.getBuilder();
  MLIRContext *ctx = parser.getContext();
  result.addAttribute("kind", ReduceKindAttr::get(ctx, *kind));
  result.addAttribute("window_dimensions", b.getDenseI64ArrayAttr(window));
  result.addAttribute("window_strides", orDefault(b, strides,
                                                  given.contains("strides"),
                                                  rank, 1));
  result.addAttribute("padding", orDefault(b, padding,
                                           given.contains("padding"),
                                           2 * rank, 0));
  result.addAttribute("base_dilations",
                      orDefault(b, baseDilations,
                                given.contains("base_dilations"), rank, 1));
  result.addAttribute("window_dilations",
                      orDefault(b, windowDilations,
                                given.contains("window_dilations"), rank, 1));
  return success();
}

void ReduceWindowOp::print(OpAsmPrinter &p) {
  p << ' ' << stringifyReduceKind(getKind()) << ' ' << getOperand()
    << ", window = " << listString(getWindowDimensions());
  if (!allEqual(getWindowStrides(), 1))
    p << ", strides = " << listString(getWindowStrides());
  if (!allEqual(getPadding(), 0))
    p << ", padding = " << pairsString(getPadding());
  if (!allEqual(getBaseDilations(), 1))
    p << ", base_dilations = " << listString(getBaseDilations());
  if (!allEqual(getWindowDilations(), 1))
    p << ", window_dilations = " << listString(getWindowDilations());
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {"kind", "window_dimensions", "window_strides", "padding",
       "base_dilations", "window_dilations"});
  p << " : " << getOperand().getType() << " -> " << getType();
}

LogicalResult ReduceWindowOp::verify() {
  RankedTensorType operandType = getOperand().getType();
  int64_t rank = operandType.getRank();
  StringRef per = "operand dimension";
  if (failed(verifyPositiveList(*this, "window", getWindowDimensions(), rank,
                                per)) ||
      failed(verifyPositiveList(*this, "strides", getWindowStrides(), rank,
                                per)) ||
      failed(verifyPositiveList(*this, "base_dilations", getBaseDilations(),
                                rank, per)) ||
      failed(verifyPositiveList(*this, "window_dilations",
                                getWindowDilations(), rank, per)) ||
      failed(verifyPadding(*this, getPadding(), rank, per)))
    return failure();

  SmallVector<int64_t> expectedShape;
  for (int64_t d = 0; d < rank; ++d) {
    auto [low, high] = getPaddingPairs()[d];
    int64_t size = operandType.getDimSize(d);
    std::optional<int64_t> padded =
        dilatedSize(size, getBaseDilations()[d], low, high);
    std::optional<int64_t> window =
        dilatedSize(getWindowDimensions()[d], getWindowDilations()[d]);
    if (!padded || !window)
      return emitOpError("window parameters of dim ")
             << d << " overflow int64";
    if (*padded < 0)
      return emitOpError("dim ")
             << d << " of size " << size << ", dilated by "
             << getBaseDilations()[d] << " and padded by [" << low << ", "
             << high << "], has negative size " << *padded;
    expectedShape.push_back(
        windowCount(*padded, *window, getWindowStrides()[d]));
  }
  ArrayRef<int64_t> resultShape = getType().getShape();
  if (resultShape != ArrayRef(expectedShape))
    return emitOpError("result shape ")
           << listString(resultShape) << " must be the number of windows "
           << "per dimension, which is " << listString(expectedShape);

  if (failed(verifyEqualElementTypes(
          *this, {{"operand", operandType}, {"result", getType()}})))
    return failure();
  Type elementType = operandType.getElementType();
  ReduceKind kind = getKind();
  if ((kind == ReduceKind::And || kind == ReduceKind::Or) &&
      !isa<IntegerType>(elementType))
    return emitOpError("'") << stringifyReduceKind(kind)
                            << "' reduction needs an integer or i1 element "
                               "type, got "
                            << elementType;
  if ((kind == ReduceKind::Sum || kind == ReduceKind::Prod) &&
      elementType.isInteger(1))
    return emitOpError("'")
           << stringifyReduceKind(kind)
           << "' reduction needs a float or integer element type, got i1";
  return success();
}

//===----------------------------------------------------------------------===//
// convolution
//===----------------------------------------------------------------------===//

namespace {
/// The dimension numbers of one convolution operand: the positions of its
/// two named dimensions and of each spatial dimension.
struct DimLabels {
  char first, second; // 'b'/'f' for lhs and result, 'i'/'o' for the kernel
  int64_t firstDim = -1, secondDim = -1;
  SmallVector<int64_t> spatial;
};
} // namespace

/// Parses `[b, 0, 1, f]` (with `first`/`second` the two letters allowed).
/// Spatial indices are checked against the number of entries once the list
/// is read, so an index like 4294967295 is an error, not an allocation.
static ParseResult parseDimLabels(OpAsmParser &parser, DimLabels &labels) {
  SMLoc loc = parser.getCurrentLocation();
  struct SpatialEntry {
    int64_t index, position;
    SMLoc loc;
  };
  SmallVector<SpatialEntry> entries;
  int64_t position = 0;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t index = 0;
            SMLoc entryLoc = parser.getCurrentLocation();
            OptionalParseResult integer = parser.parseOptionalInteger(index);
            if (integer.has_value()) {
              if (failed(*integer))
                return failure();
              if (index < 0)
                return parser.emitError(entryLoc)
                       << "spatial dimension index must be non-negative";
              entries.push_back({index, position++, entryLoc});
              return success();
            }
            StringRef keyword;
            if (parser.parseKeyword(&keyword))
              return failure();
            int64_t *slot = keyword.size() != 1 ? nullptr
                            : keyword[0] == labels.first ? &labels.firstDim
                            : keyword[0] == labels.second ? &labels.secondDim
                                                          : nullptr;
            if (!slot)
              return parser.emitError(entryLoc)
                     << "expected '" << labels.first << "', '"
                     << labels.second << "' or a spatial dimension index, got '"
                     << keyword << "'";
            if (*slot != -1)
              return parser.emitError(entryLoc)
                     << "'" << keyword << "' is given twice";
            *slot = position++;
            return success();
          }))
    return failure();
  if (labels.firstDim == -1 || labels.secondDim == -1)
    return parser.emitError(loc) << "expected both '" << labels.first
                                 << "' and '" << labels.second << "'";
  int64_t numSpatial = entries.size();
  labels.spatial.assign(numSpatial, -1);
  for (const SpatialEntry &entry : entries) {
    if (entry.index >= numSpatial)
      return parser.emitError(entry.loc)
             << "spatial dimension index " << entry.index
             << " is not below the number of spatial dimensions, "
             << numSpatial << ": they must be numbered 0, 1, ... without gaps";
    if (labels.spatial[entry.index] != -1)
      return parser.emitError(entry.loc)
             << "spatial dimension " << entry.index << " is given twice";
    labels.spatial[entry.index] = entry.position;
  }
  return success();
}

static void printDimLabels(OpAsmPrinter &p, int64_t rank, char first,
                           int64_t firstDim, char second, int64_t secondDim,
                           ArrayRef<int64_t> spatial) {
  p << '[';
  for (int64_t pos = 0; pos < rank; ++pos) {
    if (pos)
      p << ", ";
    const int64_t *it = llvm::find(spatial, pos);
    if (pos == firstDim)
      p << first;
    else if (pos == secondDim)
      p << second;
    else if (it != spatial.end())
      p << (it - spatial.begin());
    else
      p << '?'; // only reachable for an op that fails verification
  }
  p << ']';
}

SmallVector<std::pair<int64_t, int64_t>> ConvolutionOp::getPaddingPairs() {
  return toPairs(getPadding());
}

ParseResult ConvolutionOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand lhs, rhs;
  if (parser.parseOperand(lhs) || parser.parseComma() ||
      parser.parseOperand(rhs))
    return failure();

  DimLabels input{'b', 'f'}, kernel{'i', 'o'}, output{'b', 'f'};
  SmallVector<int64_t> strides, padding, lhsDilation, rhsDilation;
  int64_t featureGroups = 1, batchGroups = 1;
  llvm::StringSet<> given;
  SMLoc clausesLoc = parser.getCurrentLocation();
  if (parseClauses(parser, [&](StringRef key, SMLoc loc) -> ParseResult {
        given.insert(key);
        if (key == "dims")
          return failure(parseDimLabels(parser, input) ||
                         parser.parseKeyword("x") ||
                         parseDimLabels(parser, kernel) ||
                         parser.parseArrow() || parseDimLabels(parser, output));
        if (key == "strides")
          return parseIntList(parser, strides);
        if (key == "padding")
          return parsePairList(parser, padding);
        if (key == "lhs_dilation")
          return parseIntList(parser, lhsDilation);
        if (key == "rhs_dilation")
          return parseIntList(parser, rhsDilation);
        if (key == "feature_group_count")
          return parser.parseInteger(featureGroups);
        if (key == "batch_group_count")
          return parser.parseInteger(batchGroups);
        return unknownClause(parser, loc, key);
      }))
    return failure();
  if (!given.contains("dims"))
    return parser.emitError(clausesLoc)
           << "expected 'dims = [...]x[...]->[...]'";

  Type lhsType, rhsType, resultType;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(lhsType) || parser.parseComma() ||
      parser.parseType(rhsType) || parser.parseArrow() ||
      parser.parseType(resultType) ||
      parser.resolveOperand(lhs, lhsType, result.operands) ||
      parser.resolveOperand(rhs, rhsType, result.operands))
    return failure();
  result.addTypes(resultType);

  int64_t numSpatial = input.spatial.size();
  Builder &b = parser.getBuilder();
  auto addInt = [&](StringRef name, int64_t value) {
    result.addAttribute(name, b.getI64IntegerAttr(value));
  };
  auto addList = [&](StringRef name, ArrayRef<int64_t> values) {
    result.addAttribute(name, b.getDenseI64ArrayAttr(values));
  };
  addInt("input_batch_dimension", input.firstDim);
  addInt("input_feature_dimension", input.secondDim);
  addList("input_spatial_dimensions", input.spatial);
  addInt("kernel_input_feature_dimension", kernel.firstDim);
  addInt("kernel_output_feature_dimension", kernel.secondDim);
  addList("kernel_spatial_dimensions", kernel.spatial);
  addInt("output_batch_dimension", output.firstDim);
  addInt("output_feature_dimension", output.secondDim);
  addList("output_spatial_dimensions", output.spatial);
  result.addAttribute("window_strides",
                      orDefault(b, strides, given.contains("strides"),
                                numSpatial, 1));
  result.addAttribute("padding", orDefault(b, padding,
                                           given.contains("padding"),
                                           2 * numSpatial, 0));
  result.addAttribute("lhs_dilation",
                      orDefault(b, lhsDilation, given.contains("lhs_dilation"),
                                numSpatial, 1));
  result.addAttribute("rhs_dilation",
                      orDefault(b, rhsDilation, given.contains("rhs_dilation"),
                                numSpatial, 1));
  addInt("feature_group_count", featureGroups);
  addInt("batch_group_count", batchGroups);
  return success();
}

void ConvolutionOp::print(OpAsmPrinter &p) {
  p << ' ' << getLhs() << ", " << getRhs() << ", dims = ";
  printDimLabels(p, getLhs().getType().getRank(), 'b', getInputBatchDimension(),
                 'f', getInputFeatureDimension(), getInputSpatialDimensions());
  p << 'x';
  printDimLabels(p, getRhs().getType().getRank(), 'i',
                 getKernelInputFeatureDimension(), 'o',
                 getKernelOutputFeatureDimension(),
                 getKernelSpatialDimensions());
  p << "->";
  printDimLabels(p, getType().getRank(), 'b', getOutputBatchDimension(), 'f',
                 getOutputFeatureDimension(), getOutputSpatialDimensions());
  if (!allEqual(getWindowStrides(), 1))
    p << ", strides = " << listString(getWindowStrides());
  if (!allEqual(getPadding(), 0))
    p << ", padding = " << pairsString(getPadding());
  if (!allEqual(getLhsDilation(), 1))
    p << ", lhs_dilation = " << listString(getLhsDilation());
  if (!allEqual(getRhsDilation(), 1))
    p << ", rhs_dilation = " << listString(getRhsDilation());
  if (getFeatureGroupCount() != 1)
    p << ", feature_group_count = " << getFeatureGroupCount();
  if (getBatchGroupCount() != 1)
    p << ", batch_group_count = " << getBatchGroupCount();
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {"input_batch_dimension", "input_feature_dimension",
       "input_spatial_dimensions", "kernel_input_feature_dimension",
       "kernel_output_feature_dimension", "kernel_spatial_dimensions",
       "output_batch_dimension", "output_feature_dimension",
       "output_spatial_dimensions", "window_strides", "padding",
       "lhs_dilation", "rhs_dilation", "feature_group_count",
       "batch_group_count"});
  p << " : " << getLhs().getType() << ", " << getRhs().getType() << " -> "
    << getType();
}

/// Checks that `first`, `second` and `spatial` are a permutation of the
/// dimensions of a tensor of rank `rank`.
static LogicalResult verifyDimNumbers(Operation *op, StringRef what,
                                      int64_t rank, StringRef firstName,
                                      int64_t first, StringRef secondName,
                                      int64_t second,
                                      ArrayRef<int64_t> spatial) {
  llvm::SmallBitVector seen(rank);
  SmallVector<int64_t> all = {first, second};
  llvm::append_range(all, spatial);
  bool valid = static_cast<int64_t>(all.size()) == rank;
  for (int64_t dim : all) {
    if (!valid || dim < 0 || dim >= rank || seen.test(dim)) {
      valid = false;
      break;
    }
    seen.set(dim);
  }
  if (valid)
    return success();
  return op->emitOpError()
         << what << " dimension numbers (" << firstName << ' ' << first
         << ", " << secondName << ' ' << second << ", spatial "
         << listString(spatial) << ") must be a permutation of the " << rank
         << " dimensions of the " << what;
}

LogicalResult ConvolutionOp::verify() {
  RankedTensorType lhsType = getLhs().getType();
  RankedTensorType rhsType = getRhs().getType();
  RankedTensorType resultType = getType();
  int64_t rank = lhsType.getRank();
  if (rhsType.getRank() != rank || resultType.getRank() != rank)
    return emitOpError("lhs, rhs and result must have one rank, got ")
           << rank << ", " << rhsType.getRank() << " and "
           << resultType.getRank();
  if (rank < 2)
    return emitOpError("operands must have rank at least 2 (batch and "
                       "feature), got ")
           << rank;
  if (failed(verifyDimNumbers(*this, "lhs", rank, "batch",
                              getInputBatchDimension(), "feature",
                              getInputFeatureDimension(),
                              getInputSpatialDimensions())) ||
      failed(verifyDimNumbers(*this, "rhs", rank, "input feature",
                              getKernelInputFeatureDimension(),
                              "output feature",
                              getKernelOutputFeatureDimension(),
                              getKernelSpatialDimensions())) ||
      failed(verifyDimNumbers(*this, "result", rank, "batch",
                              getOutputBatchDimension(), "feature",
                              getOutputFeatureDimension(),
                              getOutputSpatialDimensions())))
    return failure();

  int64_t numSpatial = rank - 2;
  StringRef per = "spatial dimension";
  if (failed(verifyPositiveList(*this, "strides", getWindowStrides(),
                                numSpatial, per)) ||
      failed(verifyPositiveList(*this, "lhs_dilation", getLhsDilation(),
                                numSpatial, per)) ||
      failed(verifyPositiveList(*this, "rhs_dilation", getRhsDilation(),
                                numSpatial, per)) ||
      failed(verifyPadding(*this, getPadding(), numSpatial, per)))
    return failure();

  int64_t featureGroups = getFeatureGroupCount();
  int64_t batchGroups = getBatchGroupCount();
  if (featureGroups <= 0)
    return emitOpError("feature_group_count must be positive, got ")
           << featureGroups;
  if (batchGroups <= 0)
    return emitOpError("batch_group_count must be positive, got ")
           << batchGroups;
  if (featureGroups > 1 && batchGroups > 1)
    return emitOpError("feature_group_count ")
           << featureGroups << " and batch_group_count " << batchGroups
           << " cannot both be greater than 1";

  int64_t batchDim = getInputBatchDimension();
  int64_t featureDim = getInputFeatureDimension();
  int64_t kernelInDim = getKernelInputFeatureDimension();
  int64_t kernelOutDim = getKernelOutputFeatureDimension();
  int64_t batch = lhsType.getDimSize(batchDim);
  int64_t features = lhsType.getDimSize(featureDim);
  int64_t kernelIn = rhsType.getDimSize(kernelInDim);
  int64_t kernelOut = rhsType.getDimSize(kernelOutDim);
  std::optional<int64_t> groupedIn =
      llvm::checkedMul<int64_t>(kernelIn, featureGroups);
  if (!groupedIn || features != *groupedIn)
    return emitOpError("lhs feature size ")
           << features << " (lhs dim " << featureDim
           << ") must be the kernel input feature size " << kernelIn
           << " (rhs dim " << kernelInDim << ") times feature_group_count "
           << featureGroups;
  if (kernelOut % featureGroups != 0)
    return emitOpError("kernel output feature size ")
           << kernelOut << " (rhs dim " << kernelOutDim
           << ") must be a multiple of feature_group_count " << featureGroups;
  if (batch % batchGroups != 0)
    return emitOpError("lhs batch size ")
           << batch << " (lhs dim " << batchDim
           << ") must be a multiple of batch_group_count " << batchGroups;
  if (kernelOut % batchGroups != 0)
    return emitOpError("kernel output feature size ")
           << kernelOut << " (rhs dim " << kernelOutDim
           << ") must be a multiple of batch_group_count " << batchGroups;

  SmallVector<int64_t> expectedShape(rank);
  expectedShape[getOutputBatchDimension()] = batch / batchGroups;
  expectedShape[getOutputFeatureDimension()] = kernelOut;
  for (int64_t s = 0; s < numSpatial; ++s) {
    int64_t lhsDim = getInputSpatialDimensions()[s];
    int64_t size = lhsType.getDimSize(lhsDim);
    auto [low, high] = getPaddingPairs()[s];
    std::optional<int64_t> padded =
        dilatedSize(size, getLhsDilation()[s], low, high);
    std::optional<int64_t> window = dilatedSize(
        rhsType.getDimSize(getKernelSpatialDimensions()[s]),
        getRhsDilation()[s]);
    if (!padded || !window)
      return emitOpError("window parameters of spatial dimension ")
             << s << " overflow int64";
    if (*padded < 0)
      return emitOpError("spatial dimension ")
             << s << " (lhs dim " << lhsDim << " of size " << size
             << "), dilated by " << getLhsDilation()[s] << " and padded by ["
             << low << ", " << high << "], has negative size " << *padded;
    expectedShape[getOutputSpatialDimensions()[s]] =
        windowCount(*padded, *window, getWindowStrides()[s]);
  }
  if (resultType.getShape() != ArrayRef(expectedShape))
    return emitOpError("result shape ")
           << listString(resultType.getShape()) << " must be "
           << listString(expectedShape)
           << " (batch / batch_group_count, kernel output features and the "
              "number of windows per spatial dimension)";

  return verifyEqualElementTypes(
      *this, {{"lhs", lhsType}, {"rhs", rhsType}, {"result", resultType}});
}
