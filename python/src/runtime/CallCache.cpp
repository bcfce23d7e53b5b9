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

#include "ArraySlots.h"
#include "Executable.h"

#include <algorithm>
#include <atomic>
#include <string>

namespace nb = nanobind;
using namespace nb::literals;

namespace numlir::runtime {

namespace {

const ArrayContext &context = arrayContext;
std::atomic<uint64_t> currentGeneration{1};

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
    PyObject *array = emptyArray(output.dtype.ptr(), output.dims);
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
    PyObject *array = newArray(buffer, outputs[i].aval.ptr(), device.ptr(),
                               pyBool(committed), Py_None);
    if (!array) {
      Py_DECREF(arrays);
      return nullptr;
    }
    PyList_SET_ITEM(arrays, i, array);
  }
  return unflattenOutputs(arrays, unflatten.ptr());
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
  setArrayContext(arrayType, shapedArrayType, evalTraceType, traceState,
                  placementState);
  invalidateAll();
}

void CallCache::invalidateAll() { ++currentGeneration; }

uint64_t CallCache::generation() { return currentGeneration; }

nb::object CallCache::call(nb::handle args) {
  if (!PyTuple_Check(args.ptr()))
    return nb::none();
  std::shared_ptr<CallPlan> plan = plans.find(args.ptr(), currentGeneration);
  if (!plan || !plainThreadState(!plan->committed))
    return nb::none();
  PyObject *result = plan->run(args.ptr());
  return result ? nb::steal(result) : nb::none();
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
  plans.keep(std::move(plan), args.ptr(), generation);
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
  plans.keep(std::move(plan), args.ptr(), generation);
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
