//===- ArenaSlots.h - arena members as LLVM sees allocations ----*- C++ -*-===//
//
// A temporary that assign-buffers puts in the arena would reach LLVM as a
// GEP of one shared base pointer, and LLVM then knows no two temporaries
// apart: on a training step its loop passes take twice as long proving what
// separate allocations told them for free.
// So each member comes from a slot call and its live range ends at a slot
// end call, the way malloc and free bracket a buffer:
//
//   %slot = func.call @__numlir_arena_slot(%arena, %offset, %bytes)
//         : (memref<?xi8>, index, index) -> memref<?xi8>
//   ...
//   func.call @__numlir_arena_slot_end(%slot) : (memref<?xi8>) -> ()
//
// cpu-convert-to-llvm lowers both calls to two out-of-line functions. The
// slot's result is `noalias`, as malloc's is; both bodies are an empty
// `asm sideeffect` with a memory clobber that takes the pointer, so LLVM
// can infer nothing about them and keeps every access of a member between
// its slot and its slot end: two members that share bytes are never live
// together (assign-buffers), so their accesses stay ordered through
// the calls, as accesses through malloc and free are.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BUFFERIZATION_ARENASLOTS_H
#define NUMLIR_BUFFERIZATION_ARENASLOTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
class LLVMTypeConverter;
} // namespace mlir

namespace numlir {

inline constexpr llvm::StringLiteral kArenaSlot = "__numlir_arena_slot";
inline constexpr llvm::StringLiteral kArenaSlotEnd = "__numlir_arena_slot_end";

/// A slot of `bytes` bytes at `offset` in `arena` (a 1-D i8 buffer), as a
/// `memref<?xi8>`; declares the slot functions in `module` when needed.
mlir::Value createArenaSlot(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ModuleOp module, mlir::Value arena,
                            int64_t offset, int64_t bytes);

/// Ends the live range of `slot`, a result of createArenaSlot.
void createArenaSlotEnd(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ModuleOp module, mlir::Value slot);

/// Replaces the slot functions' `func` declarations, if `module` has them,
/// with their LLVM definitions; an error if they are not as
/// createArenaSlot declares them.
mlir::LogicalResult defineArenaSlotFunctions(mlir::ModuleOp module);

/// Lowers the calls of the slot functions, ahead of func's call lowering.
void populateArenaSlotLoweringPatterns(mlir::LLVMTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);

} // namespace numlir

#endif // NUMLIR_BUFFERIZATION_ARENASLOTS_H
