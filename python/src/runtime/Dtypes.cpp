//===- Dtypes.cpp - runtime dtypes as DLPack dtypes and in messages -------===//

#include "Dtypes.h"

namespace nb = nanobind;
using Code = nb::dlpack::dtype_code;

namespace numlir::runtime {

static nb::dlpack::dtype make(Code code, uint8_t bits) {
  nb::dlpack::dtype result;
  result.code = static_cast<uint8_t>(code);
  result.bits = bits;
  result.lanes = 1;
  return result;
}

nb::dlpack::dtype toDLPack(nlrt_dtype dtype) {
  switch (dtype) {
  case NLRT_DTYPE_F16:
    return make(Code::Float, 16);
  case NLRT_DTYPE_BF16:
    return make(Code::Bfloat, 16);
  case NLRT_DTYPE_F32:
    return make(Code::Float, 32);
  case NLRT_DTYPE_F64:
    return make(Code::Float, 64);
  case NLRT_DTYPE_I1:
    return make(Code::Bool, 8);
  case NLRT_DTYPE_I8:
    return make(Code::Int, 8);
  case NLRT_DTYPE_I16:
    return make(Code::Int, 16);
  case NLRT_DTYPE_I32:
    return make(Code::Int, 32);
  case NLRT_DTYPE_I64:
    return make(Code::Int, 64);
  case NLRT_DTYPE_UI8:
    return make(Code::UInt, 8);
  case NLRT_DTYPE_UI16:
    return make(Code::UInt, 16);
  case NLRT_DTYPE_UI32:
    return make(Code::UInt, 32);
  case NLRT_DTYPE_UI64:
    return make(Code::UInt, 64);
  case NLRT_DTYPE_C64:
    return make(Code::Complex, 64);
  case NLRT_DTYPE_C128:
    return make(Code::Complex, 128);
  }
  return {};
}

const char *mlirElementTypeName(nlrt_dtype dtype) {
  switch (dtype) {
  case NLRT_DTYPE_C64:
    return "complex<f32>";
  case NLRT_DTYPE_C128:
    return "complex<f64>";
  default:
    return nlrt_dtype_name(dtype);
  }
}

bool dtypeAccepts(nlrt_dtype expected, nb::dlpack::dtype actual) {
  if (actual == toDLPack(expected))
    return true;
  return expected == NLRT_DTYPE_BF16 && actual == make(Code::UInt, 16);
}

static std::string formatDims(std::string name, const int64_t *dims,
                              size_t rank) {
  name += '[';
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      name += ',';
    name += std::to_string(dims[i]);
  }
  name += ']';
  return name;
}

std::string formatBuffer(nlrt_dtype dtype, const int64_t *dims, size_t rank) {
  return formatDims(nlrt_dtype_name(dtype), dims, rank);
}

static std::string dlpackName(nb::dlpack::dtype dtype) {
  const char *prefix = "?";
  switch (static_cast<Code>(dtype.code)) {
  case Code::Int:
    prefix = "i";
    break;
  case Code::UInt:
    prefix = "ui";
    break;
  case Code::Float:
    prefix = "f";
    break;
  case Code::Bfloat:
    prefix = "bf";
    break;
  case Code::Bool:
    return "i1";
  case Code::Complex:
    prefix = "complex";
    break;
  default:
    prefix = "dtype";
    break;
  }
  std::string name = prefix + std::to_string(dtype.bits);
  if (dtype.lanes != 1)
    name += "x" + std::to_string(dtype.lanes);
  return name;
}

std::string formatArray(nb::dlpack::dtype dtype, const int64_t *dims,
                        size_t rank) {
  return formatDims(dlpackName(dtype), dims, rank);
}

} // namespace numlir::runtime
