//===- DotGeneralToLinalg.cpp - hlo.dot_general to linalg contractions ----===//
//
// Canonical matrix products become linalg.matmul / linalg.batch_matmul,
// which later tiling and vectorization recognize; every other dimension
// numbering becomes a linalg.generic with the contracting dimensions as
// reduction iterators. Both accumulate into a zero-filled init. Complex
// products (no conjugation) are always generics, since the CPU's
// contraction kernels are for floats.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace numlir::hlo_to_linalg;
namespace hlo = numlir::hlo;

namespace {

enum class Canonical { None, Matmul, BatchMatmul };

/// Whether `op` is [M,K]x[K,N] or [B,M,K]x[B,K,N] in that dimension order.
Canonical classify(hlo::DotGeneralOp op) {
  int64_t lhsRank = op.getLhs().getType().getRank();
  int64_t rhsRank = op.getRhs().getType().getRank();
  ArrayRef<int64_t> lb = op.getLhsBatchingDimensions();
  ArrayRef<int64_t> rb = op.getRhsBatchingDimensions();
  ArrayRef<int64_t> lc = op.getLhsContractingDimensions();
  ArrayRef<int64_t> rc = op.getRhsContractingDimensions();
  if (lhsRank == 2 && rhsRank == 2 && lb.empty() && rb.empty() &&
      lc == ArrayRef<int64_t>{1} && rc == ArrayRef<int64_t>{0})
    return Canonical::Matmul;
  if (lhsRank == 3 && rhsRank == 3 && lb == ArrayRef<int64_t>{0} &&
      rb == ArrayRef<int64_t>{0} && lc == ArrayRef<int64_t>{2} &&
      rc == ArrayRef<int64_t>{1})
    return Canonical::BatchMatmul;
  return Canonical::None;
}

/// The indexing map of one operand over the loop nest (batch dims, lhs free
/// dims, rhs free dims, contracting dims). `freeOffset` is where this
/// operand's free dims start in the loop nest.
AffineMap operandMap(int64_t rank, ArrayRef<int64_t> batch,
                     ArrayRef<int64_t> contracting, int64_t freeOffset,
                     int64_t contractingOffset, int64_t numLoops,
                     MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  int64_t nextFree = freeOffset;
  for (int64_t d = 0; d < rank; ++d) {
    const auto *b = llvm::find(batch, d);
    const auto *c = llvm::find(contracting, d);
    int64_t loop = b != batch.end()         ? b - batch.begin()
                   : c != contracting.end() ? contractingOffset +
                                                  (c - contracting.begin())
                                            : nextFree++;
    exprs.push_back(getAffineDimExpr(loop, ctx));
  }
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

struct DotGeneralLowering : OpConversionPattern<hlo::DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedTensorType(getTypeConverter(), op.getType());
    Location loc = op.getLoc();
    Type type = resultType.getElementType();
    bool isComplex = isa<ComplexType>(type);
    Value zero = zeroConstant(rewriter, loc, type);
    // The zero-filled accumulator, made only by lowerings that accumulate.
    auto zeroFilled = [&] {
      return linalg::FillOp::create(
                 rewriter, loc, ValueRange{zero},
                 ValueRange{emptyTensor(rewriter, loc, resultType)})
          .getResult(0);
    };
    ValueRange inputs = adaptor.getOperands();

    switch (isComplex ? Canonical::None : classify(op)) {
    case Canonical::Matmul:
      rewriter.replaceOp(op, linalg::MatmulOp::create(
                                 rewriter, loc, TypeRange{resultType}, inputs,
                                 ValueRange{zeroFilled()})
                                 ->getResult(0));
      return success();
    case Canonical::BatchMatmul:
      rewriter.replaceOp(op, linalg::BatchMatmulOp::create(
                                 rewriter, loc, TypeRange{resultType}, inputs,
                                 ValueRange{zeroFilled()})
                                 ->getResult(0));
      return success();
    case Canonical::None:
      break;
    }

    int64_t lhsRank = op.getLhs().getType().getRank();
    int64_t rhsRank = op.getRhs().getType().getRank();
    int64_t numBatch = op.getLhsBatchingDimensions().size();
    int64_t numContracting = op.getLhsContractingDimensions().size();
    int64_t numLhsFree = lhsRank - numBatch - numContracting;
    int64_t resultRank = resultType.getRank();
    int64_t numLoops = resultRank + numContracting;
    MLIRContext *ctx = getContext();
    SmallVector<AffineMap> maps = {
        operandMap(lhsRank, op.getLhsBatchingDimensions(),
                   op.getLhsContractingDimensions(), numBatch, resultRank,
                   numLoops, ctx),
        operandMap(rhsRank, op.getRhsBatchingDimensions(),
                   op.getRhsContractingDimensions(), numBatch + numLhsFree,
                   resultRank, numLoops, ctx),
        // The result is indexed by the loops before the contracting ones.
        // (Built explicitly: getMajorSubMap(0) is a null map for rank 0.)
        AffineMap::get(numLoops, 0,
                       AffineMap::getMultiDimIdentityMap(numLoops, ctx)
                           .getResults()
                           .take_front(resultRank),
                       ctx)};
    SmallVector<utils::IteratorType> iterators(resultRank,
                                               utils::IteratorType::parallel);
    iterators.append(numContracting, utils::IteratorType::reduction);
    // Without contracting dimensions each result element is one product:
    // write it into an empty tensor instead of accumulating into a filled
    // one. (A generic that reads its init is not elementwise, and
    // linalg-fuse-elementwise-ops would otherwise fuse it into a consumer's
    // loop nest and accumulate across the consumer's iterations.)
    if (numContracting == 0) {
      rewriter.replaceOpWithNewOp<linalg::GenericOp>(
          op, TypeRange{resultType}, inputs,
          ValueRange{emptyTensor(rewriter, loc, resultType)}, maps, iterators,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value product =
                isComplex
                    ? Value(complex::MulOp::create(b, l, args[0], args[1]))
                : isa<FloatType>(type)
                    ? Value(arith::MulFOp::create(b, l, args[0], args[1]))
                    : Value(arith::MulIOp::create(b, l, args[0], args[1]));
            linalg::YieldOp::create(b, l, product);
          });
      return success();
    }
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{resultType}, inputs, ValueRange{zeroFilled()}, maps,
        iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Location l = nestedLoc;
          Value sum;
          if (isComplex) {
            Value product = complex::MulOp::create(b, l, args[0], args[1]);
            sum = complex::AddOp::create(b, l, args[2], product);
          } else if (isa<FloatType>(type)) {
            Value product = arith::MulFOp::create(b, l, args[0], args[1]);
            sum = arith::AddFOp::create(b, l, args[2], product);
          } else {
            Value product = arith::MulIOp::create(b, l, args[0], args[1]);
            sum = arith::AddIOp::create(b, l, args[2], product);
          }
          linalg::YieldOp::create(b, l, sum);
        });
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateDotGeneralPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotGeneralLowering>(converter, patterns.getContext());
}
