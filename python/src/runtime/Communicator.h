//===- Communicator.h - SPMD launches over several devices ------*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_COMMUNICATOR_H
#define NUMLIR_PYTHON_RUNTIME_COMMUNICATOR_H

#include "numlir/runtime.h"

#include <nanobind/nanobind.h>

#include <cstdint>
#include <vector>

namespace numlir::runtime {

/// Owns one nlrt_communicator: a persistent thread per device, where the
/// copies of an SPMD executable run at once and meet in their collectives.
class Communicator {
public:
  /// `devices` are numlir._runtime.Device objects, one per participant:
  /// global replicas [firstReplica, firstReplica + len(devices)) of
  /// numReplicas (0: len(devices); more spans processes through MPI).
  Communicator(nanobind::sequence devices, uint32_t timeoutMs,
               size_t firstReplica, size_t numReplicas);
  Communicator(const Communicator &) = delete;
  Communicator &operator=(const Communicator &) = delete;
  ~Communicator();

  size_t size() const { return numLocal; }

  /// Runs executables[i] (numlir._runtime.Executable) on participant i with
  /// buffers[i] (arrays, inputs then outputs, checked as Executable.execute
  /// checks them), all at once, with the GIL released.
  void execute(nanobind::sequence executables, nanobind::sequence buffers);

  /// The launch itself, on checked buffers: participant i runs handles[i] on
  /// the `count` pointers buffers[i]. Call with the GIL released.
  nlrt_status launch(nlrt_executable *const *handles,
                     void *const *const *buffers, size_t count) {
    return nlrt_executable_execute_spmd(handle, numLocal, handles, buffers,
                                        count, nullptr);
  }

private:
  nlrt_communicator *handle = nullptr;
  size_t numLocal = 0;
  std::vector<nanobind::object> devices; // the Device objects stay alive
};

void registerCommunicator(nanobind::module_ &m);

/// mpi_initialize and mpi_finalize (Mpi.cpp).
void registerMpi(nanobind::module_ &m);

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_COMMUNICATOR_H
