//===- HLO.h - the hlo dialect: dialect, attributes and ops -----*- C++ -*-===//

#ifndef NUMLIR_DIALECT_HLO_IR_HLO_H
#define NUMLIR_DIALECT_HLO_IR_HLO_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace numlir::hlo {
/// Bytes one element of `type` occupies in memory: a whole byte per started
/// 8 bits for integers and floats (1 for i1), two parts for a complex type
/// (8 for complex<f32>, as numpy's complex64); nullopt for any other type.
std::optional<int64_t> elementBytes(mlir::Type type);

/// Checks that each ranked tensor operand and result of `op` holds at most
/// 2^63 - 1 bytes, counting zero-size dims as 1.
mlir::LogicalResult verifyBoundedTensorSizes(mlir::Operation *op);

/// The C++ side of HLO_BoundedTensorSizes in HLODialect.td.
template <typename ConcreteType>
class BoundedTensorSizes
    : public mlir::OpTrait::TraitBase<ConcreteType, BoundedTensorSizes> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyBoundedTensorSizes(op);
  }
};

/// The C++ side of HLO_VerifyShapesFirst in HLOOps.td.
template <typename ConcreteType>
class VerifyShapesFirst
    : public mlir::OpTrait::TraitBase<ConcreteType, VerifyShapesFirst> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return llvm::cast<ConcreteType>(op).verifyShapes();
  }
};

/// The resource hlo's collectives read and write (HLOCollectiveOps.td).
struct CollectiveResource
    : public mlir::SideEffects::Resource::Base<CollectiveResource> {
  llvm::StringRef getName() final { return "hlo.collective"; }
};

/// The module attribute giving the number of replicas an SPMD module runs
/// on (pmap's); without it the count is not known yet.
inline constexpr llvm::StringLiteral kNumReplicasAttrName =
    "numlir.num_replicas";

/// The replica count of the module around `op`, if it records one.
std::optional<int64_t> numReplicasOf(mlir::Operation *op);
} // namespace numlir::hlo

#include "numlir/Dialect/HLO/IR/HLODialect.h.inc"
#include "numlir/Dialect/HLO/IR/HLOEnums.h.inc"

namespace numlir::hlo {
/// Checks that `kind` combines elements of `elementType` (hlo.reduce's and
/// hlo.all_reduce's rule): and/or take integers and i1, sum/prod no i1,
/// max/min no complex values.
mlir::LogicalResult verifyReduceKindFitsType(mlir::Operation *op,
                                             ReduceKind kind,
                                             mlir::Type elementType);
} // namespace numlir::hlo

#define GET_ATTRDEF_CLASSES
#include "numlir/Dialect/HLO/IR/HLOAttrs.h.inc"

#define GET_OP_CLASSES
#include "numlir/Dialect/HLO/IR/HLOOps.h.inc"

#endif // NUMLIR_DIALECT_HLO_IR_HLO_H
