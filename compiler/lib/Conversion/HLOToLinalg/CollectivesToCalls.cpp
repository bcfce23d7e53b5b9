//===- CollectivesToCalls.cpp - hlo collectives to calls on buffers -------===//
//
// The replicas of an SPMD module meet in the runtime, which exchanges dense
// buffers, so a collective leaves tensors here, as a host callback does: the
// operand is passed as its own buffer, read only (one-shot bufferization
// copies it only where its layout is not the identity), the result gets a
// fresh one, and the op becomes a call of a private declaration of its own
//
//   func.func private @__numlir_collective_0(memref<8xf32>, memref<8xf32>)
//       attributes {numlir.collective = 0 : i64, numlir.collective_op = 0 : i64,
//                   numlir.collective_kind = 0 : i64, numlir.collective_dtype = 2 : i64,
//                   numlir.replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
//
// whose attributes are the record cpu-emit-c-entry-point writes into the
// executable's collective table (CollectiveCalls.h). The runtime moves whole
// blocks of the outermost dimension, so all_gather, reduce_scatter and
// all_to_all first transpose their dimension outermost (linalg.transpose),
// and put the result back in place after the call (all_to_all: the received
// blocks go in front of concat_dim and merge into it). Each op gets its own
// declaration, at the op's location, so the runtime's messages name the line
// a replica stopped at. A call has unknown effects: nothing after this pass
// removes or reorders it.
//
//===----------------------------------------------------------------------===//

#include "Lowerings.h"

#include "numlir/Conversion/CollectiveCalls.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
namespace hlo = numlir::hlo;
namespace calls = numlir::collective_calls;

namespace {

/// The number of collective declarations the module has so far: the next
/// record's index.
int64_t nextRecordIndex(ModuleOp module) {
  int64_t count = 0;
  for (auto function : module.getOps<func::FuncOp>())
    if (function->hasAttr(calls::kIndexAttr))
      ++count;
  return count;
}

/// A new private declaration for one collective, carrying its record.
func::FuncOp declareCollective(ModuleOp module, Location loc,
                               calls::CollectiveOpCode code, int64_t kind,
                               int64_t dtype, DenseIntElementsAttr groups,
                               FunctionType type, OpBuilder &b) {
  int64_t index = nextRecordIndex(module);
  std::string name = "__numlir_collective_" + std::to_string(index);
  for (int suffix = 1; module.lookupSymbol(name); ++suffix)
    name = "__numlir_collective_" + std::to_string(index) + "_" +
           std::to_string(suffix);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto decl = func::FuncOp::create(b, loc, name, type);
  decl.setPrivate();
  decl->setAttr(calls::kIndexAttr, b.getI64IntegerAttr(index));
  decl->setAttr(calls::kOpAttr,
                b.getI64IntegerAttr(static_cast<int64_t>(code)));
  decl->setAttr(calls::kKindAttr, b.getI64IntegerAttr(kind));
  decl->setAttr(calls::kDTypeAttr, b.getI64IntegerAttr(dtype));
  if (groups)
    decl->setAttr(calls::kGroupsAttr, groups);
  return decl;
}

Value asTensor(OpBuilder &b, Location loc, RankedTensorType type,
               Value buffer) {
  return bufferization::ToTensorOp::create(b, loc, type, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

/// `value` with its dims permuted: result dim i is `value`'s dim perm[i].
Value transposed(OpBuilder &b, Location loc, Value value,
                 ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  Value init = numlir::hlo_to_linalg::emptyTensor(
      b, loc, RankedTensorType::get(shape, type.getElementType()));
  return linalg::TransposeOp::create(b, loc, value, init, perm)->getResult(0);
}

/// [dim, the other dims in order]: the permutation that brings `dim` first.
SmallVector<int64_t> leadingFirst(int64_t dim, int64_t rank) {
  SmallVector<int64_t> perm = {dim};
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      perm.push_back(d);
  return perm;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> result(perm.size());
  for (auto [i, d] : llvm::enumerate(perm))
    result[d] = static_cast<int64_t>(i);
  return result;
}

/// `tensor`'s own buffer, which the runtime only reads (its collective entry
/// takes `const void *operand`): no copy. The declaration takes an identity
/// layout, so one-shot bufferization copies only where the tensor's buffer
/// has another one (a slice, say).
Value readOnlyBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/true);
}

/// Emits the call of a new declaration for one collective: `operand` (a
/// converted tensor in leading-dimension form; null for replica_id) is passed
/// as its own buffer, the result buffer has `leadingShape` and the
/// converted element type `element`; returns the result as a tensor.
FailureOr<Value> callCollective(Operation *op, calls::CollectiveOpCode code,
                                int64_t kind, DenseIntElementsAttr groups,
                                Value operand, ArrayRef<int64_t> leadingShape,
                                Type element,
                                ConversionPatternRewriter &rewriter) {
  auto module = op->getParentOfType<ModuleOp>();
  Type hloElement =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  std::optional<int64_t> dtype = calls::runtimeDTypeCode(hloElement);
  if (!module || !dtype)
    return failure();
  Location loc = op->getLoc();
  SmallVector<Value> buffers;
  if (operand)
    buffers.push_back(readOnlyBuffer(rewriter, loc, operand));
  Value result = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(leadingShape, element));
  buffers.push_back(result);
  func::FuncOp callee = declareCollective(
      module, loc, code, kind, *dtype, groups,
      rewriter.getFunctionType(ValueRange(buffers).getTypes(), {}), rewriter);
  func::CallOp::create(rewriter, loc, callee, buffers);
  return asTensor(rewriter, loc, RankedTensorType::get(leadingShape, element),
                  result);
}

/// The element type of a converted tensor value.
Type elementOf(Value tensor) {
  return cast<RankedTensorType>(tensor.getType()).getElementType();
}

/// all_reduce and collective_permute: the result has the operand's shape,
/// which needs no rearranging.
template <typename OpT>
struct SameShapeCollectiveToCall : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpT::Adaptor;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto code = calls::CollectiveOpCode::CollectivePermute;
    int64_t kind = -1;
    DenseIntElementsAttr groups;
    if constexpr (std::is_same_v<OpT, hlo::AllReduceOp>) {
      code = calls::CollectiveOpCode::AllReduce;
      kind = static_cast<int64_t>(op.getKind());
      groups = op.getReplicaGroups();
    } else {
      groups = op.getPairs();
    }
    Value operand = adaptor.getOperand();
    FailureOr<Value> result = callCollective(
        op, code, kind, groups, operand,
        cast<RankedTensorType>(operand.getType()).getShape(), elementOf(operand),
        rewriter);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "no module or no runtime dtype");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// all_gather and reduce_scatter: the runtime concatenates or splits along
/// the outermost dim, so `dim` goes first and comes back after the call.
template <typename OpT>
struct BlockCollectiveToCall : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpT::Adaptor;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    constexpr bool gather = std::is_same_v<OpT, hlo::AllGatherOp>;
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    int64_t rank = cast<RankedTensorType>(operand.getType()).getRank();
    SmallVector<int64_t> perm = leadingFirst(op.getDim(), rank);
    Value leading = transposed(rewriter, loc, operand, perm);
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(leading.getType()).getShape());
    int64_t size = op.getReplicaGroups().getType().getShape()[1];
    shape[0] = gather ? shape[0] * size : shape[0] / size;
    int64_t kind = -1;
    if constexpr (!gather)
      kind = static_cast<int64_t>(op.getKind());
    FailureOr<Value> result = callCollective(
        op,
        gather ? calls::CollectiveOpCode::AllGather
               : calls::CollectiveOpCode::ReduceScatter,
        kind, op.getReplicaGroups(), leading, shape, elementOf(leading), rewriter);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "no module or no runtime dtype");
    rewriter.replaceOp(op, transposed(rewriter, loc, *result, inverse(perm)));
    return success();
  }
};

/// all_to_all: the runtime exchanges the outermost dim's blocks, so
/// `split_dim` goes first; the blocks received, [size, block...], then go
/// in front of `concat_dim` and merge into it.
struct AllToAllToCall : OpConversionPattern<hlo::AllToAllOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::AllToAllOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    auto type = cast<RankedTensorType>(operand.getType());
    int64_t rank = type.getRank(), split = op.getSplitDim(),
            concat = op.getConcatDim();
    int64_t size = op.getReplicaGroups().getType().getShape()[1];
    SmallVector<int64_t> perm = leadingFirst(split, rank);
    Value leading = transposed(rewriter, loc, operand, perm);
    ArrayRef<int64_t> leadingShape =
        cast<RankedTensorType>(leading.getType()).getShape();
    FailureOr<Value> exchanged =
        callCollective(op, calls::CollectiveOpCode::AllToAll, /*kind=*/-1,
                       op.getReplicaGroups(), leading, leadingShape,
                       elementOf(leading), rewriter);
    if (failed(exchanged))
      return rewriter.notifyMatchFailure(op, "no module or no runtime dtype");
    // [size * block, others] -> [size, block, others].
    SmallVector<int64_t> blocks = {size, leadingShape[0] / size};
    blocks.append(leadingShape.begin() + 1, leadingShape.end());
    SmallVector<ReassociationIndices> split2 = {{0, 1}};
    for (int64_t d = 2; d <= rank; ++d)
      split2.push_back({d});
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(blocks, type.getElementType()),
        *exchanged, split2);
    // Original dim order, with the block axis (0) just before concat_dim;
    // operand dim d sits at expanded index 1 + (its place in perm).
    SmallVector<int64_t> place = inverse(perm), order;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == concat)
        order.push_back(0);
      order.push_back(1 + place[d]);
    }
    Value arranged = transposed(rewriter, loc, expanded, order);
    SmallVector<ReassociationIndices> merge;
    for (int64_t d = 0, i = 0; d < rank; ++d) {
      if (d == concat) {
        merge.push_back({i, i + 1});
        i += 2;
      } else {
        merge.push_back({i++});
      }
    }
    RankedTensorType resultType = numlir::hlo_to_linalg::convertedTensorType(
        getTypeConverter(), op.getType());
    rewriter.replaceOp(op, tensor::CollapseShapeOp::create(
                               rewriter, loc, resultType, arranged, merge));
    return success();
  }
};

struct ReplicaIdToCall : OpConversionPattern<hlo::ReplicaIdOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(hlo::ReplicaIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = numlir::hlo_to_linalg::convertedTensorType(
        getTypeConverter(), op.getType());
    FailureOr<Value> result = callCollective(
        op, calls::CollectiveOpCode::ReplicaId, /*kind=*/-1,
        DenseIntElementsAttr(), Value(), type.getShape(),
        type.getElementType(), rewriter);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, "not inside a module");
    rewriter.replaceOp(op, *result);
    return success();
  }
};

} // namespace

void numlir::hlo_to_linalg::populateCollectivePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SameShapeCollectiveToCall<hlo::AllReduceOp>,
               SameShapeCollectiveToCall<hlo::CollectivePermuteOp>, ReplicaIdToCall,
               BlockCollectiveToCall<hlo::AllGatherOp>,
               BlockCollectiveToCall<hlo::ReduceScatterOp>, AllToAllToCall>(
      converter, patterns.getContext());
}
