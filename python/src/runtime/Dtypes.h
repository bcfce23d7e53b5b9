//===- Dtypes.h - runtime dtypes as DLPack dtypes and in messages -*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_DTYPES_H
#define NUMLIR_PYTHON_RUNTIME_DTYPES_H

#include "numlir/runtime.h"

#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>

namespace numlir::runtime {

/// The DLPack dtype of arrays holding `dtype` (i1 is an 8-bit bool).
nanobind::dlpack::dtype toDLPack(nlrt_dtype dtype);

/// The MLIR element type that spells `dtype` in hlo text, which the Python
/// side maps to numpy dtypes: the signature name ("f32", "ui8"), except
/// "complex<f32>" and "complex<f64>" for c64 and c128.
const char *mlirElementTypeName(nlrt_dtype dtype);

/// Whether an array of DLPack dtype `actual` may back a buffer of `expected`.
/// Exact, except that bf16 also accepts uint16 arrays of the raw bits
/// (NumPy has no bfloat16 of its own).
bool dtypeAccepts(nlrt_dtype expected, nanobind::dlpack::dtype actual);

/// "f32[4,8]" for a signature buffer.
std::string formatBuffer(nlrt_dtype dtype, const int64_t *dims, size_t rank);

/// The same spelling for an array ("f64[4,8]"); unknown dtypes are spelled
/// like DLPack ("complex64").
std::string formatArray(nanobind::dlpack::dtype dtype, const int64_t *dims,
                        size_t rank);

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_DTYPES_H
