//===- Status.h - nlrt_status to Python exceptions --------------*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_STATUS_H
#define NUMLIR_PYTHON_RUNTIME_STATUS_H

#include "numlir/runtime.h"

#include <stdexcept>
#include <string>

namespace numlir::runtime {

/// Raised as numlir._runtime.OutOfMemoryError (a MemoryError).
struct OutOfMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Raised as numlir._runtime.InvalidExecutableError (a RuntimeError).
struct InvalidExecutable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws "STATUS: last error message" unless `status` is OK: as
/// OutOfMemory, InvalidExecutable, or std::runtime_error (which nanobind
/// translates into RuntimeError) for the other statuses.
inline void checkStatus(nlrt_status status) {
  if (status == NLRT_OK)
    return;
  std::string message =
      std::string(nlrt_status_string(status)) + ": " + nlrt_last_error();
  if (status == NLRT_OUT_OF_MEMORY)
    throw OutOfMemory(message);
  if (status == NLRT_INVALID_EXECUTABLE)
    throw InvalidExecutable(message);
  throw std::runtime_error(message);
}

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_STATUS_H
