//===- LibraryCalls.h - hlo.custom_call as calls into the runtime -*- C++ -*-===//
//
// convert-hlo-to-linalg turns each hlo.custom_call into a call of a private
// declaration marked with the attributes below; cpu-emit-c-entry-point gives
// the declarations bodies that call through the slot `<entry>_library_call`
// with a descriptor of the call's buffers, and lists the routines in
// `<entry>_library_routines`, which the runtime checks at load
// (docs/runtime.md#library-calls: the layout is the runtime's ABI, so the
// numbers here are fixed).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_CONVERSION_LIBRARYCALLS_H
#define NUMLIR_CONVERSION_LIBRARYCALLS_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace numlir::library_calls {

/// On a declaration: the routine's name (string), its config (i64 array)
/// and how many of its buffer arguments are operands (i64); the rest are
/// results.
inline constexpr llvm::StringLiteral kRoutineAttr = "numlir.library_routine";
inline constexpr llvm::StringLiteral kConfigAttr = "numlir.library_config";
inline constexpr llvm::StringLiteral kOperandsAttr = "numlir.library_operands";

/// The descriptor's format version, its first word.
inline constexpr int64_t kDescriptorVersion = 1;

} // namespace numlir::library_calls

#endif // NUMLIR_CONVERSION_LIBRARYCALLS_H
