//===- ABISignature.h - spelling of the CPU executable's buffers *- C++ -*-===//
//
// Internal to the CPU backend: cpu-record-abi-signature and
// cpu-emit-c-entry-point write the same signature string
// ("ui8[4];f32[]->i1[4]"), which the runtime parses to check the buffers it
// is given.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_BACKENDS_CPU_ABISIGNATURE_H
#define NUMLIR_LIB_BACKENDS_CPU_ABISIGNATURE_H

#include "mlir/IR/BuiltinTypes.h"
#include <string>

namespace numlir::cpu {

/// The element type as the runtime's signature parser spells it ("f32",
/// "ui8", "i1", "c64" for complex<f32>, ...); "" for a type the runtime
/// does not know.
std::string abiElementTypeName(mlir::Type type);

/// One buffer of the signature: element type and static shape, "f32[4,8]".
std::string abiBufferName(mlir::ShapedType type);

} // namespace numlir::cpu

#endif // NUMLIR_LIB_BACKENDS_CPU_ABISIGNATURE_H
