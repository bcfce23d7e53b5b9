//===- HLOVerification.h - checks shared by hlo verifiers -------*- C++ -*-===//
//
// Internal to the dialect's C++: the rules that many ops' verifiers share,
// so that each is written, and worded in diagnostics, once.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_LIB_DIALECT_HLO_IR_HLOVERIFICATION_H
#define NUMLIR_LIB_DIALECT_HLO_IR_HLOVERIFICATION_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/STLExtras.h"
#include <utility>

namespace numlir::hlo {

/// Succeeds when the shaped types share one element type. Otherwise it
/// reports "lhs, rhs and result element types must be equal, got 'f32',
/// 'f16' and 'f32'", naming each (role, type) pair in order.
inline mlir::LogicalResult verifyEqualElementTypes(
    mlir::Operation *op,
    std::initializer_list<std::pair<llvm::StringRef, mlir::Type>> roles) {
  auto elementOf = [](mlir::Type type) {
    return llvm::cast<mlir::ShapedType>(type).getElementType();
  };
  mlir::Type first = elementOf(roles.begin()->second);
  if (llvm::all_of(roles,
                   [&](auto role) { return elementOf(role.second) == first; }))
    return mlir::success();
  // "a and b", "a, b and c".
  auto writeList = [&](mlir::InFlightDiagnostic &diag, auto write) {
    size_t index = 0, count = roles.size();
    for (const auto &role : roles) {
      if (index > 0)
        diag << (index + 1 == count ? " and " : ", ");
      write(role);
      ++index;
    }
  };
  mlir::InFlightDiagnostic diag = op->emitOpError();
  writeList(diag, [&](const auto &role) { diag << role.first; });
  diag << " element types must be equal, got ";
  writeList(diag, [&](const auto &role) { diag << elementOf(role.second); });
  return diag;
}

/// Succeeds when `region` ends in hlo.return of values of `types`;
/// otherwise reports the first mismatch, naming the region `name`.
mlir::LogicalResult verifyRegionReturns(mlir::Operation *op,
                                        mlir::Region &region,
                                        const llvm::Twine &name,
                                        mlir::TypeRange types);

} // namespace numlir::hlo

#endif // NUMLIR_LIB_DIALECT_HLO_IR_HLOVERIFICATION_H
