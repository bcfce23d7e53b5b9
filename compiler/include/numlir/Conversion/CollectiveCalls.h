//===- CollectiveCalls.h - collectives as calls into the runtime -*- C++ -*-===//
//
// convert-hlo-to-linalg turns each hlo collective into a call of its own
// private declaration, marked with the attributes below; cpu-emit-c-entry-point
// gives the declarations bodies that call through the slot
// `<entry>_collective` and writes the table `<entry>_collectives` the runtime
// reads at load (docs/runtime.md#collectives: the layout is the runtime's
// ABI, so the numbers here are fixed).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_CONVERSION_COLLECTIVECALLS_H
#define NUMLIR_CONVERSION_COLLECTIVECALLS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace numlir::collective_calls {

/// On a declaration: its record's index in the table (i64). The declaration
/// takes (operand, result) buffers in leading-dimension form (the gathered,
/// split or scattered dimension outermost), or only the result for
/// replica_id.
inline constexpr llvm::StringLiteral kIndexAttr = "numlir.collective";
/// The record's fields: op code, reduce kind (-1 for none), element type as
/// the runtime's nlrt_dtype, and the replica groups (i64 [groups, size]; for
/// collective_permute the [pairs, 2] (source, target) pairs).
inline constexpr llvm::StringLiteral kOpAttr = "numlir.collective_op";
inline constexpr llvm::StringLiteral kKindAttr = "numlir.collective_kind";
inline constexpr llvm::StringLiteral kDTypeAttr = "numlir.collective_dtype";
inline constexpr llvm::StringLiteral kGroupsAttr = "numlir.replica_groups";

/// Record op codes (the runtime refuses those it does not implement).
enum class CollectiveOpCode : int64_t {
  AllReduce = 0,
  ReplicaId = 1,
  AllGather = 2,
  AllToAll = 3,
  ReduceScatter = 4,
  CollectivePermute = 5,
};

/// The table's format version, its first word.
inline constexpr int64_t kTableVersion = 1;

/// The runtime's nlrt_dtype code (runtime.h) of an hlo element type, where
/// signless integers are signed; nullopt for types the runtime lacks.
inline std::optional<int64_t> runtimeDTypeCode(mlir::Type type) {
  if (type.isF16())
    return 0;
  if (type.isBF16())
    return 1;
  if (type.isF32())
    return 2;
  if (type.isF64())
    return 3;
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    unsigned width = integer.getWidth();
    if (width == 1)
      return 4;
    int64_t offset = width == 8 ? 0 : width == 16 ? 1 : width == 32 ? 2
                     : width == 64 ? 3 : -1;
    if (offset < 0)
      return std::nullopt;
    return (integer.isUnsigned() ? 9 : 5) + offset;
  }
  if (auto complex = llvm::dyn_cast<mlir::ComplexType>(type)) {
    if (complex.getElementType().isF32())
      return 13;
    if (complex.getElementType().isF64())
      return 14;
  }
  return std::nullopt;
}

} // namespace numlir::collective_calls

#endif // NUMLIR_CONVERSION_COLLECTIVECALLS_H
