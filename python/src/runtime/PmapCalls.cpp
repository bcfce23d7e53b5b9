//===- PmapCalls.cpp - a pmapped function's remembered calls --------------===//
//
// pmap's general path costs about 35 µs of Python per call on this machine
// (flattening, sizes, devices, two cache lookups, slicing rows, stacking,
// shardings), twenty times the SPMD launch of a small program (1.5 µs on
// two devices, launcher.c). A plan matches each argument as CallCache.cpp does (aval, C-contiguous
// host buffer) and passes the devices the rows of the arguments' buffers
// and of fresh stacked outputs directly: the pointers are what pmap.py's
// row views and `given` outputs would hold.
//
//===----------------------------------------------------------------------===//

#include "PmapCalls.h"

#include "ArraySlots.h"
#include "CallCache.h"
#include "Communicator.h"
#include "Executable.h"
#include "Status.h"

#include <algorithm>

namespace nb = nanobind;
using namespace nb::literals;

namespace numlir::runtime {

namespace {

const ArrayContext &context = arrayContext;

bool sameDims(const std::vector<npy_intp> &dims, PyArrayObject *array) {
  return PyArray_NDIM(array) == (int)dims.size() &&
         std::equal(dims.begin(), dims.end(), PyArray_DIMS(array));
}

/// An Array's host buffer: an exact, C-contiguous NumPy array; else NULL.
PyArrayObject *hostBuffer(PyObject *array) {
  if (Py_TYPE(array) != context.array)
    return nullptr;
  PyObject *value = slot(array, context.value);
  if (!value || !PyArray_CheckExact(value))
    return nullptr; // deleted, or a device's buffer
  auto *buffer = reinterpret_cast<PyArrayObject *>(value);
  return PyArray_IS_C_CONTIGUOUS(buffer) ? buffer : nullptr;
}

} // namespace

/// What the general path decided for one signature.
struct PmapPlan {
  struct Input {
    nb::object aval, shape, dtype; // dtype: a PyArray_Descr
    bool weakType;
    bool mapped;                // on axis 0; else every device reads it all
    std::vector<npy_intp> dims; // the whole argument's
    size_t rowBytes;            // one device's part, where mapped
    /// Donated: its buffer becomes output `output`'s, and its Array is
    /// deleted (its value slot set to `deleted`, a _DeletedBuffer).
    long output = -1;
    nb::object deleted;
  };
  struct Output {
    nb::object aval, dtype, device, committed, layout;
    std::vector<npy_intp> dims; // stacked: the devices' outputs on axis 0
    size_t rowBytes;
  };

  std::vector<Input> inputs;
  std::vector<Output> outputs;
  std::vector<nb::object> natives; // alive while their handles are used
  std::vector<nlrt_executable *> handles;
  nb::object communicatorObject, unflatten;
  Communicator *communicator = nullptr;

  bool matches(PyObject *args) const;
  /// The outputs; NULL with an exception set when the launch failed, NULL
  /// without one when the call must go the general way (a donated buffer
  /// someone else holds, which the general path copies).
  PyObject *run(PyObject *args) const;

private:
  bool canDonate(PyObject *args, size_t k) const;
};

bool PmapPlan::matches(PyObject *args) const {
  if ((size_t)PyTuple_GET_SIZE(args) != inputs.size())
    return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    PyObject *arg = PyTuple_GET_ITEM(args, i);
    const Input &input = inputs[i];
    PyArrayObject *buffer = hostBuffer(arg);
    if (!buffer)
      return false;
    PyObject *aval = slot(arg, context.aval);
    if (aval != input.aval.ptr() &&
        (!aval || Py_TYPE(aval) != context.shapedArray ||
         slot(aval, context.weakType) != pyBool(input.weakType) ||
         !equal(slot(aval, context.dtype), input.dtype.ptr()) ||
         !equal(slot(aval, context.shape), input.shape.ptr())))
      return false;
    auto *descr = reinterpret_cast<PyArray_Descr *>(input.dtype.ptr());
    if ((PyArray_DESCR(buffer) != descr &&
         !PyArray_EquivTypes(PyArray_DESCR(buffer), descr)) ||
        !sameDims(input.dims, buffer))
      return false;
  }
  return true;
}

/// Whether argument k's buffer may become its paired output's: its Array is
/// the only holder (no view, np.asarray result or other Array refers to it,
/// donation.py's rule) and no other argument is that Array.
bool PmapPlan::canDonate(PyObject *args, size_t k) const {
  PyObject *arg = PyTuple_GET_ITEM(args, k);
  PyObject *value = slot(arg, context.value);
  auto *buffer = reinterpret_cast<PyArrayObject *>(value);
  if (Py_REFCNT(value) != 1 || PyArray_BASE(buffer) ||
      !PyArray_CHKFLAGS(buffer, NPY_ARRAY_OWNDATA))
    return false;
  for (size_t m = 0; m < inputs.size(); ++m)
    if (m != k && PyTuple_GET_ITEM(args, m) == arg)
      return false;
  return true;
}

PyObject *PmapPlan::run(PyObject *args) const {
  size_t replicas = handles.size(), numInputs = inputs.size(),
         numOutputs = outputs.size(), numBuffers = numInputs + numOutputs;
  Scratch<PyObject *, 8> donatedTo(numOutputs);
  for (size_t j = 0; j < numOutputs; ++j)
    donatedTo[j] = nullptr;
  for (size_t k = 0; k < numInputs; ++k) {
    if (inputs[k].output < 0)
      continue;
    if (!canDonate(args, k))
      return nullptr;
    donatedTo[inputs[k].output] = slot(PyTuple_GET_ITEM(args, k), context.value);
  }
  nb::list stacked;
  for (size_t j = 0; j < numOutputs; ++j) {
    const Output &output = outputs[j];
    if (donatedTo[j]) { // its rows are the devices' inputs and outputs
      stacked.append(nb::borrow(donatedTo[j]));
      continue;
    }
    PyObject *array = emptyArray(output.dtype.ptr(), output.dims);
    if (!array)
      return nullptr;
    stacked.append(nb::steal(array));
  }
  Scratch<void *, 64> pointers(replicas * numBuffers);
  Scratch<void *const *, 16> perDevice(replicas);
  // The argument buffers stay alive while the GIL is released, even if
  // another thread deletes their Arrays meanwhile.
  Scratch<PyObject *, 16> held(numInputs);
  for (size_t k = 0; k < numInputs; ++k)
    held[k] = Py_NewRef(slot(PyTuple_GET_ITEM(args, k), context.value));
  for (size_t i = 0; i < replicas; ++i) {
    void **row = pointers.data() + i * numBuffers;
    for (size_t k = 0; k < numInputs; ++k) {
      char *data = static_cast<char *>(
          dataOf(reinterpret_cast<PyArrayObject *>(held[k])));
      row[k] = inputs[k].mapped ? data + i * inputs[k].rowBytes : data;
    }
    for (size_t k = 0; k < numOutputs; ++k)
      row[numInputs + k] =
          static_cast<char *>(dataOf(reinterpret_cast<PyArrayObject *>(
              stacked[k].ptr()))) +
          i * outputs[k].rowBytes;
    perDevice[i] = row;
  }
  nlrt_status status;
  Py_BEGIN_ALLOW_THREADS;
  status =
      communicator->launch(handles.data(), perDevice.data(), numBuffers);
  Py_END_ALLOW_THREADS;
  for (size_t k = 0; k < numInputs; ++k)
    Py_DECREF(held[k]);
  // The donors are deleted also when the launch failed (their buffers may be
  // written), as donation.finish does.
  for (size_t k = 0; k < numInputs; ++k) {
    if (inputs[k].output < 0)
      continue;
    PyObject *arg = PyTuple_GET_ITEM(args, k);
    PyObject *value = slot(arg, context.value);
    initSlot(arg, context.value, Py_NewRef(inputs[k].deleted.ptr()));
    Py_DECREF(value); // `stacked` holds it
  }
  checkStatus(status); // as Communicator.execute raises it
  PyObject *arrays = PyList_New((Py_ssize_t)numOutputs);
  if (!arrays)
    return nullptr;
  for (size_t k = 0; k < numOutputs; ++k) {
    PyObject *buffer = stacked[k].ptr();
    PyArray_CLEARFLAGS(reinterpret_cast<PyArrayObject *>(buffer),
                       NPY_ARRAY_WRITEABLE);
    const Output &output = outputs[k];
    PyObject *array =
        newArray(buffer, output.aval.ptr(), output.device.ptr(),
                 output.committed.ptr(), output.layout.ptr());
    if (!array) {
      Py_DECREF(arrays);
      return nullptr;
    }
    PyList_SET_ITEM(arrays, k, array);
  }
  return unflattenOutputs(arrays, unflatten.ptr());
}

nb::object PmapCallCache::call(nb::handle args) {
  if (!PyTuple_Check(args.ptr()))
    return nb::none();
  std::shared_ptr<PmapPlan> plan =
      plans.find(args.ptr(), CallCache::generation());
  // Under jit, grad or vmap, pmap runs as vmap: pmap.py decides.
  if (!plan || !plainThreadState(false))
    return nb::none();
  PyObject *result = plan->run(args.ptr());
  if (!result && PyErr_Occurred())
    throw nb::python_error();
  return result ? nb::steal(result) : nb::none();
}

bool PmapCallCache::remember(uint64_t generation, nb::handle args,
                             nb::handle inAxes, nb::handle donated,
                             nb::handle executables,
                             nb::handle communicator, nb::handle outputs,
                             nb::handle unflatten) {
  if (!context.array)
    throw nb::type_error("CallCache.set_context has not run");
  if (generation != CallCache::generation() || !PyTuple_Check(args.ptr()) ||
      !plainThreadState(false))
    return false;
  nb::list axes = nb::cast<nb::list>(inAxes);
  nb::list exes = nb::cast<nb::list>(executables);
  nb::list outs = nb::cast<nb::list>(outputs);
  size_t numInputs = (size_t)PyTuple_GET_SIZE(args.ptr());
  size_t replicas = exes.size();
  auto plan = std::make_shared<PmapPlan>();
  if (!nb::try_cast<Communicator *>(communicator, plan->communicator) ||
      !plan->communicator || plan->communicator->size() != replicas ||
      axes.size() != numInputs || outs.size() == 0 || replicas == 0)
    return false;
  plan->communicatorObject = nb::borrow(communicator);
  plan->unflatten = nb::borrow(unflatten);
  for (nb::handle exe : exes) {
    nb::object native = exe.attr("_native");
    if (!nb::isinstance<Executable>(native))
      return false;
    nlrt_executable *handle = nb::inst_ptr<Executable>(native)->raw();
    if (nlrt_executable_num_inputs(handle) != numInputs ||
        nlrt_executable_num_outputs(handle) != outs.size())
      return false;
    plan->natives.push_back(native);
    plan->handles.push_back(handle);
  }
  // Each device's buffer must be what its executable's signature says: the
  // plan is the only check before the runtime reads and writes the rows.
  auto fits = [&](size_t index, PyArrayObject *buffer, bool mapped,
                  size_t &rowBytes) {
    size_t skip = mapped ? 1 : 0;
    if (mapped && (PyArray_NDIM(buffer) < 1 ||
                   (size_t)PyArray_DIMS(buffer)[0] != replicas))
      return false;
    for (nlrt_executable *handle : plan->handles) {
      nlrt_buffer_info info;
      if (nlrt_executable_buffer_info(handle, index, &info) != NLRT_OK ||
          (size_t)PyArray_ITEMSIZE(buffer) != info.element_size ||
          (size_t)PyArray_NDIM(buffer) != info.rank + skip ||
          !std::equal(info.dims, info.dims + info.rank,
                      PyArray_DIMS(buffer) + skip))
        return false;
    }
    rowBytes = mapped ? (size_t)PyArray_NBYTES(buffer) / replicas : 0;
    return true;
  };
  // {input: (output, deleted marker)}: a donated argument was deleted by
  // the call, so its paired output (stacked the same way) stands for it.
  nb::dict donations = nb::cast<nb::dict>(donated);
  for (size_t k = 0; k < numInputs; ++k) {
    PyObject *arg = PyTuple_GET_ITEM(args.ptr(), k);
    PmapPlan::Input input;
    PyArrayObject *buffer = hostBuffer(arg);
    if (donations.contains(nb::int_(k))) {
      nb::tuple pair = nb::cast<nb::tuple>(donations[nb::int_(k)]);
      input.output = nb::cast<long>(pair[0]);
      input.deleted = pair[1];
      if (input.output < 0 || (size_t)input.output >= outs.size() ||
          Py_TYPE(arg) != context.array)
        return false;
      buffer = hostBuffer(outs[input.output].ptr());
    }
    PyObject *aval = buffer ? slot(arg, context.aval) : nullptr;
    if (!aval || Py_TYPE(aval) != context.shapedArray)
      return false;
    nb::handle axis = axes[k];
    if (!axis.is_none() && !(nb::isinstance<nb::int_>(axis) &&
                             nb::cast<long>(axis) == 0))
      return false;
    input.mapped = !axis.is_none();
    if (input.output >= 0 && !input.mapped)
      return false;
    input.aval = nb::borrow(aval);
    input.shape = nb::borrow(slot(aval, context.shape));
    input.dtype = nb::borrow(slot(aval, context.dtype));
    input.weakType = slot(aval, context.weakType) == Py_True;
    if (!PyArray_DescrCheck(input.dtype.ptr()) ||
        !fits(k, buffer, input.mapped, input.rowBytes))
      return false;
    input.dims.assign(PyArray_DIMS(buffer),
                      PyArray_DIMS(buffer) + PyArray_NDIM(buffer));
    plan->inputs.push_back(std::move(input));
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    PyObject *out = outs[k].ptr();
    PyArrayObject *buffer = hostBuffer(out);
    PmapPlan::Output output;
    if (!buffer || !fits(numInputs + k, buffer, true, output.rowBytes))
      return false;
    output.aval = nb::borrow(slot(out, context.aval));
    output.dtype = nb::borrow(reinterpret_cast<PyObject *>(PyArray_DESCR(buffer)));
    output.device = nb::borrow(slot(out, context.device));
    output.committed = nb::borrow(slot(out, context.committed));
    output.layout = nb::borrow(slot(out, context.layout));
    output.dims.assign(PyArray_DIMS(buffer),
                       PyArray_DIMS(buffer) + PyArray_NDIM(buffer));
    plan->outputs.push_back(std::move(output));
  }
  // Donated arguments are deleted by now: they match from the next call on.
  if (donations.size() == 0 && !plan->matches(args.ptr()))
    return false;
  plans.keep(std::move(plan), args.ptr(), generation);
  return true;
}

void definePmapCallCache(nb::module_ &m) {
  nb::class_<PmapCallCache>(m, "PmapCallCache", R"(A pmapped function's
remembered calls on numlir's cpu devices (pmap.py).

    cache = PmapCallCache()
    cache.remember(generation, args, in_axes, donated, executables,
                   communicator, outputs, unflatten)  # after the general call
    cache.call(args)                      # its outputs, or None
)")
      .def(nb::init<>())
      .def("call", &PmapCallCache::call, "args"_a,
           "The outputs of a call on the tuple `args` if a plan matches it, "
           "else None.")
      .def("remember", &PmapCallCache::remember, "generation"_a, "args"_a,
           "in_axes"_a, "donated"_a, "executables"_a, "communicator"_a,
           "outputs"_a,
           nb::arg("unflatten").none(),
           "Keeps what the general path decided for the call on `args`; "
           "whether it was kept.")
      .def("clear", &PmapCallCache::clear)
      .def("__len__", &PmapCallCache::size);
}

} // namespace numlir::runtime
