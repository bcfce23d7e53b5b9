//===- ArraySlots.h - numlir Arrays read and made from C++ ------*- C++ -*-===//
//
// The per-call paths (CallCache.cpp for jit, PmapCalls.cpp for pmap) read an
// Array's and a ShapedArray's __slots__ directly and make output Arrays the
// way Array(value, aval, device, committed, layout) does, without running
// Python. The classes and slot offsets are set once (host_calls.py).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PYTHON_RUNTIME_ARRAYSLOTS_H
#define NUMLIR_PYTHON_RUNTIME_ARRAYSLOTS_H

#include "NumpyApi.h"

#include <nanobind/nanobind.h>

#include <memory>
#include <vector>

namespace numlir::runtime {

/// The Python objects the per-call paths read. They are never released: a
/// plan may outlive the modules at interpreter exit.
struct ArrayContext {
  PyTypeObject *array = nullptr;
  PyTypeObject *shapedArray = nullptr;
  PyTypeObject *evalTrace = nullptr;
  PyObject *traceState = nullptr;
  PyObject *placementState = nullptr;
  PyObject *traceName = nullptr;          // "trace"
  PyObject *defaultDevicesName = nullptr; // "default_devices"
  // Byte offsets of the __slots__ of Array and of ShapedArray.
  Py_ssize_t value, aval, device, committed, layout;
  Py_ssize_t shape, dtype, weakType;
};

/// Set by setArrayContext; `array` is NULL before.
extern ArrayContext arrayContext;

/// Reads the classes' slot offsets and imports NumPy's C API.
void setArrayContext(nanobind::handle arrayType,
                     nanobind::handle shapedArrayType,
                     nanobind::handle evalTraceType,
                     nanobind::handle traceState,
                     nanobind::handle placementState);

/// The object in `obj`'s slot at `offset`, borrowed; NULL when unset.
inline PyObject *slot(PyObject *obj, Py_ssize_t offset) {
  return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(obj) +
                                        offset);
}

/// Sets an unset slot of a new object, taking the reference.
inline void initSlot(PyObject *obj, Py_ssize_t offset, PyObject *value) {
  *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(obj) + offset) =
      value;
}

inline PyObject *pyBool(bool value) { return value ? Py_True : Py_False; }

/// Whether calls on this thread run compiled: under no trace but the plain
/// evaluation, and (where the device is the default one) within no
/// default_device context that names a device.
bool plainThreadState(bool usesDefaultDevice);

/// `a == b`, false on an error.
bool equal(PyObject *a, PyObject *b);

/// An array's data; the runtime refuses NULL, and an empty array may have
/// no memory.
void *dataOf(PyArrayObject *array);

/// What np.empty(dims, dtype) makes, `dtype` a PyArray_Descr (borrowed);
/// NULL with an exception set on failure.
PyObject *emptyArray(PyObject *dtype, const std::vector<npy_intp> &dims);

/// A new Array of these slots (references borrowed), as Array(value, aval,
/// device, committed, layout) makes it; NULL on an allocation failure.
PyObject *newArray(PyObject *value, PyObject *aval, PyObject *device,
                   PyObject *committed, PyObject *layout);

/// The outputs in the function's structure: `unflatten` is None (one
/// output), the list or tuple type, or a callable taking the list. Steals
/// `arrays`.
PyObject *unflattenOutputs(PyObject *arrays, PyObject *unflatten);

/// Room for `count` items, on the stack when few.
template <typename T, size_t N> class Scratch {
public:
  explicit Scratch(size_t count) {
    if (count > N) {
      heap.reset(new T[count]);
      items = heap.get();
    }
  }
  T &operator[](size_t i) { return items[i]; }
  T *data() { return items; }

private:
  T local[N];
  std::unique_ptr<T[]> heap;
  T *items = local;
};

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_ARRAYSLOTS_H
