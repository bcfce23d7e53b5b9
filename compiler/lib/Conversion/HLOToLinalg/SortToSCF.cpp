//===- SortToSCF.cpp - hlo.sort to a bottom-up merge sort on tensors ------===//
//
// Every row along the sort dimension (one per index of the other dims, in
// an scf.for nest) is sorted by a bottom-up merge sort: pass p merges runs
// of 2^p elements from a source into a destination. The first pass reads
// the operand and writes the result tensor; the others ping-pong between
// the result and a one-row scratch tensor, two passes per scf.for
// iteration so that the loop carries each tensor in its own iter_arg and
// bufferization updates both in place. With an odd number of passes left,
// the last one merges runs longer than the row, i.e. copies it. The merge
// takes the left element unless the right one is strictly less, so the
// sort is always stable. O(n log n) compares and moves per row.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

/// `a < b` in the sort order of the original element type `element`:
/// signed or unsigned for integers; for floats -0.0 == 0.0 and every NaN
/// is above +inf and equal to the other NaNs (as jax.lax.sort).
Value lessThan(OpBuilder &b, Location loc, Type element, Value a, Value c) {
  if (isa<FloatType>(element)) {
    Value ordered =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a, c);
    Value aIsNumber =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, a, a);
    Value cIsNaN =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, c, c);
    Value numberBelowNaN = arith::AndIOp::create(b, loc, aIsNumber, cIsNaN);
    return arith::OrIOp::create(b, loc, ordered, numberBelowNaN);
  }
  bool isUnsigned = element.isUnsignedInteger() || element.isInteger(1);
  return arith::CmpIOp::create(
      b, loc, isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
      a, c);
}

/// Lexicographic `a < b` over the keys.
Value lexLessThan(OpBuilder &b, Location loc, ArrayRef<Type> elements,
                  ValueRange a, ValueRange c) {
  Value result = lessThan(b, loc, elements.back(), a.back(), c.back());
  for (int64_t i = static_cast<int64_t>(elements.size()) - 2; i >= 0; --i) {
    Value less = lessThan(b, loc, elements[i], a[i], c[i]);
    Value greater = lessThan(b, loc, elements[i], c[i], a[i]);
    Value notGreater = arith::XOrIOp::create(
        b, loc, greater, arith::ConstantIntOp::create(b, loc, 1, 1));
    Value tieThenRest = arith::AndIOp::create(b, loc, notGreater, result);
    result = arith::OrIOp::create(b, loc, less, tieThenRest);
  }
  return result;
}

/// Addresses element `k` of the current row: in a full-shape tensor, the
/// outer loops' indices with `k` at the sort dimension; in the one-row
/// scratch tensor, just `k`.
struct RowIndexer {
  SmallVector<Value> outer; // indices of the other dims, in order
  int64_t dim;

  SmallVector<Value> full(Value k) const {
    SmallVector<Value> indices(outer);
    indices.insert(indices.begin() + dim, k);
    return indices;
  }
  SmallVector<Value> at(Value k, bool isRow) const {
    return isRow ? SmallVector<Value>{k} : full(k);
  }
};

struct SortLowering : OpConversionPattern<hlo::SortOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::SortOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange inputs = adaptor.getInputs();
    auto type = cast<RankedTensorType>(inputs.front().getType());
    int64_t dim = op.getDimension();
    int64_t n = type.getDimSize(dim);
    if (n <= 1 || type.getNumElements() == 0) {
      rewriter.replaceOp(op, inputs);
      return success();
    }

    Location loc = op.getLoc();
    int64_t numKeys = op.getNumKeys();
    SmallVector<Type> keyElements;
    for (Value key : op.getInputs().take_front(numKeys))
      keyElements.push_back(getElementTypeOrSelf(key.getType()));

    // Passes needed to merge runs of 1 into one run of n, the first one
    // outside the pair loop.
    int64_t numPasses = llvm::Log2_64_Ceil(n);
    int64_t numPairs = numPasses / 2;

    auto index = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };

    // Merges runs of `width` of the current row of `srcs` into `dsts`.
    auto mergePass = [&](OpBuilder &b, const RowIndexer &rows, ValueRange srcs,
                         bool srcIsRow, ValueRange dsts, bool dstIsRow,
                         Value width) -> SmallVector<Value> {
      Value zero = index(b, 0), one = index(b, 1), size = index(b, n);
      Value last = index(b, n - 1);
      Value step = arith::ShLIOp::create(b, loc, width, one);
      auto runs = scf::ForOp::create(
          b, loc, zero, size, step, dsts,
          [&](OpBuilder &b, Location loc, Value lo, ValueRange dsts) {
            Value mid = arith::MinUIOp::create(
                b, loc, arith::AddIOp::create(b, loc, lo, width), size);
            Value hi = arith::MinUIOp::create(
                b, loc, arith::AddIOp::create(b, loc, lo, step), size);
            SmallVector<Value> init{lo, mid};
            llvm::append_range(init, dsts);
            auto merge = scf::ForOp::create(
                b, loc, lo, hi, one, init,
                [&](OpBuilder &b, Location loc, Value k, ValueRange args) {
                  Value i = args[0], j = args[1];
                  ValueRange outs = args.drop_front(2);
                  Value ic = arith::MinUIOp::create(b, loc, i, last);
                  Value jc = arith::MinUIOp::create(b, loc, j, last);
                  SmallVector<Value> left, right;
                  for (Value key : srcs.take_front(numKeys)) {
                    left.push_back(tensor::ExtractOp::create(
                        b, loc, key, rows.at(ic, srcIsRow)));
                    right.push_back(tensor::ExtractOp::create(
                        b, loc, key, rows.at(jc, srcIsRow)));
                  }
                  Value rightLess =
                      lexLessThan(b, loc, keyElements, right, left);
                  Value leftDone = arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::uge, i, mid);
                  Value rightLeft = arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::ult, j, hi);
                  Value takeRight = arith::OrIOp::create(
                      b, loc, leftDone,
                      arith::AndIOp::create(b, loc, rightLeft, rightLess));
                  Value from = arith::SelectOp::create(b, loc, takeRight, jc, ic);

                  SmallVector<Value> yielded{
                      arith::SelectOp::create(
                          b, loc, takeRight, i,
                          arith::AddIOp::create(b, loc, i, one)),
                      arith::SelectOp::create(
                          b, loc, takeRight,
                          arith::AddIOp::create(b, loc, j, one), j)};
                  for (auto [pos, src] : llvm::enumerate(srcs)) {
                    Value value =
                        pos < static_cast<size_t>(numKeys)
                            ? Value(arith::SelectOp::create(
                                  b, loc, takeRight, right[pos], left[pos]))
                            : Value(tensor::ExtractOp::create(
                                  b, loc, src, rows.at(from, srcIsRow)));
                    yielded.push_back(tensor::InsertOp::create(
                        b, loc, value, outs[pos], rows.at(k, dstIsRow)));
                  }
                  scf::YieldOp::create(b, loc, yielded);
                });
            scf::YieldOp::create(b, loc, merge.getResults().drop_front(2));
          });
      return SmallVector<Value>(runs.getResults());
    };

    // The loop nest over the other dims carries the results and the
    // scratch rows.
    size_t numInputs = inputs.size();
    SmallVector<Value> lbs, ubs, steps, iterArgs;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (d == dim)
        continue;
      lbs.push_back(index(rewriter, 0));
      ubs.push_back(index(rewriter, type.getDimSize(d)));
      steps.push_back(index(rewriter, 1));
    }
    // bufferization.alloc_tensor, unlike tensor.empty, is never merged by
    // CSE, so every carried tensor gets a buffer of its own.
    auto alloc = [&](RankedTensorType type) -> Value {
      return bufferization::AllocTensorOp::create(rewriter, loc, type,
                                                  ValueRange{});
    };
    for (Value input : inputs)
      iterArgs.push_back(alloc(cast<RankedTensorType>(input.getType())));
    for (Value input : inputs)
      iterArgs.push_back(alloc(
          RankedTensorType::get({n}, getElementTypeOrSelf(input))));

    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, iterArgs,
        [&](OpBuilder &b, Location loc, ValueRange ivs,
            ValueRange args) -> scf::ValueVector {
          RowIndexer rows{llvm::to_vector(ivs), dim};
          SmallVector<Value> results = mergePass(
              b, rows, inputs, /*srcIsRow=*/false, args.take_front(numInputs),
              /*dstIsRow=*/false, index(b, 1));
          SmallVector<Value> pairArgs(results);
          llvm::append_range(pairArgs, args.drop_front(numInputs));
          auto pairs = scf::ForOp::create(
              b, loc, index(b, 0), index(b, numPairs), index(b, 1), pairArgs,
              [&](OpBuilder &b, Location loc, Value pair, ValueRange args) {
                // Widths 2^(2 pair + 1) into the scratch, then twice that
                // back into the results.
                Value shift = arith::AddIOp::create(
                    b, loc, arith::ShLIOp::create(b, loc, pair, index(b, 1)),
                    index(b, 1));
                Value width = arith::ShLIOp::create(b, loc, index(b, 1), shift);
                ValueRange full = args.take_front(numInputs);
                ValueRange scratch = args.drop_front(numInputs);
                SmallVector<Value> newScratch =
                    mergePass(b, rows, full, false, scratch, true, width);
                Value doubled =
                    arith::ShLIOp::create(b, loc, width, index(b, 1));
                SmallVector<Value> yielded =
                    mergePass(b, rows, newScratch, true, full, false, doubled);
                llvm::append_range(yielded, newScratch);
                scf::YieldOp::create(b, loc, yielded);
              });
          return scf::ValueVector(pairs.getResults());
        });
    SmallVector<Value> results(nest.results.begin(),
                               nest.results.begin() + numInputs);
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateSortPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SortLowering>(converter, patterns.getContext());
}
