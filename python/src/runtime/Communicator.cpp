//===- Communicator.cpp - SPMD launches over several devices --------------===//

#include "Communicator.h"

#include "Device.h"
#include "Executable.h"
#include "Status.h"

#include <nanobind/ndarray.h>

#include <string>

namespace nb = nanobind;
using namespace nb::literals;

namespace numlir::runtime {

Communicator::Communicator(nb::sequence devices, uint32_t timeoutMs,
                           size_t firstReplica, size_t numReplicas) {
  std::vector<nlrt_device *> handles;
  for (nb::handle item : devices) {
    Device *device = nullptr;
    if (!nb::try_cast<Device *>(item, device) || !device)
      throw nb::type_error(
          (std::string("Communicator takes numlir._runtime.Device objects, "
                       "got '") +
           Py_TYPE(item.ptr())->tp_name + "'")
              .c_str());
    this->devices.push_back(nb::borrow(item));
    handles.push_back(device->raw());
  }
  nlrt_communicator_options options = {};
  options.first_replica = firstReplica;
  options.num_replicas = numReplicas ? numReplicas : handles.size();
  options.timeout_ms = timeoutMs;
  nlrt_status status;
  {
    // Spanning processes, creation waits for the others (an MPI exchange).
    nb::gil_scoped_release release;
    status = nlrt_communicator_create(handles.data(), handles.size(), &options,
                                      &handle);
  }
  checkStatus(status);
  numLocal = handles.size();
}

Communicator::~Communicator() {
  nb::gil_scoped_release release; // the participants' threads join here
  nlrt_communicator_destroy(handle);
}

void Communicator::execute(nb::sequence executables, nb::sequence buffers) {
  if (nb::len(executables) != numLocal || nb::len(buffers) != numLocal)
    throw nb::value_error((std::string("an SPMD launch over ") +
                           std::to_string(numLocal) +
                           " devices takes one executable and one buffer "
                           "list per device, got " +
                           std::to_string(nb::len(executables)) + " and " +
                           std::to_string(nb::len(buffers)))
                              .c_str());
  std::vector<nb::ndarray<>> arrays; // alive while the GIL is released
  std::vector<nlrt_executable *> handles;
  std::vector<std::vector<void *>> pointers;
  std::vector<void *const *> perParticipant;
  size_t count = 0;
  for (size_t i = 0; i < numLocal; ++i) {
    Executable *executable = nullptr;
    nb::handle item = executables[i];
    if (!nb::try_cast<Executable *>(item, executable) || !executable)
      throw nb::type_error(
          (std::string("an SPMD launch takes numlir._runtime.Executable "
                       "objects, got '") +
           Py_TYPE(item.ptr())->tp_name + "'")
              .c_str());
    handles.push_back(executable->raw());
    pointers.push_back(executable->importBuffers(buffers[i], arrays));
    count = pointers.back().size();
  }
  for (const std::vector<void *> &list : pointers)
    perParticipant.push_back(list.data());
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = launch(handles.data(), perParticipant.data(), count);
  }
  checkStatus(status);
}

void registerCommunicator(nb::module_ &m) {
  nb::class_<Communicator>(m, "Communicator",
                           R"(Runs the copies of an SPMD executable (one per
device, compiled for as many replicas) at once; their collectives meet here.

    comm = Communicator([Device("cpu", 0), Device("cpu", 1)])
    comm.execute([exe0, exe1], [[x0, out0], [x1, out1]])

Each device gets a persistent thread that leads its thread team. A
participant waits at most `timeout_ms` for its peers at a collective (0: the
NUMLIR_COLLECTIVE_TIMEOUT environment variable in seconds, else 600 s).
Raises RuntimeError (COLLECTIVE_FAILED: ...) when the replicas diverge, time
out or one of them fails; the message names the collectives and lines.

With `num_replicas` above len(devices) the communicator spans processes
(MPI, after mpi_initialize): this process holds replicas [first_replica,
first_replica + len(devices)), and every process creates it, in the same
order.
)")
      .def(nb::init<nb::sequence, uint32_t, size_t, size_t>(), "devices"_a,
           "timeout_ms"_a = 0, "first_replica"_a = 0, "num_replicas"_a = 0)
      .def_prop_ro("size", &Communicator::size)
      .def("execute", &Communicator::execute, "executables"_a, "buffers"_a);
}

} // namespace numlir::runtime
