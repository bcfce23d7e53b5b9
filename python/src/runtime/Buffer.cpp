//===- Buffer.cpp - an nlrt_buffer: device memory owned by a driver -------===//

#include "Buffer.h"

#include "Status.h"

#include <Python.h>

namespace nb = nanobind;

namespace numlir::runtime {

namespace {

/// A Py_buffer of `object`, writable if asked, released on scope exit.
struct HostBytes {
  Py_buffer view;
  HostBytes(nb::handle object, bool writable) {
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object.ptr(), &view, flags) != 0)
      throw nb::python_error();
  }
  HostBytes(const HostBytes &) = delete;
  HostBytes &operator=(const HostBytes &) = delete;
  ~HostBytes() { PyBuffer_Release(&view); }
};

/// Copies between `handle` and `host`'s bytes, without the GIL.
void copyWithHost(nlrt_buffer *handle, nb::handle host, bool toHost) {
  HostBytes bytes(host, /*writable=*/toHost);
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = toHost ? nlrt_buffer_copy_to_host(handle, bytes.view.buf,
                                               (size_t)bytes.view.len)
                    : nlrt_buffer_copy_from_host(handle, bytes.view.buf,
                                                 (size_t)bytes.view.len);
  }
  checkStatus(status);
}

} // namespace

void Buffer::copyFromHost(nb::handle source) {
  copyWithHost(handle, source, /*toHost=*/false);
}

void Buffer::copyToHost(nb::handle destination) const {
  copyWithHost(handle, destination, /*toHost=*/true);
}

void Buffer::copyFrom(const Buffer &source) {
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = nlrt_buffer_copy(handle, source.handle);
  }
  checkStatus(status);
}

} // namespace numlir::runtime
