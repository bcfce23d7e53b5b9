//===- Device.cpp - an open nlrt_device that loads executables ------------===//

#include "Device.h"

#include "BufferView.h"
#include "Status.h"

#include <Python.h>

#include <vector>

namespace nb = nanobind;

namespace numlir::runtime {

Device::Device(const std::string &driver, int ordinal, int numThreads,
               const std::map<std::string, int64_t> &options) {
  // num_threads goes only where it differs from the default, so a driver
  // without thread teams still opens with num_threads=0.
  std::vector<nlrt_device_option> settings;
  if (numThreads)
    settings.push_back({"num_threads", numThreads});
  for (const auto &[name, value] : options)
    settings.push_back({name.c_str(), value});
  checkStatus(nlrt_device_open_with_options(
      driver.c_str(), ordinal, settings.empty() ? nullptr : settings.data(),
      settings.size(), &handle));
}

Device::~Device() { nlrt_device_close(handle); }

Executable Device::load(nb::handle data, const std::string &entry) {
  BufferView bytes(data);
  nlrt_executable *executable = nullptr;
  nlrt_status status;
  {
    // Loading runs the system loader (file I/O, relocation): let other
    // threads run. The Py_buffer keeps the bytes alive meanwhile.
    nb::gil_scoped_release release;
    status = nlrt_executable_load_memory(handle, bytes.view.buf,
                                         (size_t)bytes.view.len, entry.c_str(),
                                         &executable);
  }
  checkStatus(status);
  return Executable(executable);
}

Executable Device::loadFile(const std::filesystem::path &path,
                            const std::string &entry) {
  nlrt_executable *executable = nullptr;
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = nlrt_executable_load_file(handle, path.c_str(), entry.c_str(),
                                       &executable);
  }
  checkStatus(status);
  return Executable(executable);
}

Buffer Device::allocate(size_t size) {
  nlrt_buffer *buffer = nullptr;
  checkStatus(nlrt_buffer_allocate(handle, size, &buffer));
  return Buffer(buffer);
}

void Device::synchronize() {
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = nlrt_device_synchronize(handle);
  }
  checkStatus(status);
}

} // namespace numlir::runtime
