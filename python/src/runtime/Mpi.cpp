//===- Mpi.cpp - the runtime's MPI transport, from Python -----------------===//
//
// numlir.distributed.initialize loads libmpi through the runtime (which
// dlopens it), so the extension links no MPI and imports without one.
//
//===----------------------------------------------------------------------===//

#include "Communicator.h"
#include "Status.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

namespace nb = nanobind;
using namespace nb::literals;

namespace numlir::runtime {

static nb::dict mpiInitialize(std::optional<std::string> library) {
  nlrt_mpi_info info = {};
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = nlrt_mpi_initialize(library ? library->c_str() : nullptr, &info);
  }
  checkStatus(status);
  nb::dict result;
  result["rank"] = info.rank;
  result["size"] = info.size;
  result["initialized_here"] = bool(info.initialized_here);
  result["thread_level"] = info.thread_level;
  result["library"] = std::string(info.library);
  result["version"] = std::string(info.version);
  return result;
}

void registerMpi(nb::module_ &m) {
  m.def("mpi_initialize", &mpiInitialize, "library"_a = nb::none(),
        R"(Loads libmpi (a path or soname; None searches $NUMLIR_MPI_LIBRARY,
one already loaded, then the system loader) and initializes MPI unless it is
(by mpi4py, say). Returns {'rank', 'size', 'initialized_here',
'thread_level', 'library', 'version'}. Raises RuntimeError (UNAVAILABLE:
...) naming what is missing. Communicators with num_replicas above their
devices then span processes.)");
  m.def(
      "mpi_finalize",
      []() {
        nb::gil_scoped_release release;
        nlrt_mpi_finalize();
      },
      "Finalizes MPI if mpi_initialize initialized it and no communicator "
      "spanning processes is alive.");
}

} // namespace numlir::runtime
