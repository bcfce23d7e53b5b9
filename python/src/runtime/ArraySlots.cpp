//===- ArraySlots.cpp - numlir Arrays read and made from C++ --------------===//

#define NUMLIR_NUMPY_IMPORTS_HERE
#include "ArraySlots.h"

#include <structmember.h>

#include <string>

namespace nb = nanobind;

namespace numlir::runtime {

ArrayContext arrayContext;

static Py_ssize_t slotOffset(nb::handle type, const char *name) {
  nb::object descriptor = nb::getattr(type, name);
  if (!Py_IS_TYPE(descriptor.ptr(), &PyMemberDescr_Type))
    throw nb::type_error(
        (std::string("CallCache: ") + name + " is not a __slots__ member")
            .c_str());
  PyMemberDef *member =
      reinterpret_cast<PyMemberDescrObject *>(descriptor.ptr())->d_member;
  if (member->type != T_OBJECT_EX)
    throw nb::type_error(
        (std::string("CallCache: ") + name + " is not an object slot")
            .c_str());
  return member->offset;
}

void setArrayContext(nb::handle arrayType, nb::handle shapedArrayType,
                     nb::handle evalTraceType, nb::handle traceState,
                     nb::handle placementState) {
  if (_import_array() < 0)
    throw nb::python_error();
  for (nb::handle type : {arrayType, shapedArrayType, evalTraceType})
    if (!PyType_Check(type.ptr()))
      throw nb::type_error("CallCache.set_context takes classes");
  ArrayContext next;
  next.array = reinterpret_cast<PyTypeObject *>(arrayType.inc_ref().ptr());
  next.shapedArray =
      reinterpret_cast<PyTypeObject *>(shapedArrayType.inc_ref().ptr());
  next.evalTrace =
      reinterpret_cast<PyTypeObject *>(evalTraceType.inc_ref().ptr());
  next.traceState = traceState.inc_ref().ptr();
  next.placementState = placementState.inc_ref().ptr();
  next.traceName = PyUnicode_InternFromString("trace");
  next.defaultDevicesName = PyUnicode_InternFromString("default_devices");
  next.value = slotOffset(arrayType, "_value");
  next.aval = slotOffset(arrayType, "aval");
  next.device = slotOffset(arrayType, "_device");
  next.committed = slotOffset(arrayType, "_committed");
  next.layout = slotOffset(arrayType, "_layout");
  next.shape = slotOffset(shapedArrayType, "shape");
  next.dtype = slotOffset(shapedArrayType, "dtype");
  next.weakType = slotOffset(shapedArrayType, "weak_type");
  arrayContext = next;
}

bool plainThreadState(bool usesDefaultDevice) {
  const ArrayContext &context = arrayContext;
  PyObject *trace = PyObject_GetAttr(context.traceState, context.traceName);
  if (!trace) {
    PyErr_Clear();
    return false;
  }
  bool evaluating = PyObject_TypeCheck(trace, context.evalTrace);
  Py_DECREF(trace);
  if (!evaluating || !usesDefaultDevice)
    return evaluating;
  PyObject *stack =
      PyObject_GetAttr(context.placementState, context.defaultDevicesName);
  if (!stack) {
    PyErr_Clear();
    return false;
  }
  bool plain = PyList_Check(stack) &&
               (PyList_GET_SIZE(stack) == 0 ||
                PyList_GET_ITEM(stack, PyList_GET_SIZE(stack) - 1) == Py_None);
  Py_DECREF(stack);
  return plain;
}

bool equal(PyObject *a, PyObject *b) {
  if (a == b)
    return true;
  int result = PyObject_RichCompareBool(a, b, Py_EQ);
  if (result < 0)
    PyErr_Clear();
  return result == 1;
}

void *dataOf(PyArrayObject *array) {
  static char emptyBuffer;
  void *data = PyArray_DATA(array);
  return data ? data : &emptyBuffer;
}

PyObject *emptyArray(PyObject *dtype, const std::vector<npy_intp> &dims) {
  auto *descr = reinterpret_cast<PyArray_Descr *>(dtype);
  Py_INCREF(descr); // stolen
  return PyArray_NewFromDescr(&PyArray_Type, descr, (int)dims.size(),
                              const_cast<npy_intp *>(dims.data()), nullptr,
                              nullptr, 0, nullptr);
}

PyObject *newArray(PyObject *value, PyObject *aval, PyObject *device,
                   PyObject *committed, PyObject *layout) {
  const ArrayContext &context = arrayContext;
  PyObject *array = context.array->tp_alloc(context.array, 0);
  if (!array)
    return nullptr;
  initSlot(array, context.value, Py_NewRef(value));
  initSlot(array, context.aval, Py_NewRef(aval));
  initSlot(array, context.device, Py_NewRef(device));
  initSlot(array, context.committed, Py_NewRef(committed));
  initSlot(array, context.layout, Py_NewRef(layout));
  return array;
}

PyObject *unflattenOutputs(PyObject *arrays, PyObject *unflatten) {
  if (unflatten == Py_None) {
    PyObject *single = Py_NewRef(PyList_GET_ITEM(arrays, 0));
    Py_DECREF(arrays);
    return single;
  }
  if (unflatten == (PyObject *)&PyList_Type)
    return arrays;
  if (unflatten == (PyObject *)&PyTuple_Type) {
    PyObject *tuple = PyList_AsTuple(arrays);
    Py_DECREF(arrays);
    return tuple;
  }
  PyObject *tree = PyObject_CallOneArg(unflatten, arrays);
  Py_DECREF(arrays);
  return tree;
}

} // namespace numlir::runtime
