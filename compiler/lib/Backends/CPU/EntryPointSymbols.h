//===- EntryPointSymbols.h - symbols the runtime finds in a CPU executable -*- C++ -*-===//
//
// Internal to the CPU backend: the pieces cpu-emit-c-entry-point builds its
// exported slots, tables and strings from, shared by the files that emit
// host callbacks, collectives and library calls (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_BACKENDS_CPU_ENTRYPOINTSYMBOLS_H
#define NUMLIR_LIB_BACKENDS_CPU_ENTRYPOINTSYMBOLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace numlir::cpu {
namespace entry_point {

/// An exported, writable function pointer `name` that the runtime points at
/// its own function when it loads the executable. It starts out at a
/// function that does nothing, so an executable loaded by anything else
/// still runs.
mlir::LLVM::GlobalOp createSlot(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::StringRef name,
                                mlir::LLVM::LLVMFunctionType type);

/// Gives the declaration `function` an internal body, an empty entry block
/// that `b` now inserts into (restored when the caller's guard goes).
mlir::Block *defineInternally(mlir::func::FuncOp function, mlir::OpBuilder &b);

/// The address of a static memref's first element as an !llvm.ptr.
mlir::Value alignedPointer(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value buffer);

/// A constant global `name` holding `values` (i64 words), exported unless
/// `internal`.
mlir::LLVM::GlobalOp createWordTable(mlir::OpBuilder &b, mlir::Location loc,
                                     llvm::StringRef name,
                                     llvm::ArrayRef<int64_t> values,
                                     bool internal = false);

/// A NUL-terminated constant string `name`, exported unless `internal`.
mlir::LLVM::GlobalOp createString(mlir::OpBuilder &b, mlir::Location loc,
                                  llvm::StringRef name, std::string text,
                                  bool internal = false);

/// Fails, with `message` at the call site, if a call of a declaration that
/// carries `attribute` runs inside a parallel loop or an OpenMP region,
/// where several threads of one replica would reach it.
mlir::LogicalResult checkCallsOutsideParallelRegions(mlir::ModuleOp module,
                                                     llvm::StringRef attribute,
                                                     llvm::StringRef message);

} // namespace entry_point

/// Gives every library-call declaration (numlir/Conversion/LibraryCalls.h)
/// a body that calls through `<entry>_library_call`, and writes
/// `<entry>_library_routines` (LibraryCallBodies.cpp).
mlir::LogicalResult emitLibraryCalls(mlir::ModuleOp module,
                                     llvm::StringRef entry, mlir::Location loc);

} // namespace numlir::cpu

#endif // NUMLIR_LIB_BACKENDS_CPU_ENTRYPOINTSYMBOLS_H
