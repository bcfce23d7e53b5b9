//===- RuntimeModule.cpp - numlir._runtime: Python over libnlrt -----------===//
//
// The binding layer only: classes and docstrings. It links libnlrt alone,
// never LLVM or MLIR, so it imports on machines that only run executables.
//
//===----------------------------------------------------------------------===//

#include "CallCache.h"
#include "PmapCalls.h"
#include "Communicator.h"
#include "Device.h"
#include "Executable.h"
#include "HostCallbacks.h"
#include "Image.h"
#include "Status.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include <dlfcn.h>

namespace nb = nanobind;
using namespace nb::literals;
using numlir::runtime::Buffer;
using numlir::runtime::Device;
using numlir::runtime::Executable;
using numlir::runtime::checkStatus;

/// Where the libnlrt.so this module is linked against lives.
static std::string libraryPath() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&nlrt_abi_version), &info) ||
      !info.dli_fname)
    throw std::runtime_error("cannot locate libnlrt.so");
  return info.dli_fname;
}

NB_MODULE(_runtime, m) {
  m.doc() = R"(The numlir runtime: load compiled executables and run them.

A thin layer over libnlrt's C ABI (numlir/runtime.h); see docs/runtime.md.

Example::

    import numpy as np
    from numlir import _runtime

    device = _runtime.Device("cpu")
    exe = device.load_file("add.so")         # "f32[4];f32[4]->f32[4]"
    a = np.ones(4, np.float32)
    out = np.empty(4, np.float32)
    exe.execute([a, a, out])                  # out == 2
)";

  if (nlrt_abi_version() != NLRT_ABI_VERSION)
    throw nb::import_error(
        ("numlir._runtime was built for runtime ABI " +
         std::to_string(NLRT_ABI_VERSION) + " but loaded libnlrt.so (" +
         libraryPath() + ") has ABI " + std::to_string(nlrt_abi_version()))
            .c_str());

  nb::exception<numlir::runtime::OutOfMemory>(
      m, "OutOfMemoryError", PyExc_MemoryError)
      .doc() = "A temporary buffer of an executable, or the runtime's own "
               "bookkeeping, could not be allocated; the message gives the "
               "size. The process and the executable remain usable.";
  nb::exception<numlir::runtime::InvalidExecutable>(
      m, "InvalidExecutableError", PyExc_RuntimeError)
      .doc() = "An executable image failed its checks (bad magic, format "
               "version, size, checksum or driver); nothing was loaded.";

  m.attr("ABI_VERSION") = NLRT_ABI_VERSION;
  m.attr("IMAGE_HEADER_SIZE") = NLRT_IMAGE_HEADER_SIZE;
  m.attr("IMAGE_FORMAT_VERSION") = NLRT_IMAGE_FORMAT_VERSION;
  m.def("wrap_image", &numlir::runtime::wrapImage, "payload"_a,
        "driver"_a = "cpu",
        nb::sig("def wrap_image(payload: collections.abc.Buffer, driver: str "
                "= 'cpu') -> bytes"),
        R"(The executable image of `payload` for `driver`: the checked
header (magic, format version, size, CRC-32 checksums, driver) followed by
the payload (for "cpu", an ELF shared object). This is what Device.load and
Device.load_file take; see docs/runtime.md for the format::

    image = _runtime.wrap_image(open("kernels.so", "rb").read())
)");
  m.def("unwrap_image", &numlir::runtime::unwrapImage, "image"_a,
        nb::sig("def unwrap_image(image: collections.abc.Buffer) -> "
                "tuple[str, bytes]"),
        R"((driver, payload) of a verified image, e.g. to inspect the ELF
object of a dumped executable with nm or objdump. Raises
InvalidExecutableError naming what is wrong::

    driver, so = _runtime.unwrap_image(open("f.executable.nlx", "rb").read())
)");
  m.def("release_cached_memory", &nlrt_release_cached_memory,
        "Frees the temporary buffers the runtime keeps for reuse; returns "
        "their bytes (NUMLIR_ALLOCATOR_CACHE_BYTES bounds them, default "
        "1 GiB).");
  m.def("cached_memory_bytes", &nlrt_cached_memory_bytes,
        "Bytes of freed temporary buffers the runtime keeps for reuse.");
  m.def(
      "host_buffer",
      [](size_t size) {
        void *data = nullptr;
        numlir::runtime::checkStatus(nlrt_host_buffer_allocate(size, &data));
        nb::capsule owner(data, [](void *p) noexcept { nlrt_host_buffer_free(p); });
        size_t shape[1] = {size};
        return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(data, 1, shape, owner)
            .cast();
      },
      "size"_a,
      R"(A uint8 numpy array of `size` bytes, 64-byte aligned, from the
runtime's allocator: when the array (and every view of it) is gone, a block
of 64 KiB or more is kept for reuse instead of being unmapped. The cpu
backend allocates large outputs here (`.view(dtype).reshape(shape)`), so a
loop that drops last call's result takes no page faults for the next one.
Raises OutOfMemoryError naming the size.)");
  numlir::runtime::defineHostCallbacks(m);
  numlir::runtime::defineCallCache(m);
  numlir::runtime::definePmapCallCache(m);
  m.attr("DEFAULT_ENTRY") = NLRT_DEFAULT_ENTRY;
  m.def(
      "library_routine_available",
      [](const std::string &routine) -> nb::object {
        if (nlrt_library_routine_available(routine.c_str()))
          return nb::none();
        return nb::str(nlrt_last_error());
      },
      "routine"_a,
      R"(None when executables may call the library routine `routine`
("lapack.potrf", "numlir.fft"; docs/runtime.md#library-calls) on this
machine, else the reason, e.g. that no LAPACK could be loaded. Loads the
library on first use.)");
  m.def(
      "set_lapack_library",
      [](const std::string &path) {
        checkStatus(nlrt_set_lapack_library(path.c_str()));
      },
      "path"_a,
      "Where the runtime looks for an ILP64 LAPACK (after NUMLIR_LAPACK).");
  m.def("library_path", &libraryPath,
        "The path of the libnlrt.so in use, e.g. to link C programs "
        "against.");

  nb::class_<Executable>(m, "Executable", R"(A loaded executable.

Created by Device.load or Device.load_file. Its signature lists the dtype
and shape of every buffer, inputs first::

    exe.signature       # 'f32[4,8];f32[8]->f32[4]'
    exe.input_specs     # [('f32', (4, 8)), ('f32', (8,))]
    exe.output_specs    # [('f32', (4,))]
)")
      .def_prop_ro("num_inputs", &Executable::numInputs)
      .def_prop_ro("num_outputs", &Executable::numOutputs)
      .def_prop_ro("signature", &Executable::signature,
                   "The raw signature string, e.g. 'f32[4];f32[4]->f32[4]'.")
      .def_prop_ro("entry", &Executable::entry, "The entry point's name.")
      .def_prop_ro("input_specs", &Executable::inputSpecs,
                   "[(dtype, shape), ...] of the inputs, e.g. "
                   "[('f32', (4, 8))]; a scalar has shape (). dtype is the "
                   "MLIR element type: 'complex<f32>' for the signature's "
                   "c64.")
      .def_prop_ro("output_specs", &Executable::outputSpecs,
                   "[(dtype, shape), ...] of the outputs.")
      .def("execute_buffers", &Executable::executeBuffers, "buffers"_a,
           "Runs on Buffers of its device (inputs, then outputs).")
      .def("execute", &Executable::execute, "buffers"_a,
           nb::sig("def execute(self, buffers: typing.Sequence[object]) "
                   "-> None"),
           R"(Runs the executable once.

`buffers` is a list or tuple with one C-contiguous CPU array per buffer
(NumPy or any DLPack producer): the inputs, then the caller-allocated
outputs, which are written in place. Dtypes and shapes must match the
signature exactly (i1 is a bool array; bf16 also takes a uint16 array of
the raw bits). Raises ValueError naming the first mismatching buffer,
OutOfMemoryError (a MemoryError) if a temporary buffer cannot be allocated
(nothing leaks; outputs may be partly written), RuntimeError if the runtime
fails otherwise. The GIL is released while it runs::

    out = np.empty(4, np.float32)
    exe.execute([a, b, out])
)")
      .def("__repr__", [](const Executable &self) {
        return std::string("<numlir._runtime.Executable ") + self.entry() +
               ": " + self.signature() + ">";
      });

  nb::class_<Buffer>(m, "Buffer", R"(Memory on a device, owned by its driver.

    buffer = device.allocate(16)
    buffer.copy_from_host(np.arange(4, dtype=np.float32))
    out = np.empty(4, np.float32); buffer.copy_to_host(out)

Copies take and fill C-contiguous buffer-protocol objects of exactly the
buffer's size; copy_from copies another Buffer, on any device.
)")
      .def_prop_ro("size", &Buffer::size)
      .def_prop_ro("device_name", &Buffer::deviceName)
      .def_prop_ro("host_memory", &Buffer::hostMemory,
                   "Whether the buffer is host memory (the cpu driver's).")
      .def("copy_from_host", &Buffer::copyFromHost, "source"_a)
      .def("copy_to_host", &Buffer::copyToHost, "destination"_a)
      .def("copy_from", &Buffer::copyFrom, "source"_a)
      .def("__repr__", [](const Buffer &self) {
        return "<numlir._runtime.Buffer " + std::to_string(self.size()) +
               " bytes on " + self.deviceName() + ">";
      });

  m.def(
      "load_driver",
      [](const std::string &path) {
        checkStatus(nlrt_driver_load(path.c_str()));
      },
      "path"_a,
      R"(Loads the driver plugin at `path` (a shared object exporting
nlrt_plugin_init; numlir/runtime_driver.h) and registers its drivers. Raises
RuntimeError "UNAVAILABLE: ..." when the system loader cannot load it (a
missing vendor library), "LOAD_FAILED: ..." when it is no plugin or its init
fails.)");
  m.def(
      "drivers",
      [] {
        nb::list names;
        for (size_t i = 0, n = nlrt_driver_count(); i < n; ++i)
          names.append(nlrt_driver_name(i));
        return names;
      },
      "The registered drivers' names, built-in first.");

  nb::class_<Device>(m, "Device", R"(A runtime device: a driver and an ordinal.

    device = Device()            # the host CPU, same as Device("cpu", 0)
    device.name                  # 'cpu:0'
    Device("cpu", 1, num_threads=2)   # a second cpu device, 2 threads
    Device("pool", 0, options={"pool_bytes": 1 << 20})   # a plugin's options

Each cpu device runs its parallel loops on a thread team of its own,
`num_threads` strong (0: the OpenMP default, NUMLIR_NUM_THREADS or every
core). Raises RuntimeError for an unknown driver (the message lists the
known ones), a missing device or a bad option.
)")
      .def(nb::init<const std::string &, int, int,
                    const std::map<std::string, int64_t> &>(),
           "driver"_a = "cpu", "ordinal"_a = 0, "num_threads"_a = 0,
           "options"_a = std::map<std::string, int64_t>{})
      .def_prop_ro("name", &Device::name)
      .def_prop_ro("driver", &Device::driver)
      .def_prop_ro("num_threads", &Device::numThreads)
      .def("load", &Device::load, "data"_a, "entry"_a = NLRT_DEFAULT_ENTRY,
           nb::sig("def load(self, data: collections.abc.Buffer, entry: str "
                   "= 'numlir_entry') -> Executable"),
           R"(Loads an executable from its bytes (copied), e.g. the output of
the compiler: an image (see wrap_image), or a bare ELF shared object.
`entry` names the entry point; its signature is the symbol
`<entry>_signature`. Raises InvalidExecutableError if the image is damaged
(checked before anything is mapped), RuntimeError if it cannot be loaded::

    exe = device.load(open("add.so", "rb").read())
)")
      .def("allocate", &Device::allocate, "size"_a,
           "A new Buffer of `size` bytes on this device.")
      .def("synchronize", &Device::synchronize,
           "Waits for the work queued on this device.")
      .def("load_file", &Device::loadFile, "path"_a,
           "entry"_a = NLRT_DEFAULT_ENTRY,
           R"(Loads an executable from a file (an image or a bare ELF object);
errors as for load::

    exe = device.load_file("add.so", entry="numlir_entry")
)")
      .def("__repr__", [](const Device &self) {
        return std::string("<numlir._runtime.Device ") + self.name() + ">";
      });

  numlir::runtime::registerCommunicator(m);
  numlir::runtime::registerMpi(m);
}
