//===- Status.h - nlrt_status to Python exceptions --------------*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_STATUS_H
#define NUMLIR_PYTHON_RUNTIME_STATUS_H

#include "numlir/runtime.h"

#include <stdexcept>
#include <string>

namespace numlir::runtime {

/// Throws RuntimeError("STATUS: last error message") unless `status` is OK.
/// nanobind translates std::runtime_error into Python's RuntimeError.
inline void checkStatus(nlrt_status status) {
  if (status == NLRT_OK)
    return;
  throw std::runtime_error(std::string(nlrt_status_string(status)) + ": " +
                           nlrt_last_error());
}

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_STATUS_H
