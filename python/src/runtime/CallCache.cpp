//===- CallCache.cpp - a jitted function's remembered cpu calls -----------===//
//
// A call of a jitted function on small arrays costs what Python does around
// the program: flattening, placement, two cache lookups, wrapping outputs.
// Here a call the general path has already decided is matched against what
// decided it (each argument's abstract value and committed device, the
// config generation, the thread's trace and default device) and run with
// fresh outputs, reading the Array and ShapedArray slots directly and making
// NumPy arrays through NumPy's C API. Whatever does not match exactly returns
// None, and jit.py goes the general way, which raises the errors.
//
// A call on a device with memory of its own (a PJRT device) is matched the
// same way and handed to its executable's `execute`, which takes and returns
// the device's buffers: the one Python call left on that path.
//
//===----------------------------------------------------------------------===//

#include "CallCache.h"

#include "Executable.h"

#include <Python.h>
#include <structmember.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <algorithm>
#include <atomic>
#include <string>

namespace nb = nanobind;
using namespace nb::literals;

namespace numlir::runtime {

namespace {

/// The Python objects every cache reads, set once by setContext. They are
/// never released: a plan may outlive the modules at interpreter exit.
struct Context {
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

Context context;
std::atomic<uint64_t> currentGeneration{1};

/// At most this many plans per function: the signatures a loop repeats. A
/// function called with more keeps the most recent; the rest go the
/// general way, which still caches their executables.
constexpr size_t kMaxPlans = 8;

Py_ssize_t slotOffset(nb::handle type, const char *name) {
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
bool plainThreadState(bool usesDefaultDevice) {
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

/// `a == b`, false on an error.
bool equal(PyObject *a, PyObject *b) {
  if (a == b)
    return true;
  int result = PyObject_RichCompareBool(a, b, Py_EQ);
  if (result < 0)
    PyErr_Clear();
  return result == 1;
}

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

} // namespace

/// What the general path decided for one signature.
struct CallPlan {
  struct Input {
    nb::object aval, shape, dtype; // dtype: a PyArray_Descr
    bool weakType;
    bool committed;
    std::vector<npy_intp> dims;
  };
  struct Output {
    nb::object aval, dtype;
    std::vector<npy_intp> dims;
  };

  std::vector<Input> inputs;
  std::vector<Output> outputs;
  nb::object executable, native, device, unflatten, allocate;
  nlrt_executable *handle = nullptr;
  bool committed = false; // some argument is, or the outputs are
  /// A plan of a device with memory of its own: the executable's `execute`
  /// (buffers of `bufferType`, on `device` only) instead of the runtime's.
  nb::object execute;
  PyTypeObject *bufferType = nullptr;

  bool matches(PyObject *args) const;
  /// The outputs, or NULL without an exception set when the call must go
  /// the general way.
  PyObject *run(PyObject *args) const;

private:
  PyObject *runOnDevice(PyObject *args) const;
  bool matchesInput(const Input &input, PyObject *arg) const;
  PyObject *allocateOutputs(void **pointers) const;
  PyObject *wrapOutputs(PyObject *buffers) const;
};

/// The plan's view of argument `arg`: its aval's parts and whether it is
/// committed; false if it is not an Array with a ShapedArray aval.
static bool describeInput(PyObject *arg, CallPlan::Input &input) {
  if (Py_TYPE(arg) != context.array)
    return false;
  PyObject *aval = slot(arg, context.aval);
  PyObject *committed = slot(arg, context.committed);
  if (!aval || Py_TYPE(aval) != context.shapedArray || !committed)
    return false;
  input.aval = nb::borrow(aval);
  input.shape = nb::borrow(slot(aval, context.shape));
  input.dtype = nb::borrow(slot(aval, context.dtype));
  input.weakType = slot(aval, context.weakType) == Py_True;
  input.committed = committed == Py_True;
  return true;
}

bool CallPlan::matchesInput(const Input &input, PyObject *arg) const {
  if (Py_TYPE(arg) != context.array)
    return false;
  PyObject *aval = slot(arg, context.aval);
  if (aval != input.aval.ptr()) {
    if (!aval || Py_TYPE(aval) != context.shapedArray ||
        slot(aval, context.weakType) != pyBool(input.weakType) ||
        !equal(slot(aval, context.dtype), input.dtype.ptr()) ||
        !equal(slot(aval, context.shape), input.shape.ptr()))
      return false;
  }
  if (slot(arg, context.committed) != pyBool(input.committed))
    return false;
  PyObject *value = slot(arg, context.value);
  // A device buffer is where it was made, committed or not; its executable
  // checks its shape and type itself.
  if (bufferType)
    return slot(arg, context.device) == device.ptr() && value &&
           Py_TYPE(value) == bufferType;
  // Uncommitted arguments run wherever the call does: every cpu device
  // reads host memory.
  if (input.committed && slot(arg, context.device) != device.ptr())
    return false;
  if (!value || !PyArray_CheckExact(value))
    return false; // deleted, or another kind of device's buffer
  auto *array = reinterpret_cast<PyArrayObject *>(value);
  auto *descr = reinterpret_cast<PyArray_Descr *>(input.dtype.ptr());
  if (!PyArray_IS_C_CONTIGUOUS(array) ||
      (PyArray_DESCR(array) != descr &&
       !PyArray_EquivTypes(PyArray_DESCR(array), descr)) ||
      PyArray_NDIM(array) != (int)input.dims.size())
    return false;
  return std::equal(input.dims.begin(), input.dims.end(),
                    PyArray_DIMS(array));
}

bool CallPlan::matches(PyObject *args) const {
  if ((size_t)PyTuple_GET_SIZE(args) != inputs.size())
    return false;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!matchesInput(inputs[i], PyTuple_GET_ITEM(args, i)))
      return false;
  return true;
}

// The runtime refuses NULL; an empty array may have no memory.
static void *dataOf(PyArrayObject *array) {
  static char emptyBuffer;
  void *data = PyArray_DATA(array);
  return data ? data : &emptyBuffer;
}

/// A list of new output arrays, their data pointers written to `pointers`.
PyObject *CallPlan::allocateOutputs(void **pointers) const {
  PyObject *buffers;
  if (!allocate.is_none()) {
    buffers = PyObject_CallNoArgs(allocate.ptr());
    if (!buffers)
      return nullptr;
    if (!PyList_Check(buffers) ||
        (size_t)PyList_GET_SIZE(buffers) != outputs.size()) {
      Py_DECREF(buffers);
      return nullptr;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      PyObject *item = PyList_GET_ITEM(buffers, i);
      auto *array = reinterpret_cast<PyArrayObject *>(item);
      const Output &output = outputs[i];
      if (!PyArray_CheckExact(item) || !PyArray_ISCARRAY(array) ||
          PyArray_NDIM(array) != (int)output.dims.size() ||
          !std::equal(output.dims.begin(), output.dims.end(),
                      PyArray_DIMS(array)) ||
          !PyArray_EquivTypes(PyArray_DESCR(array),
                              reinterpret_cast<PyArray_Descr *>(
                                  output.dtype.ptr()))) {
        Py_DECREF(buffers);
        return nullptr;
      }
      pointers[i] = dataOf(array);
    }
    return buffers;
  }
  buffers = PyList_New((Py_ssize_t)outputs.size());
  if (!buffers)
    return nullptr;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Output &output = outputs[i];
    auto *descr = reinterpret_cast<PyArray_Descr *>(output.dtype.ptr());
    Py_INCREF(descr); // stolen
    // What np.empty(shape, dtype) makes.
    PyObject *array = PyArray_NewFromDescr(
        &PyArray_Type, descr, (int)output.dims.size(),
        const_cast<npy_intp *>(output.dims.data()), nullptr, nullptr, 0,
        nullptr);
    if (!array) {
      Py_DECREF(buffers);
      return nullptr;
    }
    PyList_SET_ITEM(buffers, i, array);
    pointers[i] = dataOf(reinterpret_cast<PyArrayObject *>(array));
  }
  return buffers;
}

/// The outputs as the Arrays Array(buffer, aval, device, committed) makes:
/// read-only buffers, no layout. Then in the function's output structure.
PyObject *CallPlan::wrapOutputs(PyObject *buffers) const {
  size_t count = outputs.size();
  PyObject *arrays = PyList_New((Py_ssize_t)count);
  if (!arrays)
    return nullptr;
  for (size_t i = 0; i < count; ++i) {
    PyObject *buffer = PyList_GET_ITEM(buffers, i);
    if (!bufferType)
      PyArray_CLEARFLAGS(reinterpret_cast<PyArrayObject *>(buffer),
                         NPY_ARRAY_WRITEABLE);
    PyObject *array = context.array->tp_alloc(context.array, 0);
    if (!array) {
      Py_DECREF(arrays);
      return nullptr;
    }
    Py_INCREF(buffer);
    initSlot(array, context.value, buffer);
    initSlot(array, context.aval, outputs[i].aval.inc_ref().ptr());
    initSlot(array, context.device, device.inc_ref().ptr());
    initSlot(array, context.committed, Py_NewRef(pyBool(committed)));
    initSlot(array, context.layout, Py_NewRef(Py_None));
    PyList_SET_ITEM(arrays, i, array);
  }
  PyObject *kind = unflatten.ptr();
  if (kind == Py_None) {
    PyObject *single = Py_NewRef(PyList_GET_ITEM(arrays, 0));
    Py_DECREF(arrays);
    return single;
  }
  if (kind == (PyObject *)&PyList_Type)
    return arrays;
  if (kind == (PyObject *)&PyTuple_Type) {
    PyObject *tuple = PyList_AsTuple(arrays);
    Py_DECREF(arrays);
    return tuple;
  }
  PyObject *tree = PyObject_CallOneArg(kind, arrays);
  Py_DECREF(arrays);
  return tree;
}

/// The device's executable called on the arguments' buffers; its outputs
/// wrapped, or NULL (no exception set) for the general path to rerun and
/// report whatever went wrong (a deleted buffer, say).
PyObject *CallPlan::runOnDevice(PyObject *args) const {
  size_t numInputs = inputs.size();
  PyObject *buffers = PyList_New((Py_ssize_t)numInputs);
  if (!buffers) {
    PyErr_Clear();
    return nullptr;
  }
  for (size_t i = 0; i < numInputs; ++i)
    PyList_SET_ITEM(buffers, i,
                    Py_NewRef(slot(PyTuple_GET_ITEM(args, i), context.value)));
  PyObject *outs = PyObject_CallOneArg(execute.ptr(), buffers);
  Py_DECREF(buffers);
  PyObject *result = nullptr;
  if (outs && PyList_Check(outs) &&
      (size_t)PyList_GET_SIZE(outs) == outputs.size())
    result = wrapOutputs(outs);
  Py_XDECREF(outs);
  if (!result)
    PyErr_Clear();
  return result;
}

PyObject *CallPlan::run(PyObject *args) const {
  if (bufferType)
    return runOnDevice(args);
  size_t numInputs = inputs.size(), numOutputs = outputs.size();
  Scratch<void *, 16> pointers(numInputs + numOutputs);
  // The argument buffers stay alive while the GIL is released, even if
  // another thread deletes their Arrays meanwhile.
  Scratch<PyObject *, 16> held(numInputs);
  for (size_t i = 0; i < numInputs; ++i) {
    PyObject *value = slot(PyTuple_GET_ITEM(args, i), context.value);
    held[i] = Py_NewRef(value);
    pointers[i] = dataOf(reinterpret_cast<PyArrayObject *>(value));
  }
  PyObject *buffers = allocateOutputs(pointers.data() + numInputs);
  nlrt_status status = NLRT_OK;
  if (buffers) {
    Py_BEGIN_ALLOW_THREADS;
    status = nlrt_executable_execute(handle, pointers.data(),
                                     numInputs + numOutputs);
    Py_END_ALLOW_THREADS;
  }
  for (size_t i = 0; i < numInputs; ++i)
    Py_DECREF(held[i]);
  if (!buffers) {
    PyErr_Clear();
    return nullptr;
  }
  // A failed run (a temporary buffer out of memory) wrote nothing but
  // outputs: the general path runs it again and reports the failure.
  PyObject *result = status == NLRT_OK ? wrapOutputs(buffers) : nullptr;
  Py_DECREF(buffers);
  if (!result)
    PyErr_Clear();
  return result;
}

void CallCache::setContext(nb::handle arrayType, nb::handle shapedArrayType,
                           nb::handle evalTraceType, nb::handle traceState,
                           nb::handle placementState) {
  if (_import_array() < 0)
    throw nb::python_error();
  for (nb::handle type : {arrayType, shapedArrayType, evalTraceType})
    if (!PyType_Check(type.ptr()))
      throw nb::type_error("CallCache.set_context takes classes");
  Context next;
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
  context = next;
  invalidateAll();
}

void CallCache::invalidateAll() { ++currentGeneration; }

uint64_t CallCache::generation() { return currentGeneration; }

nb::object CallCache::call(nb::handle args) {
  if (plans.empty() || !PyTuple_Check(args.ptr()))
    return nb::none();
  if (planGeneration != currentGeneration) {
    plans.clear();
    return nb::none();
  }
  PyObject *tuple = args.ptr();
  for (size_t i = 0; i < plans.size(); ++i) {
    if (!plans[i]->matches(tuple))
      continue;
    std::shared_ptr<CallPlan> plan = plans[i];
    if (!plainThreadState(!plan->committed))
      return nb::none();
    std::rotate(plans.begin(), plans.begin() + i, plans.begin() + i + 1);
    PyObject *result = plan->run(tuple);
    return result ? nb::steal(result) : nb::none();
  }
  return nb::none();
}

/// Puts `plan` first, dropping plans for the same arguments (whose run
/// failed) and the least recent beyond kMaxPlans.
void CallCache::keep(std::shared_ptr<CallPlan> plan, nb::handle args) {
  if (planGeneration != currentGeneration) {
    plans.clear();
    planGeneration = currentGeneration;
  }
  plans.erase(std::remove_if(plans.begin(), plans.end(),
                             [&](const std::shared_ptr<CallPlan> &old) {
                               return old->matches(args.ptr());
                             }),
              plans.end());
  plans.insert(plans.begin(), std::move(plan));
  if (plans.size() > kMaxPlans)
    plans.pop_back();
}

bool CallCache::rememberOnDevice(uint64_t generation, nb::handle args,
                                 nb::handle executable, nb::handle device,
                                 nb::handle outAvals,
                                 nb::handle unflatten) {
  if (!context.array)
    throw nb::type_error("CallCache.set_context has not run");
  if (generation != currentGeneration || !PyTuple_Check(args.ptr()) ||
      PyTuple_GET_SIZE(args.ptr()) == 0)
    return false;
  nb::list avals = nb::cast<nb::list>(outAvals);
  if (avals.size() == 0)
    return false;
  auto plan = std::make_shared<CallPlan>();
  plan->executable = nb::borrow(executable);
  plan->execute = executable.attr("execute");
  plan->device = nb::borrow(device);
  plan->unflatten = nb::borrow(unflatten);
  bool someCommitted = false;
  for (size_t i = 0; i < (size_t)PyTuple_GET_SIZE(args.ptr()); ++i) {
    PyObject *arg = PyTuple_GET_ITEM(args.ptr(), i);
    CallPlan::Input input;
    if (!describeInput(arg, input))
      return false;
    PyObject *value = slot(arg, context.value);
    if (!value || slot(arg, context.device) != device.ptr())
      return false;
    if (!plan->bufferType)
      plan->bufferType = Py_TYPE(value);
    someCommitted = someCommitted || input.committed;
    plan->inputs.push_back(std::move(input));
  }
  // An uncommitted call runs on the default device: the caller's, which the
  // config flags name when no default_device context does (a context's
  // calls stay with device_calls.py).
  if (!plainThreadState(!someCommitted))
    return false;
  plan->committed = someCommitted;
  for (nb::handle aval : avals) {
    CallPlan::Output output;
    output.aval = nb::borrow(aval);
    plan->outputs.push_back(std::move(output));
  }
  if (!plan->matches(args.ptr()))
    return false; // mixed buffer types
  keep(std::move(plan), args);
  return true;
}

void CallCache::remember(uint64_t generation, nb::handle args,
                         nb::handle executable, nb::handle device,
                         nb::handle outAvals, bool committed,
                         nb::handle unflatten, nb::handle allocate) {
  if (!context.array)
    throw nb::type_error("CallCache.set_context has not run");
  if (generation != currentGeneration || !PyTuple_Check(args.ptr()) ||
      !plainThreadState(!committed))
    return;
  nb::object native = executable.attr("_native");
  if (!nb::isinstance<Executable>(native))
    return;
  nlrt_executable *handle = nb::inst_ptr<Executable>(native)->raw();
  size_t numInputs = nlrt_executable_num_inputs(handle);
  size_t numOutputs = nlrt_executable_num_outputs(handle);
  nb::list avals = nb::cast<nb::list>(outAvals);
  nb::list specs = nb::cast<nb::list>(executable.attr("output_specs"));
  if ((size_t)PyTuple_GET_SIZE(args.ptr()) != numInputs ||
      avals.size() != numOutputs || specs.size() != numOutputs ||
      numOutputs == 0)
    return;

  auto plan = std::make_shared<CallPlan>();
  plan->executable = nb::borrow(executable);
  plan->native = native;
  plan->handle = handle;
  plan->device = nb::borrow(device);
  plan->committed = committed;
  plan->unflatten = nb::borrow(unflatten);
  plan->allocate = nb::borrow(allocate);
  // Each buffer must be what the executable's signature says: the plan is
  // the only check before the runtime reads and writes the memory.
  auto fits = [&](size_t index, nb::handle dtype,
                  std::vector<npy_intp> &dims) {
    nlrt_buffer_info info;
    if (nlrt_executable_buffer_info(handle, index, &info) != NLRT_OK ||
        !PyArray_DescrCheck(dtype.ptr()) ||
        (size_t)PyDataType_ELSIZE(
            reinterpret_cast<PyArray_Descr *>(dtype.ptr())) !=
            info.element_size)
      return false;
    dims.assign(info.dims, info.dims + info.rank);
    return true;
  };
  for (size_t i = 0; i < numInputs; ++i) {
    PyObject *arg = PyTuple_GET_ITEM(args.ptr(), i);
    CallPlan::Input input;
    if (!describeInput(arg, input))
      return;
    if (input.committed && slot(arg, context.device) != device.ptr())
      return;
    if (!fits(i, input.dtype, input.dims))
      return;
    plan->inputs.push_back(std::move(input));
  }
  for (size_t i = 0; i < numOutputs; ++i) {
    CallPlan::Output output;
    output.aval = avals[i];
    output.dtype = specs[i].attr("dtype");
    if (!fits(numInputs + i, output.dtype, output.dims))
      return;
    plan->outputs.push_back(std::move(output));
  }
  if (!plan->matches(args.ptr()))
    return; // the arguments' buffers are not what their avals say
  keep(std::move(plan), args);
}

void defineCallCache(nb::module_ &m) {
  nb::class_<CallCache>(m, "CallCache", R"(A jitted function's remembered
calls on the cpu backend, and committed ones on devices with memory of their
own (host_calls.py, docs/design-decisions.md).

    cache = CallCache()
    cache.remember(generation, args, exe, device, out_avals, committed,
                   unflatten, allocate)   # after the general path's call
    cache.call(args)                      # its outputs, or None
)")
      .def(nb::init<>())
      .def_static("set_context", &CallCache::setContext, "array_type"_a,
                  "shaped_array_type"_a, "eval_trace_type"_a,
                  "trace_state"_a, "placement_state"_a,
                  "The classes and thread-local states every cache reads.")
      .def_static("invalidate_all", &CallCache::invalidateAll,
                  "Forgets every cache's plans (a config flag changed).")
      .def_static("generation", &CallCache::generation,
                  "The count of invalidate_all calls so far.")
      .def("call", &CallCache::call, "args"_a,
           "The outputs of a call on the tuple `args` if a plan matches it, "
           "else None.")
      .def("remember", &CallCache::remember, "generation"_a, "args"_a,
           "executable"_a, "device"_a, "out_avals"_a, "committed"_a,
           nb::arg("unflatten").none(), nb::arg("allocate").none(),
           "Keeps what the general path decided for the call on `args`.")
      .def("remember_on_device", &CallCache::rememberOnDevice,
           "generation"_a, "args"_a, "executable"_a, "device"_a,
           "out_avals"_a, nb::arg("unflatten").none(),
           "Keeps a committed call on a device with memory of its own, whose "
           "executable's `execute` takes and returns its buffers; whether it "
           "was kept.")
      .def("clear", &CallCache::clear)
      .def("__len__", &CallCache::size);
}

} // namespace numlir::runtime
