//===- Executable.h - a loaded nlrt_executable with checked execute -*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_EXECUTABLE_H
#define NUMLIR_PYTHON_RUNTIME_EXECUTABLE_H

#include "numlir/runtime.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>
#include <vector>

namespace numlir::runtime {

/// Owns one nlrt_executable. The signature is read once at construction so
/// that execute() compares arrays against plain structs.
class Executable {
public:
  /// Takes ownership of `handle`.
  explicit Executable(nlrt_executable *handle);
  Executable(Executable &&other) noexcept;
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;
  Executable &operator=(Executable &&) = delete;
  ~Executable();

  size_t numInputs() const { return numInputs_; }
  size_t numOutputs() const { return specs.size() - numInputs_; }
  const char *signature() const { return nlrt_executable_signature(handle); }
  const char *entry() const { return nlrt_executable_entry(handle); }

  /// [(dtype name, shape tuple), ...] for the inputs or the outputs.
  nanobind::list inputSpecs() const { return specList(0, numInputs_); }
  nanobind::list outputSpecs() const {
    return specList(numInputs_, specs.size());
  }

  /// Checks `buffers` (a list or tuple of arrays, inputs then outputs)
  /// against the signature, then runs the entry with the GIL released.
  /// Mismatches raise ValueError; runtime failures raise RuntimeError.
  void execute(nanobind::handle buffers) const;

  /// Checks `buffers` as execute() does and returns their data pointers;
  /// the imported arrays, appended to `arrays`, keep the memory alive.
  std::vector<void *> importBuffers(nanobind::handle buffers,
                                    std::vector<nanobind::ndarray<>> &arrays) const;

  nlrt_executable *raw() const { return handle; }

  /// Runs on numlir._runtime.Buffer objects (inputs, then outputs), each on
  /// this executable's device and of its buffer's size.
  void executeBuffers(nanobind::handle buffers) const;

private:
  struct Spec {
    nlrt_dtype dtype;
    const int64_t *dims; // owned by the nlrt_executable
    size_t rank;
  };

  nanobind::list specList(size_t begin, size_t end) const;
  std::string describe(size_t index) const;
  std::string expected(size_t index) const;
  bool matches(size_t index, const nanobind::ndarray<> &array) const;
  [[noreturn]] void throwUnusable(size_t index, nanobind::handle item) const;

  nlrt_executable *handle;
  std::vector<Spec> specs; // inputs, then outputs
  size_t numInputs_;
};

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_EXECUTABLE_H
