//===- Buffer.h - an nlrt_buffer: device memory owned by a driver -*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_BUFFER_H
#define NUMLIR_PYTHON_RUNTIME_BUFFER_H

#include "numlir/runtime.h"

#include <nanobind/nanobind.h>

#include <string>

namespace numlir::runtime {

/// Owns one nlrt_buffer. Contents move through the buffer protocol: bytes
/// in from any contiguous object, out into any writable one, each exactly
/// the buffer's size.
class Buffer {
public:
  /// Takes ownership of `handle`.
  explicit Buffer(nlrt_buffer *handle) : handle(handle) {}
  Buffer(Buffer &&other) noexcept : handle(other.handle) {
    other.handle = nullptr;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  Buffer &operator=(Buffer &&) = delete;
  ~Buffer() { nlrt_buffer_release(handle); }

  size_t size() const { return nlrt_buffer_size(handle); }
  std::string deviceName() const {
    return nlrt_device_name(nlrt_buffer_device(handle));
  }
  bool hostMemory() const { return nlrt_buffer_host_pointer(handle); }

  void copyFromHost(nanobind::handle source);
  void copyToHost(nanobind::handle destination) const;
  void copyFrom(const Buffer &source);

  nlrt_buffer *handle;
};

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_BUFFER_H
