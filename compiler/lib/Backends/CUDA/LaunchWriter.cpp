//===- LaunchWriter.cpp - a gpu.launch and the scalar code inside ---------===//
//
// The outlined kernel must take one pointer per buffer and nothing else, so
// whatever the launch reads besides buffers (views, constants, a dynamic
// slice's offsets) is rebuilt inside it, at the top of its body, where it
// dominates every use.
//
//===----------------------------------------------------------------------===//

#include "LaunchWriter.h"

#include "RowAnalysis.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace numlir::cuda::launches {

gpu::LaunchOp createLaunch(OpBuilder &builder, Location loc, int64_t grid,
                           int64_t block, TypeRange workgroupBuffers) {
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  Value one = constant(1);
  auto launch = gpu::LaunchOp::create(
      builder, loc, constant(grid), one, one, constant(block), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroupBuffers);
  builder.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(builder, loc);
  builder.setInsertionPointToStart(&launch.getBody().front());
  return launch;
}

void writeSerialLaunch(func::FuncOp kernel) {
  Block &body = kernel.getBody().front();
  OpBuilder builder(body.getTerminator());
  Location loc = kernel.getLoc();
  gpu::LaunchOp launch = createLaunch(builder, loc, 1, 1);
  Operation *end = launch.getBody().front().getTerminator();
  SmallVector<Operation *> moved;
  for (Operation &op : body.without_terminator())
    if (&op != launch.getOperation() &&
        !isa<memref::AllocOp, memref::GetGlobalOp>(op) &&
        !launch->isAncestor(&op) &&
        // the launch's own grid and block sizes
        !(!op.use_empty() && llvm::all_of(op.getUsers(), [&](Operation *user) {
          return user == launch.getOperation();
        })))
      moved.push_back(&op);
  for (Operation *op : moved)
    op->moveBefore(end);
}

LaunchWriter::LaunchWriter(OpBuilder &builder, Location loc,
                           const llvm::DenseSet<Value> &written)
    : b(builder), loc(loc), hoist(builder.getContext()), written(written) {
  Operation *anchor = arith::ConstantIndexOp::create(b, loc, 0);
  hoist.setInsertionPoint(anchor);
}

Value LaunchWriter::index(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

FailureOr<Value> LaunchWriter::materialize(Value value) {
  if (Value known = mapping.lookupOrNull(value))
    return known;
  Operation *def = value.getDefiningOp();
  if (!def || isa<memref::AllocOp, memref::GetGlobalOp>(def))
    return value;
  bool recomputable =
      isView(def) || (def->getNumRegions() == 0 && isMemoryEffectFree(def));
  if (auto load = dyn_cast<memref::LoadOp>(def))
    recomputable = !written.contains(rootBuffer(load.getMemRef()));
  if (!recomputable)
    return def->emitOpError()
           << "is used inside a GPU kernel but is not a buffer, a view, a "
              "pure value or a load of a buffer the kernel does not write";
  for (Value operand : def->getOperands())
    if (failed(materialize(operand)))
      return failure();
  Operation *clone = hoist.clone(*def, mapping);
  return clone->getResult(0);
}

SmallVector<Value> LaunchWriter::delinearize(Value linear,
                                             ArrayRef<int64_t> extents) {
  SmallVector<Value> indices(extents.size());
  for (int64_t i = int64_t(extents.size()) - 1; i >= 0; --i) {
    Value extent = index(extents[i]);
    indices[i] =
        i == 0 ? linear : arith::RemUIOp::create(b, loc, linear, extent);
    if (i > 0)
      linear = arith::DivUIOp::create(b, loc, linear, extent);
  }
  return indices;
}

FailureOr<Value> LaunchWriter::load(linalg::GenericOp op, OpOperand &operand,
                                    ArrayRef<Value> ivs) {
  FailureOr<Value> source = materialize(operand.get());
  if (failed(source))
    return failure();
  if (!isa<MemRefType>(source->getType()))
    return *source; // a scalar operand (linalg.fill's value)
  SmallVector<Value> indices = apply(op.getMatchingIndexingMap(&operand), ivs);
  return memref::LoadOp::create(b, loc, *source, indices).getResult();
}

LogicalResult LaunchWriter::store(linalg::GenericOp op, OpOperand &operand,
                                  Value value, ArrayRef<Value> ivs) {
  FailureOr<Value> target = materialize(operand.get());
  if (failed(target))
    return failure();
  SmallVector<Value> indices = apply(op.getMatchingIndexingMap(&operand), ivs);
  memref::StoreOp::create(b, loc, value, *target, indices);
  return success();
}

FailureOr<SmallVector<Value>> LaunchWriter::body(linalg::GenericOp op,
                                                 ArrayRef<Value> ivs,
                                                 ArrayRef<Value> outputs) {
  SmallVector<Value> inputs;
  for (OpOperand *input : op.getDpsInputOperands()) {
    FailureOr<Value> element = load(op, *input, ivs);
    if (failed(element))
      return failure();
    inputs.push_back(*element);
  }
  return bodyOf(op, ivs, inputs, outputs);
}

FailureOr<SmallVector<Value>> LaunchWriter::bodyOf(linalg::GenericOp op,
                                                   ArrayRef<Value> ivs,
                                                   ArrayRef<Value> inputs,
                                                   ArrayRef<Value> outputs) {
  Block &block = op.getRegion().front();
  IRMapping local;
  for (auto [i, input] : llvm::enumerate(inputs))
    local.map(block.getArgument(i), input);
  for (auto [i, output] : llvm::enumerate(outputs))
    local.map(block.getArgument(op.getNumDpsInputs() + i), output);
  for (Operation &inner : block.without_terminator()) {
    if (auto indexOp = dyn_cast<linalg::IndexOp>(inner)) {
      local.map(indexOp.getResult(), ivs[indexOp.getDim()]);
      continue;
    }
    // Values from outside the op (a buffer a gather reads, a constant)
    // are brought into the launch first.
    for (Value operand : inner.getOperands())
      if (!local.contains(operand) &&
          !op.getRegion().isAncestor(operand.getParentRegion())) {
        FailureOr<Value> outside = materialize(operand);
        if (failed(outside))
          return failure();
        local.map(operand, *outside);
      }
    b.clone(inner, local);
  }
  SmallVector<Value> yielded;
  for (Value value : block.getTerminator()->getOperands())
    yielded.push_back(local.lookupOrDefault(value));
  return yielded;
}

LogicalResult LaunchWriter::elementwise(linalg::GenericOp op,
                                        ArrayRef<Value> ivs) {
  SmallVector<Value> current;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    FailureOr<Value> element = load(op, init, ivs);
    if (failed(element))
      return failure();
    current.push_back(*element);
  }
  FailureOr<SmallVector<Value>> yielded = body(op, ivs, current);
  if (failed(yielded))
    return failure();
  for (auto [init, value] : llvm::zip_equal(op.getDpsInitsMutable(), *yielded))
    if (failed(store(op, init, value, ivs)))
      return failure();
  return success();
}

SmallVector<Value> LaunchWriter::apply(AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(ivs[dim.getPosition()]);
      continue;
    }
    if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      indices.push_back(index(constant.getValue()));
      continue;
    }
    auto single = AffineMap::get(map.getNumDims(), 0, expr);
    indices.push_back(affine::AffineApplyOp::create(b, loc, single, ivs));
  }
  return indices;
}

} // namespace numlir::cuda::launches
