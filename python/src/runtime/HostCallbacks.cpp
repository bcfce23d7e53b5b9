//===- HostCallbacks.cpp - host callbacks of executables into Python ------===//
//
// The runtime calls one process-wide handler for every host callback
// (docs/runtime.md#host-callbacks). This one takes the GIL (the thread that
// runs the executable released it in Executable.execute, so taking it cannot
// deadlock, from that thread or any other), and calls the Python dispatcher
// `dispatcher(id, operand_addresses, result_addresses)`, which knows each
// id's shapes and dtypes, reads the operands and fills the results
// (python/numlir/_src/host_callback.py). An exception the dispatcher raises
// is kept for this thread and the handler reports the failure; the runtime
// stops the call and Executable.execute raises the exception again.
//
//===----------------------------------------------------------------------===//

#include "HostCallbacks.h"
#include "Status.h"

#include "numlir/runtime.h"

#include <Python.h>

namespace nb = nanobind;
using namespace nb::literals;

namespace numlir::runtime {
namespace {

/// The Python dispatcher; a strong reference kept for the process.
PyObject *dispatcher = nullptr;

/// The exception a callback raised on this thread, until execute raises it.
thread_local PyObject *pendingType = nullptr;
thread_local PyObject *pendingValue = nullptr;
thread_local PyObject *pendingTraceback = nullptr;

void clearPending() {
  Py_CLEAR(pendingType);
  Py_CLEAR(pendingValue);
  Py_CLEAR(pendingTraceback);
}

int handle(void *, uint64_t id, void *const *operands, size_t numOperands,
           void *const *results, size_t numResults) {
  PyGILState_STATE gil = PyGILState_Ensure();
  int failed = 1;
  if (dispatcher) {
    PyObject *operandTuple = PyTuple_New(static_cast<Py_ssize_t>(numOperands));
    PyObject *resultTuple = PyTuple_New(static_cast<Py_ssize_t>(numResults));
    bool ok = operandTuple && resultTuple;
    for (size_t i = 0; ok && i < numOperands; ++i) {
      PyObject *address = PyLong_FromVoidPtr(operands[i]);
      ok = address != nullptr;
      if (ok)
        PyTuple_SET_ITEM(operandTuple, i, address);
    }
    for (size_t i = 0; ok && i < numResults; ++i) {
      PyObject *address = PyLong_FromVoidPtr(results[i]);
      ok = address != nullptr;
      if (ok)
        PyTuple_SET_ITEM(resultTuple, i, address);
    }
    PyObject *idObject = ok ? PyLong_FromUnsignedLongLong(id) : nullptr;
    PyObject *returned =
        idObject ? PyObject_CallFunctionObjArgs(dispatcher, idObject,
                                                operandTuple, resultTuple,
                                                nullptr)
                 : nullptr;
    failed = returned == nullptr;
    Py_XDECREF(returned);
    Py_XDECREF(idObject);
    Py_XDECREF(operandTuple);
    Py_XDECREF(resultTuple);
  } else {
    PyErr_Format(PyExc_RuntimeError,
                 "host callback %llu ran with no dispatcher registered",
                 static_cast<unsigned long long>(id));
  }
  if (failed) {
    clearPending();
    PyErr_Fetch(&pendingType, &pendingValue, &pendingTraceback);
    PyErr_NormalizeException(&pendingType, &pendingValue, &pendingTraceback);
  }
  PyGILState_Release(gil);
  return failed;
}

} // namespace

void raisePendingCallbackError() {
  if (!pendingType)
    return;
  PyErr_Restore(pendingType, pendingValue, pendingTraceback);
  pendingType = pendingValue = pendingTraceback = nullptr;
  throw nb::python_error();
}

void defineHostCallbacks(nb::module_ &m) {
  m.def(
      "set_host_callback_dispatcher",
      [](nb::object function) {
        PyObject *previous = dispatcher;
        dispatcher = function.is_none() ? nullptr : function.release().ptr();
        Py_XDECREF(previous);
        nlrt_set_host_callback_handler(dispatcher ? handle : nullptr, nullptr);
      },
      "dispatcher"_a.none(),
      R"(Registers `dispatcher(id, operand_addresses, result_addresses)`, which
executables' host callbacks call (with the GIL, on the thread that runs the
executable): the addresses are ints, one per dense row-major buffer, whose
shapes and dtypes the caller that chose `id` knows. It must fill every
result buffer; an exception it raises stops the executable and is raised
again by Executable.execute. None unregisters it.)");
}

} // namespace numlir::runtime
