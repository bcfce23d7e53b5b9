//===- BufferView.h - a Py_buffer released on scope exit --------*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_BUFFERVIEW_H
#define NUMLIR_PYTHON_RUNTIME_BUFFERVIEW_H

#include <nanobind/nanobind.h>

#include <Python.h>

namespace numlir::runtime {

/// Contiguous bytes of any buffer-protocol object (bytes, bytearray,
/// memoryview, ...), held until scope exit.
struct BufferView {
  Py_buffer view;
  explicit BufferView(nanobind::handle object) {
    if (PyObject_GetBuffer(object.ptr(), &view, PyBUF_SIMPLE) != 0)
      throw nanobind::python_error();
  }
  BufferView(const BufferView &) = delete;
  BufferView &operator=(const BufferView &) = delete;
  ~BufferView() { PyBuffer_Release(&view); }
};

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_BUFFERVIEW_H
