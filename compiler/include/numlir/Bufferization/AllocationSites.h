//===- AllocationSites.h - the runtime's out-of-memory sites ----*- C++ -*-===//
//
// `<entry>_allocation_sites` lists, one line "<bytes> <type> <file:line:col>"
// per static heap allocation, where the user's code asked for each buffer, so that the runtime's out-of-memory
// error can name the line (docs/runtime.md). cpu-emit-c-entry-point writes
// it; passes that later replace allocations add their own lines.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BUFFERIZATION_ALLOCATIONSITES_H
#define NUMLIR_BUFFERIZATION_ALLOCATIONSITES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>
#include <string>

namespace numlir {

/// The suffix of the sites global after the entry's name.
inline constexpr llvm::StringLiteral kAllocationSitesSuffix = "_allocation_sites";

/// "file:line:col" of the first location inside `loc` that points at user
/// code, not at the module's own text; "" if none.
std::string userLocation(mlir::Location loc, mlir::ModuleOp module);

/// Bytes a static allocation of `type` takes (a whole byte per element of
/// fewer than 8 bits, as the LLVM lowering stores them), or nothing for
/// dynamic shapes, elements that are not integers, floats or complex, and
/// sizes that overflow.
std::optional<int64_t> staticAllocationBytes(mlir::MemRefType type);

/// Appends `lines` to the module's sites global, if it has one.
void appendAllocationSites(mlir::ModuleOp module, llvm::ArrayRef<std::string> lines);

} // namespace numlir

#endif // NUMLIR_BUFFERIZATION_ALLOCATIONSITES_H
