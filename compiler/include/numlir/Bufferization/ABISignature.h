//===- ABISignature.h - spelling of an executable's buffers -----*- C++ -*-===//
//
// hlo-record-abi-signature and a backend's entry point (the CPU's
// cpu-emit-c-entry-point) write the same signature string
// ("ui8[4];f32[]->i1[4]"), which the runtime parses to check the buffers it
// is given.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BUFFERIZATION_ABISIGNATURE_H
#define NUMLIR_BUFFERIZATION_ABISIGNATURE_H

#include "mlir/IR/BuiltinTypes.h"
#include <string>

namespace numlir {

/// The element type as the runtime's signature parser spells it ("f32",
/// "ui8", "i1", "c64" for complex<f32>, ...); "" for a type the runtime
/// does not know.
std::string abiElementTypeName(mlir::Type type);

/// One buffer of the signature: element type and static shape, "f32[4,8]".
std::string abiBufferName(mlir::ShapedType type);

} // namespace numlir

#endif // NUMLIR_BUFFERIZATION_ABISIGNATURE_H
