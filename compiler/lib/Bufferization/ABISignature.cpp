//===- ABISignature.cpp - spelling of the CPU executable's buffers --------===//

#include "numlir/Bufferization/ABISignature.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string numlir::abiElementTypeName(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (auto complexType = dyn_cast<ComplexType>(type)) {
    Type part = complexType.getElementType();
    return part.isF32() ? "c64" : part.isF64() ? "c128" : "";
  }
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.getWidth() == 1)
      return "i1";
    return (intType.isUnsigned() ? "ui" : "i") +
           std::to_string(intType.getWidth());
  }
  return "";
}

std::string numlir::abiBufferName(ShapedType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << abiElementTypeName(type.getElementType()) << "[";
  llvm::interleave(type.getShape(), os, ",");
  os << "]";
  return text;
}
