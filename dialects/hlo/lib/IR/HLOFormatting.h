//===- HLOFormatting.h - how hlo diagnostics spell lists --------*- C++ -*-===//
//
// Internal to the dialect's C++: the verifiers' messages and the windowed
// ops' custom syntax write shapes and dimension lists one way.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_DIALECT_HLO_IR_HLOFORMATTING_H
#define NUMLIR_LIB_DIALECT_HLO_IR_HLOFORMATTING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace numlir::hlo {

/// `[4, 3]`: a shape, a dimension list or any other list of integers.
inline std::string listString(llvm::ArrayRef<int64_t> values) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return result;
}

} // namespace numlir::hlo

#endif // NUMLIR_LIB_DIALECT_HLO_IR_HLOFORMATTING_H
