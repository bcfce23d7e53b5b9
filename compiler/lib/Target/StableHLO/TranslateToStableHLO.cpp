//===- TranslateToStableHLO.cpp - hlo to StableHLO and CHLO ---------------===//
//
// Each hlo op becomes the StableHLO (or CHLO) op of the same meaning, built
// unregistered in a copy of the module and printed in MLIR's generic form.
// numlir does not link StableHLO, so attributes that are StableHLO's own
// (comparison_direction, dot dimension numbers, precision) are opaque
// attributes holding the dialect's syntax; the consumer parses them.
//
// Most ops keep their operands, results and attributes and only change name;
// dynamic_update_slice takes its update first, compare gains its
// compare_type, dot_general packs its dimensions into one attribute and asks
// for full precision, reduce gets its init value and body, and cumulative
// becomes a reduce_window over the whole dimension.
//
//===----------------------------------------------------------------------===//

#include "numlir/Target/StableHLO.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <complex>
#include <optional>

using namespace mlir;
namespace hlo = numlir::hlo;

namespace {

/// The ops that exist in StableHLO or CHLO with hlo's operands, results and
/// attributes, by their full name there.
const llvm::StringMap<std::string> &sameShapedOps() {
  static const llvm::StringMap<std::string> table = [] {
    llvm::StringMap<std::string> names;
    for (StringRef name :
         {"abs", "add", "and", "atan2", "bitcast_convert", "broadcast_in_dim",
          "cbrt", "ceil", "clamp", "complex", "concatenate", "constant",
          "convert", "count_leading_zeros", "divide", "dynamic_slice",
          "exponential_minus_one", "floor", "imag",
          "iota", "is_finite", "log", "log_plus_one", "logistic", "maximum",
          "minimum", "multiply", "negate", "not", "optimization_barrier", "or",
          "pad", "popcnt", "power", "real", "remainder", "reshape", "reverse",
          "round_nearest_afz", "round_nearest_even", "rsqrt", "select",
          "shift_left", "shift_right_arithmetic", "shift_right_logical",
          "sign", "slice", "sqrt", "subtract", "tan", "tanh", "transpose",
          "xor",
          // Control flow: the same operands and regions (moved, then
          // translated in turn), StableHLO's out-of-range case included.
          "while", "if", "case", "return"})
      names[name] = ("stablehlo." + name).str();
    names["exp"] = "stablehlo.exponential";
    names["sin"] = "stablehlo.sine";
    names["cos"] = "stablehlo.cosine";
    for (StringRef name :
         {"acos", "acosh", "asin", "asinh", "atan", "atanh", "conj", "cosh",
          "digamma", "erf", "erf_inv", "lgamma", "next_after", "sinh"})
      names[name] = ("chlo." + name).str();
    return names;
  }();
  return table;
}

class Translator {
public:
  explicit Translator(MLIRContext *context)
      : context(context), builder(context) {}

  /// Replaces every hlo op in `root` by its StableHLO op.
  LogicalResult run(Operation *root) {
    SmallVector<Operation *> ops;
    // Outer ops first, so that an untranslated op with regions (a fusion)
    // is the one reported, not its terminator; a translated one's regions
    // move to its replacement, and their ops come later in the list.
    root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<hlo::HLODialect>(op->getDialect()))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      if (failed(translate(op)))
        return failure();
    return success();
  }

private:
  LogicalResult translate(Operation *op) {
    builder.setInsertionPoint(op);
    OperationState state(op->getLoc(), "stablehlo.unknown");
    state.addOperands(op->getOperands());
    state.addTypes(op->getResultTypes());
    auto same = sameShapedOps().find(op->getName().stripDialect());
    if (auto convert = dyn_cast<hlo::ConvertOp>(op)) {
      translateConvert(convert, state);
    } else if (same != sameShapedOps().end()) {
      state.name = OperationName(same->second, context);
      state.addAttributes(op->getAttrs());
    } else if (auto update = dyn_cast<hlo::DynamicUpdateSliceOp>(op)) {
      // StableHLO takes the update before the start indices.
      state.name = OperationName("stablehlo.dynamic_update_slice", context);
      state.operands.clear();
      state.addOperands({update.getOperand(), update.getUpdate()});
      state.addOperands(update.getStartIndices());
    } else if (auto compare = dyn_cast<hlo::CompareOp>(op)) {
      translateCompare(compare, state);
    } else if (auto dot = dyn_cast<hlo::DotGeneralOp>(op)) {
      translateDotGeneral(dot, state);
    } else if (auto reduce = dyn_cast<hlo::ReduceOp>(op)) {
      translateReduce(reduce, state);
    } else if (auto scan = dyn_cast<hlo::CumulativeOp>(op)) {
      translateCumulative(scan, state);
    } else if (auto window = dyn_cast<hlo::ReduceWindowOp>(op)) {
      translateReduceWindow(window, state);
    } else if (auto sort = dyn_cast<hlo::SortOp>(op)) {
      translateSort(sort, state);
    } else if (auto conv = dyn_cast<hlo::ConvolutionOp>(op)) {
      translateConvolution(conv, state);
    } else if (auto gather = dyn_cast<hlo::GatherOp>(op)) {
      translateGather(gather, state);
    } else if (auto scatter = dyn_cast<hlo::ScatterOp>(op)) {
      translateScatter(scatter, state);
    } else if (auto argReduce = dyn_cast<hlo::ArgReduceOp>(op)) {
      Value indices = translateArgReduce(argReduce);
      op->replaceAllUsesWith(ValueRange{indices});
      op->erase();
      return success();
    } else if (isa<hlo::CustomCallOp>(op)) {
      return op->emitOpError(
          "calls a library routine of numlir's CPU runtime, which PJRT "
          "compilers do not have; export the module lowered without library "
          "calls (numlir's StableHLO export does so)");
    } else {
      return op->emitOpError(
          "has no StableHLO translation yet (numlir's PJRT export covers "
          "elementwise, shape, slicing, dot_general, reduce and control-flow "
          "ops)");
    }
    for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
      state.addRegion();
    Operation *replacement = builder.create(state);
    for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
      replacement->getRegion(i).takeBody(op->getRegion(i));
    op->replaceAllUsesWith(replacement->getResults());
    op->erase();
    return success();
  }

  /// hlo.convert keeps its meaning in StableHLO but for two kinds, which
  /// XLA handles badly. A complex number converts to a real or integer type
  /// by its real part: XLA has no such convert (its constant folder crashes
  /// on one), so stablehlo.real comes first. A bool, integer or float
  /// converts to a complex type as the real part: XLA's TPU compiler aborts
  /// on converts to complex<f64> (from pred and from f64 alike), so the
  /// translation builds the number with stablehlo.complex and a zero.
  void translateConvert(hlo::ConvertOp op, OperationState &state) {
    state.name = OperationName("stablehlo.convert", context);
    auto from = cast<ShapedType>(op.getOperand().getType());
    auto fromComplex = dyn_cast<ComplexType>(from.getElementType());
    auto toComplex = dyn_cast<ComplexType>(getElementTypeOrSelf(op.getType()));
    if (fromComplex && !toComplex) {
      Value real = create("stablehlo.real", {op.getOperand()},
                          from.clone(fromComplex.getElementType()));
      state.operands.assign({real});
    } else if (toComplex && !fromComplex) {
      Type part = toComplex.getElementType();
      auto partType = RankedTensorType::get(from.getShape(), part);
      Value real = op.getOperand();
      if (from.getElementType() != part)
        real = create("stablehlo.convert", {real}, partType);
      Value zero = create(
          "stablehlo.constant", {}, partType,
          {builder.getNamedAttr("value", DenseElementsAttr::get(
                                             partType, builder.getZeroAttr(part)))});
      state.name = OperationName("stablehlo.complex", context);
      state.operands.assign({real, zero});
    }
  }

  /// StableHLO's `#stablehlo.<kind><field = [..], ..., index_vector_dim = n>`,
  /// leaving out empty lists as StableHLO prints them.
  Attribute dimensionNumbers(
      StringRef kind, ArrayRef<std::pair<StringRef, ArrayRef<int64_t>>> fields,
      std::optional<int64_t> indexVectorDim = std::nullopt) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << kind << "<";
    llvm::ListSeparator comma;
    for (auto [name, values] : fields) {
      if (values.empty())
        continue;
      os << comma << name << " = [";
      llvm::interleaveComma(values, os);
      os << "]";
    }
    if (indexVectorDim)
      os << comma << "index_vector_dim = " << *indexVectorDim;
    os << ">";
    return stablehloAttr(text);
  }

  /// An attribute StableHLO parses from `syntax`, e.g. `precision HIGHEST`.
  Attribute stablehloAttr(StringRef syntax) {
    return OpaqueAttr::get(StringAttr::get(context, "stablehlo"), syntax,
                           NoneType::get(context));
  }

  /// hlo.compare is IEEE for floats and complex numbers (NaN unordered,
  /// -0 == 0), and signed or unsigned by the integer type; bool is unsigned.
  static StringRef compareTypeOf(Type element) {
    if (isa<FloatType, ComplexType>(element))
      return "FLOAT";
    return element.isUnsignedInteger() || element.isInteger(1) ? "UNSIGNED"
                                                                : "SIGNED";
  }

  void translateCompare(hlo::CompareOp op, OperationState &state) {
    StringRef type = compareTypeOf(getElementTypeOrSelf(op.getLhs().getType()));
    state.name = OperationName("stablehlo.compare", context);
    state.addAttribute(
        "comparison_direction",
        stablehloAttr(llvm::formatv("comparison_direction {0}",
                                    hlo::stringifyComparisonDirection(
                                        op.getComparisonDirection()))
                          .str()));
    state.addAttribute("compare_type",
                       stablehloAttr(("comparison_type " + type).str()));
  }

  /// numlir's CPU backend multiplies in the operands' precision; on a TPU
  /// that is precision HIGHEST (the default would round f32 to bf16).
  void translateDotGeneral(hlo::DotGeneralOp op, OperationState &state) {
    state.name = OperationName("stablehlo.dot_general", context);
    state.addAttribute(
        "dot_dimension_numbers",
        dimensionNumbers(
            "dot",
            {{"lhs_batching_dimensions", op.getLhsBatchingDimensions()},
             {"rhs_batching_dimensions", op.getRhsBatchingDimensions()},
             {"lhs_contracting_dimensions", op.getLhsContractingDimensions()},
             {"rhs_contracting_dimensions", op.getRhsContractingDimensions()}}));
    Attribute highest = stablehloAttr("precision HIGHEST");
    state.addAttribute("precision_config",
                       ArrayAttr::get(context, {highest, highest}));
  }

  /// stablehlo.reduce takes its init value as an operand and its combiner
  /// as a body on 0-d tensors.
  void translateReduce(hlo::ReduceOp op, OperationState &state) {
    state.name = OperationName("stablehlo.reduce", context);
    addInitAndCombiner(op.getOperand(), op.getKind(), state);
    state.addAttribute("dimensions", op.getDimensionsAttr());
  }

  /// A scan is a window over the whole dimension that ends at each element
  /// (starts, when reversed), padded with the combiner's identity: XLA's
  /// own cumulative sum on accelerators.
  void translateCumulative(hlo::CumulativeOp op, OperationState &state) {
    auto type = cast<RankedTensorType>(op.getOperand().getType());
    int64_t rank = type.getRank(), dim = op.getDimension();
    int64_t length = type.getDimSize(dim);
    SmallVector<int64_t> window(rank, 1), strides(rank, 1), padding(2 * rank, 0);
    window[dim] = std::max<int64_t>(length, 1);
    padding[2 * dim + (op.getReverse() ? 1 : 0)] = window[dim] - 1;
    state.name = OperationName("stablehlo.reduce_window", context);
    addInitAndCombiner(op.getOperand(), op.getKind(), state);
    state.addAttribute("window_dimensions",
                       DenseI64ArrayAttr::get(context, window));
    state.addAttribute("window_strides", DenseI64ArrayAttr::get(context, strides));
    state.addAttribute("padding", paddingPairs(padding));
  }

  /// hlo.reduce_window's attributes are StableHLO's but for the padding,
  /// which StableHLO takes as an N x 2 tensor. Padding and holes hold the
  /// combiner's identity in both.
  void translateReduceWindow(hlo::ReduceWindowOp op, OperationState &state) {
    state.name = OperationName("stablehlo.reduce_window", context);
    addInitAndCombiner(op.getOperand(), op.getKind(), state);
    state.addAttribute("window_dimensions", op.getWindowDimensionsAttr());
    state.addAttribute("window_strides", op.getWindowStridesAttr());
    state.addAttribute("base_dilations", op.getBaseDilationsAttr());
    state.addAttribute("window_dilations", op.getWindowDilationsAttr());
    state.addAttribute("padding", paddingPairs(op.getPadding()));
  }

  /// (low, high) pairs, flattened, as StableHLO's `padding` tensor.
  DenseIntElementsAttr paddingPairs(ArrayRef<int64_t> flat) {
    auto type = RankedTensorType::get({(int64_t)flat.size() / 2, 2},
                                      IntegerType::get(context, 64));
    return DenseIntElementsAttr::get(type, flat);
  }

  /// The dimension numbers in StableHLO's raw form (every field named), the
  /// window as StableHLO's attributes, full precision as for dot_general.
  void translateConvolution(hlo::ConvolutionOp op, OperationState &state) {
    std::string dims;
    llvm::raw_string_ostream os(dims);
    auto list = [&](ArrayRef<int64_t> values) {
      os << "[";
      llvm::interleaveComma(values, os);
      os << "]";
    };
    os << "conv<raw input_batch_dimension = " << op.getInputBatchDimension()
       << ", input_feature_dimension = " << op.getInputFeatureDimension()
       << ", input_spatial_dimensions = ";
    list(op.getInputSpatialDimensions());
    os << ", kernel_input_feature_dimension = "
       << op.getKernelInputFeatureDimension()
       << ", kernel_output_feature_dimension = "
       << op.getKernelOutputFeatureDimension()
       << ", kernel_spatial_dimensions = ";
    list(op.getKernelSpatialDimensions());
    os << ", output_batch_dimension = " << op.getOutputBatchDimension()
       << ", output_feature_dimension = " << op.getOutputFeatureDimension()
       << ", output_spatial_dimensions = ";
    list(op.getOutputSpatialDimensions());
    os << ">";
    state.name = OperationName("stablehlo.convolution", context);
    state.addAttribute("dimension_numbers", stablehloAttr(dims));
    state.addAttribute("window_strides", op.getWindowStridesAttr());
    state.addAttribute("padding", paddingPairs(op.getPadding()));
    state.addAttribute("lhs_dilation", op.getLhsDilationAttr());
    state.addAttribute("rhs_dilation", op.getRhsDilationAttr());
    state.addAttribute("feature_group_count", op.getFeatureGroupCountAttr());
    state.addAttribute("batch_group_count", op.getBatchGroupCountAttr());
    Attribute highest = stablehloAttr("precision HIGHEST");
    state.addAttribute("precision_config",
                       ArrayAttr::get(context, {highest, highest}));
  }

  /// Both clamp a start index so that the slice lies inside the operand.
  void translateGather(hlo::GatherOp op, OperationState &state) {
    state.name = OperationName("stablehlo.gather", context);
    state.addAttribute(
        "dimension_numbers",
        dimensionNumbers("gather",
                         {{"offset_dims", op.getOffsetDims()},
                          {"collapsed_slice_dims", op.getCollapsedSliceDims()},
                          {"start_index_map", op.getStartIndexMap()}},
                         op.getIndexVectorDim()));
    state.addAttribute("slice_sizes", op.getSliceSizesAttr());
    state.addAttribute("indices_are_sorted", builder.getBoolAttr(false));
  }

  /// Both skip an update window that does not lie inside the operand; the
  /// body combines the element with the update (set: the update wins).
  void translateScatter(hlo::ScatterOp op, OperationState &state) {
    state.name = OperationName("stablehlo.scatter", context);
    state.addAttribute(
        "scatter_dimension_numbers",
        dimensionNumbers(
            "scatter",
            {{"update_window_dims", op.getUpdateWindowDims()},
             {"inserted_window_dims", op.getInsertedWindowDims()},
             {"scatter_dims_to_operand_dims",
              op.getScatterDimsToOperandDims()}},
            op.getIndexVectorDim()));
    state.addAttribute("indices_are_sorted", builder.getBoolAttr(false));
    state.addAttribute("unique_indices", builder.getBoolAttr(false));
    auto scalar = RankedTensorType::get(
        {}, cast<RankedTensorType>(op.getOperand().getType()).getElementType());
    OpBuilder::InsertionGuard guard(builder);
    Block *block = builder.createBlock(state.addRegion(), {}, {scalar, scalar},
                                       {op.getLoc(), op.getLoc()});
    Value current = block->getArgument(0), update = block->getArgument(1);
    Value combined = update;
    switch (op.getKind()) {
    case hlo::ScatterKind::Set:
      break;
    case hlo::ScatterKind::Add:
      combined = create("stablehlo.add", {current, update}, scalar);
      break;
    case hlo::ScatterKind::Mul:
      combined = create("stablehlo.multiply", {current, update}, scalar);
      break;
    case hlo::ScatterKind::Min:
      combined = create("stablehlo.minimum", {current, update}, scalar);
      break;
    case hlo::ScatterKind::Max:
      combined = create("stablehlo.maximum", {current, update}, scalar);
      break;
    }
    OperationState yield(op.getLoc(), "stablehlo.return");
    yield.addOperands(combined);
    builder.create(yield);
  }

  /// stablehlo.sort with a comparator of numlir's order: ascending,
  /// lexicographic over the first `num_keys` operands, floats totally
  /// ordered with -0 == 0 and every NaN equal and above +inf.
  void translateSort(hlo::SortOp op, OperationState &state) {
    state.name = OperationName("stablehlo.sort", context);
    state.addAttribute("dimension", op.getDimensionAttr());
    state.addAttribute("is_stable", builder.getBoolAttr(op.getIsStable()));
    SmallVector<Type> scalars;
    SmallVector<Location> locs;
    for (Value input : op.getInputs()) {
      auto scalar = RankedTensorType::get(
          {}, cast<RankedTensorType>(input.getType()).getElementType());
      scalars.append({scalar, scalar});
      locs.append({op.getLoc(), op.getLoc()});
    }
    OpBuilder::InsertionGuard guard(builder);
    Block *block = builder.createBlock(state.addRegion(), {}, scalars, locs);
    auto i1 = RankedTensorType::get({}, builder.getI1Type());
    auto both = [&](StringRef name, Value x, Value y) {
      return create(name, {x, y}, i1);
    };
    Value less;
    for (int64_t key = op.getNumKeys() - 1; key >= 0; --key) {
      Value a = block->getArgument(2 * key), b = block->getArgument(2 * key + 1);
      Value keyLess = totalLess(a, b), keyGreater = totalLess(b, a);
      if (!less) {
        less = keyLess;
        continue;
      }
      // Equal in this key: neither is less; then the later keys decide.
      Value equal = create("stablehlo.not", {both("stablehlo.or", keyLess, keyGreater)}, i1);
      less = both("stablehlo.or", keyLess, both("stablehlo.and", equal, less));
    }
    OperationState yield(op.getLoc(), "stablehlo.return");
    yield.addOperands(less);
    builder.create(yield);
  }

  /// a < b in numlir's sort order on 0-d tensors.
  Value totalLess(Value a, Value b) {
    Type element = getElementTypeOrSelf(a.getType());
    if (!isa<FloatType>(element))
      return compare("LT", a, b, compareTypeOf(element));
    auto i1 = RankedTensorType::get({}, builder.getI1Type());
    Value aNumber = compare("EQ", a, a, "FLOAT");
    Value bNaN = compare("NE", b, b, "FLOAT");
    Value below = create("stablehlo.and", {aNumber, bNaN}, i1);
    return create("stablehlo.or", {compare("LT", a, b, "FLOAT"), below}, i1);
  }

  /// A generic op named `name` of `operands` with one result of `type`.
  Value create(StringRef name, ValueRange operands, Type type,
               ArrayRef<NamedAttribute> attributes = {}) {
    OperationState state(builder.getUnknownLoc(), name);
    state.addOperands(operands);
    state.addTypes(type);
    state.addAttributes(attributes);
    return builder.create(state)->getResult(0);
  }

  Value compare(StringRef direction, Value lhs, Value rhs, StringRef type) {
    auto i1 = RankedTensorType::get({}, builder.getI1Type());
    return create("stablehlo.compare", {lhs, rhs}, i1,
                  {builder.getNamedAttr(
                       "comparison_direction",
                       stablehloAttr(("comparison_direction " + direction).str())),
                   builder.getNamedAttr(
                       "compare_type",
                       stablehloAttr(("comparison_type " + type).str()))});
  }

  /// argmax/argmin as a reduce of (value, index) pairs. The body picks the
  /// pair that comes first in one total order, so any reduction tree gives
  /// numlir's answer: the extreme value, NaN above every number, and of
  /// equal values (NaNs included) the lowest index.
  Value translateArgReduce(hlo::ArgReduceOp op) {
    auto type = cast<RankedTensorType>(op.getOperand().getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    Type element = type.getElementType(), indexElement = resultType.getElementType();
    auto scalar = RankedTensorType::get({}, element);
    auto scalarIndex = RankedTensorType::get({}, indexElement);
    bool isMax = op.getKind() == hlo::ReduceKind::Max;
    bool isFloat = isa<FloatType>(element);
    StringRef compareType = compareTypeOf(element);
    Location loc = op.getLoc();

    Value iota = create("stablehlo.iota", {}, type.clone(indexElement),
                        {builder.getNamedAttr("iota_dimension",
                                              op.getDimensionAttr())});
    Value initValue = create("stablehlo.constant", {}, scalar,
                             {builder.getNamedAttr(
                                 "value", reduceIdentity(op.getKind(), scalar))});
    Value initIndex = create(
        "stablehlo.constant", {}, scalarIndex,
        {builder.getNamedAttr("value", DenseElementsAttr::get(
                                           scalarIndex, builder.getZeroAttr(indexElement)))});
    OperationState reduce(loc, "stablehlo.reduce");
    reduce.addOperands({op.getOperand(), iota, initValue, initIndex});
    reduce.addTypes({resultType.clone(element), resultType});
    reduce.addAttribute("dimensions",
                        DenseI64ArrayAttr::get(context, {op.getDimension()}));
    Region *body = reduce.addRegion();
    {
      OpBuilder::InsertionGuard guard(builder);
      Block *block = builder.createBlock(
          body, {}, {scalar, scalarIndex, scalar, scalarIndex}, {loc, loc, loc, loc});
      Value a = block->getArgument(0), aIndex = block->getArgument(1);
      Value b = block->getArgument(2), bIndex = block->getArgument(3);
      auto i1 = RankedTensorType::get({}, builder.getI1Type());
      auto both = [&](StringRef name, Value x, Value y) {
        return create(name, {x, y}, i1);
      };
      // b comes first: beyond a, or (a NaN b is not) for floats, or tied
      // (equal or both NaN) with a lower index.
      Value beyond = compare(isMax ? "GT" : "LT", b, a, compareType);
      Value tied = compare("EQ", b, a, compareType);
      if (isFloat) {
        Value aNaN = compare("NE", a, a, compareType);
        Value bNaN = compare("NE", b, b, compareType);
        Value aNumber = create("stablehlo.not", {aNaN}, i1);
        beyond = both("stablehlo.or", beyond, both("stablehlo.and", bNaN, aNumber));
        tied = both("stablehlo.or", tied, both("stablehlo.and", aNaN, bNaN));
      }
      Value lower = compare("LT", bIndex, aIndex, "SIGNED");
      Value takeB = both("stablehlo.or", beyond, both("stablehlo.and", tied, lower));
      Value value = create("stablehlo.select", {takeB, b, a}, scalar);
      Value index = create("stablehlo.select", {takeB, bIndex, aIndex}, scalarIndex);
      OperationState yield(loc, "stablehlo.return");
      yield.addOperands({value, index});
      builder.create(yield);
    }
    return builder.create(reduce)->getResult(1);
  }

  /// Adds `kind`'s identity on `operand`'s elements as the init operand and
  /// its combiner as the body on 0-d tensors.
  void addInitAndCombiner(Value operand, hlo::ReduceKind kind,
                          OperationState &state) {
    Location loc = state.location;
    Type element = cast<RankedTensorType>(operand.getType()).getElementType();
    auto scalar = RankedTensorType::get({}, element);
    OperationState init(loc, "stablehlo.constant");
    init.addTypes(scalar);
    init.addAttribute("value", reduceIdentity(kind, scalar));
    state.addOperands(builder.create(init)->getResult(0));

    OpBuilder::InsertionGuard guard(builder);
    Region *body = state.addRegion();
    Block *block = builder.createBlock(body, {}, {scalar, scalar}, {loc, loc});
    OperationState combine(loc, combinerName(kind));
    combine.addOperands(block->getArguments());
    combine.addTypes(scalar);
    OperationState yield(loc, "stablehlo.return");
    yield.addOperands(builder.create(combine)->getResult(0));
    builder.create(yield);
  }

  static StringRef combinerName(hlo::ReduceKind kind) {
    switch (kind) {
    case hlo::ReduceKind::Sum:
      return "stablehlo.add";
    case hlo::ReduceKind::Prod:
      return "stablehlo.multiply";
    case hlo::ReduceKind::Max:
      return "stablehlo.maximum";
    case hlo::ReduceKind::Min:
      return "stablehlo.minimum";
    case hlo::ReduceKind::And:
      return "stablehlo.and";
    case hlo::ReduceKind::Or:
      return "stablehlo.or";
    }
    llvm_unreachable("a reduce kind");
  }

  /// The 0-d tensor of the element that `kind` leaves unchanged: 0, 1,
  /// -inf/+inf for floats, the extremes for integers (bool's max is or).
  static DenseElementsAttr reduceIdentity(hlo::ReduceKind kind,
                                          RankedTensorType scalar) {
    Type element = scalar.getElementType();
    auto floatIdentity = [&](FloatType type) {
      const llvm::fltSemantics &semantics = type.getFloatSemantics();
      if (kind == hlo::ReduceKind::Sum)
        return APFloat::getZero(semantics);
      if (kind == hlo::ReduceKind::Prod)
        return APFloat(semantics, 1);
      return APFloat::getInf(semantics,
                             /*Negative=*/kind == hlo::ReduceKind::Max);
    };
    if (auto complex = dyn_cast<ComplexType>(element)) {
      // The verifier allows sum and prod only.
      auto part = cast<FloatType>(complex.getElementType());
      std::complex<APFloat> value(floatIdentity(part),
                                  APFloat::getZero(part.getFloatSemantics()));
      return DenseElementsAttr::get(scalar, ArrayRef(value));
    }
    if (auto floating = dyn_cast<FloatType>(element))
      return DenseElementsAttr::get(scalar, ArrayRef(floatIdentity(floating)));
    unsigned width = element.getIntOrFloatBitWidth();
    bool isUnsigned = element.isUnsignedInteger() || width == 1;
    APInt value =
        kind == hlo::ReduceKind::Prod ? APInt(width, 1)
        : kind == hlo::ReduceKind::And ? APInt::getAllOnes(width)
        : kind == hlo::ReduceKind::Max
            ? (isUnsigned ? APInt::getZero(width)
                          : APInt::getSignedMinValue(width))
        : kind == hlo::ReduceKind::Min
            ? (isUnsigned ? APInt::getMaxValue(width)
                          : APInt::getSignedMaxValue(width))
            : APInt::getZero(width); // sum, or
    return DenseElementsAttr::get(scalar, ArrayRef(value));
  }

  MLIRContext *context;
  OpBuilder builder;
};

/// numlir marks a donated argument with the output that may reuse its
/// buffer; PJRT reads the same fact from `tf.aliasing_output`.
void nameDonationsForPJRT(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (Attribute output = func.getArgAttr(i, "numlir.aliasing_output")) {
        func.removeArgAttr(i, "numlir.aliasing_output");
        func.setArgAttr(i, "tf.aliasing_output", output);
      }
  });
}

} // namespace

LogicalResult numlir::translateToStableHLO(ModuleOp module,
                                           llvm::raw_ostream &os) {
  MLIRContext *context = module.getContext();
  bool allowed = context->allowsUnregisteredDialects();
  context->allowUnregisteredDialects(true);
  OwningOpRef<ModuleOp> copy(module.clone());
  LogicalResult result = Translator(context).run(*copy);
  if (succeeded(result))
    nameDonationsForPJRT(*copy);
  if (succeeded(result))
    copy->print(os, OpPrintingFlags().printGenericOpForm());
  context->allowUnregisteredDialects(allowed);
  return result;
}

void numlir::registerToStableHLOTranslation() {
  TranslateFromMLIRRegistration registration(
      "hlo-to-stablehlo", "write numlir's hlo as StableHLO and CHLO",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin.module");
        return translateToStableHLO(module, os);
      },
      [](DialectRegistry &registry) {
        registry.insert<hlo::HLODialect, func::FuncDialect>();
      });
}
