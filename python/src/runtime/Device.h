//===- Device.h - an open nlrt_device that loads executables ----*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_DEVICE_H
#define NUMLIR_PYTHON_RUNTIME_DEVICE_H

#include "Buffer.h"
#include "Executable.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace numlir::runtime {

/// Owns one reference to an nlrt_device. Executables hold references of
/// their own, so they stay usable after the Device is collected.
class Device {
public:
  /// `numThreads` is the device's thread team size (0: the driver's default);
  /// `options` are further device options of the driver (runtime.h).
  Device(const std::string &driver, int ordinal, int numThreads = 0,
         const std::map<std::string, int64_t> &options = {});
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  ~Device();

  const char *name() const { return nlrt_device_name(handle); }
  const char *driver() const { return nlrt_device_driver(handle); }
  int numThreads() const { return nlrt_device_num_threads(handle); }

  /// Loads an executable image from any contiguous buffer (bytes, bytearray,
  /// memoryview, ...). The bytes are copied.
  Executable load(nanobind::handle data, const std::string &entry);
  Executable loadFile(const std::filesystem::path &path,
                      const std::string &entry);

  /// A new buffer of `size` bytes on this device.
  Buffer allocate(size_t size);
  /// Waits for the work queued on the device.
  void synchronize();

  nlrt_device *raw() const { return handle; }

private:
  nlrt_device *handle = nullptr;
};

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_DEVICE_H
