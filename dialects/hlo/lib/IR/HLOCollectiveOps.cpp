//===- HLOCollectiveOps.cpp - verifiers of hlo's collectives --------------===//

#include "HLOFormatting.h"

#include "numlir/Dialect/HLO/IR/HLO.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace numlir::hlo;

std::optional<int64_t> numlir::hlo::numReplicasOf(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto count = parent->getAttrOfType<IntegerAttr>(kNumReplicasAttrName))
      return count.getInt();
  return std::nullopt;
}

/// Groups are non-empty rows of distinct, non-negative ids; where the module
/// records its replica count, the ids are below it and cover every replica
/// (each replica belongs to exactly one group).
static LogicalResult verifyReplicaGroups(Operation *op,
                                         DenseIntElementsAttr groups) {
  ArrayRef<int64_t> shape = groups.getType().getShape();
  if (shape.size() != 2)
    return op->emitOpError("replica groups must be a [groups, size] array, "
                           "got shape ")
           << listString(shape);
  if (shape[0] == 0 || shape[1] == 0)
    return op->emitOpError("needs at least one replica group of at least "
                           "one replica, got shape ")
           << listString(shape);
  std::optional<int64_t> numReplicas = numReplicasOf(op);
  llvm::DenseSet<int64_t> seen;
  for (int64_t id : groups.getValues<int64_t>()) {
    if (id < 0)
      return op->emitOpError("replica id ") << id << " is negative";
    if (numReplicas && id >= *numReplicas)
      return op->emitOpError("replica id ")
             << id << " is out of range for a module of " << *numReplicas
             << " replicas";
    if (!seen.insert(id).second)
      return op->emitOpError("replica id ")
             << id << " appears in more than one place of the groups";
  }
  if (numReplicas && static_cast<int64_t>(seen.size()) != *numReplicas)
    return op->emitOpError("replica groups name ")
           << seen.size() << " of the module's " << *numReplicas
           << " replicas; every replica must be in one group";
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())))
    return failure();
  return verifyReduceKindFitsType(*this, getKind(),
                                  getType().getElementType());
}

/// The members per group of a verified `[groups, size]` attribute.
static int64_t groupSize(DenseIntElementsAttr groups) {
  return groups.getType().getShape()[1];
}

/// Checks that `dim` is a dimension of `type`, named `what` in messages.
static LogicalResult verifyCollectiveDim(Operation *op, StringRef what,
                                         int64_t dim, RankedTensorType type) {
  if (dim < 0 || dim >= type.getRank())
    return op->emitOpError() << what << " " << dim
                             << " is out of range for an operand of rank "
                             << type.getRank();
  return success();
}

/// Checks that the result has the operand's shape with `dims` scaled (a
/// positive factor multiplies, a negative one divides, evenly).
static LogicalResult
verifyScaledShape(Operation *op, RankedTensorType operand,
                  RankedTensorType result,
                  ArrayRef<std::pair<int64_t, int64_t>> scaling) {
  if (operand.getElementType() != result.getElementType())
    return op->emitOpError("operand and result element types must be equal, got ")
           << operand.getElementType() << " and " << result.getElementType();
  SmallVector<int64_t> expected(operand.getShape());
  for (auto [dim, factor] : scaling) {
    if (factor > 0) {
      expected[dim] *= factor;
      continue;
    }
    if (expected[dim] % -factor != 0)
      return op->emitOpError("operand dimension ")
             << dim << " of size " << expected[dim]
             << " does not divide into the " << -factor
             << " members of a replica group";
    expected[dim] /= -factor;
  }
  if (result.getShape() != ArrayRef(expected))
    return op->emitOpError("result shape ")
           << listString(result.getShape()) << " must be "
           << listString(expected);
  return success();
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())) ||
      failed(verifyCollectiveDim(*this, "gather dimension", getDim(),
                                 getOperand().getType())))
    return failure();
  return verifyScaledShape(*this, getOperand().getType(), getType(),
                           {{getDim(), groupSize(getReplicaGroups())}});
}

LogicalResult AllToAllOp::verify() {
  RankedTensorType operand = getOperand().getType();
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())) ||
      failed(verifyCollectiveDim(*this, "split dimension", getSplitDim(),
                                 operand)) ||
      failed(verifyCollectiveDim(*this, "concat dimension", getConcatDim(),
                                 operand)))
    return failure();
  int64_t size = groupSize(getReplicaGroups());
  return verifyScaledShape(*this, operand, getType(),
                           {{getSplitDim(), -size}, {getConcatDim(), size}});
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyReplicaGroups(*this, getReplicaGroups())) ||
      failed(verifyCollectiveDim(*this, "scatter dimension", getDim(),
                                 getOperand().getType())) ||
      failed(verifyReduceKindFitsType(*this, getKind(),
                                      getType().getElementType())))
    return failure();
  return verifyScaledShape(*this, getOperand().getType(), getType(),
                           {{getDim(), -groupSize(getReplicaGroups())}});
}

LogicalResult CollectivePermuteOp::verify() {
  DenseIntElementsAttr pairs = getPairs();
  ArrayRef<int64_t> shape = pairs.getType().getShape();
  if (shape.size() != 2 || shape[1] != 2)
    return emitOpError("pairs must be a [pairs, 2] array of (source, target), "
                       "got shape ")
           << listString(shape);
  std::optional<int64_t> numReplicas = numReplicasOf(*this);
  llvm::DenseSet<int64_t> sources, targets;
  SmallVector<int64_t> ids(pairs.getValues<int64_t>());
  for (size_t i = 0; i < ids.size(); i += 2) {
    for (int64_t id : {ids[i], ids[i + 1]}) {
      if (id < 0)
        return emitOpError("replica id ") << id << " is negative";
      if (numReplicas && id >= *numReplicas)
        return emitOpError("replica id ")
               << id << " is out of range for a module of " << *numReplicas
               << " replicas";
    }
    if (!sources.insert(ids[i]).second)
      return emitOpError("replica ") << ids[i] << " sends more than once";
    if (!targets.insert(ids[i + 1]).second)
      return emitOpError("replica ") << ids[i + 1] << " receives more than once";
  }
  return success();
}
