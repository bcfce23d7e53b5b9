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
