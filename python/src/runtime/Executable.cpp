//===- Executable.cpp - a loaded nlrt_executable with checked execute -----===//
//
// execute() is the eager-dispatch hot path: one DLPack import per buffer, a
// dtype and shape comparison against the pre-read signature, one C call with
// the GIL released. Error messages are only built on failure.
//
//===----------------------------------------------------------------------===//

#include "Executable.h"

#include "Buffer.h"
#include "HostCallbacks.h"

#include "Dtypes.h"
#include "Status.h"

#include <Python.h>

namespace nb = nanobind;

namespace numlir::runtime {

Executable::Executable(nlrt_executable *handle)
    : handle(handle), numInputs_(nlrt_executable_num_inputs(handle)) {
  size_t count = numInputs_ + nlrt_executable_num_outputs(handle);
  specs.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    nlrt_buffer_info info;
    // Cannot fail for an index in range; the destructor would not run.
    nlrt_executable_buffer_info(handle, i, &info);
    specs.push_back({info.dtype, info.dims, info.rank});
  }
}

Executable::Executable(Executable &&other) noexcept
    : handle(other.handle), specs(std::move(other.specs)),
      numInputs_(other.numInputs_) {
  other.handle = nullptr;
}

Executable::~Executable() { nlrt_executable_release(handle); }

nb::list Executable::specList(size_t begin, size_t end) const {
  nb::list result;
  for (size_t i = begin; i < end; ++i) {
    const Spec &spec = specs[i];
    nb::object shape = nb::steal(PyTuple_New((Py_ssize_t)spec.rank));
    if (!shape.is_valid())
      throw nb::python_error();
    for (size_t d = 0; d < spec.rank; ++d) {
      PyObject *extent = PyLong_FromLongLong(spec.dims[d]);
      if (!extent)
        throw nb::python_error();
      PyTuple_SET_ITEM(shape.ptr(), (Py_ssize_t)d, extent);
    }
    result.append(nb::make_tuple(mlirElementTypeName(spec.dtype), shape));
  }
  return result;
}

std::string Executable::describe(size_t index) const {
  bool isInput = index < numInputs_;
  return "buffer " + std::to_string(index) + " (" +
         (isInput ? "input " : "output ") +
         std::to_string(isInput ? index : index - numInputs_) + ")";
}

std::string Executable::expected(size_t index) const {
  const Spec &spec = specs[index];
  return formatBuffer(spec.dtype, spec.dims, spec.rank);
}

bool Executable::matches(size_t index, const nb::ndarray<> &array) const {
  const Spec &spec = specs[index];
  if (array.ndim() != spec.rank || !dtypeAccepts(spec.dtype, array.dtype()))
    return false;
  const int64_t *shape = array.shape_ptr();
  for (size_t d = 0; d < spec.rank; ++d)
    if (shape[d] != spec.dims[d])
      return false;
  return true;
}

// "1 input", "2 inputs".
static std::string counted(size_t count, const char *noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// Imports a C-contiguous CPU array without copying, appending it to
// `arrays`; outputs must also be writable.
static bool importArray(nb::handle item, bool isInput,
                        std::vector<nb::ndarray<>> &arrays) {
  if (isInput) {
    nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu> input;
    if (!nb::try_cast(item, input, /*convert=*/false))
      return false;
    arrays.emplace_back(input);
  } else {
    nb::ndarray<nb::c_contig, nb::device::cpu> output;
    if (!nb::try_cast(item, output, /*convert=*/false))
      return false;
    arrays.emplace_back(output);
  }
  return true;
}

// `item.view("uint16")` if `item` is a NumPy array of ml_dtypes.bfloat16,
// else an invalid object. Only reached when the DLPack import failed.
static nb::object viewBfloat16AsBits(nb::handle item) {
  if (!nb::hasattr(item, "dtype") || !nb::hasattr(item, "view"))
    return {};
  nb::object dtype = item.attr("dtype");
  if (!nb::hasattr(dtype, "name") ||
      !dtype.attr("name").equal(nb::str("bfloat16")))
    return {};
  return item.attr("view")("uint16");
}

// The strict import failed; find out why with a lenient one, for the message.
void Executable::throwUnusable(size_t index, nb::handle item) const {
  std::string prefix = describe(index) + ": expected " + expected(index);
  nb::ndarray<nb::ro> any;
  if (!nb::try_cast(item, any, /*convert=*/false))
    throw nb::value_error(
        (prefix + " array (NumPy or DLPack), got an object of type '" +
         Py_TYPE(item.ptr())->tp_name + "'")
            .c_str());
  std::string actual = formatArray(any.dtype(), any.shape_ptr(), any.ndim());
  if (any.device_type() != nb::device::cpu::value)
    throw nb::value_error(
        (prefix + ", got a " + actual + " array not in CPU memory").c_str());
  nb::ndarray<nb::ro, nb::c_contig> contiguous;
  if (!nb::try_cast(item, contiguous, /*convert=*/false))
    throw nb::value_error((prefix + ", got a " + actual +
                           " array that is not C-contiguous (use "
                           "numpy.ascontiguousarray)")
                              .c_str());
  if (index >= numInputs_)
    throw nb::value_error((prefix + ", got a read-only " + actual +
                           " array; outputs must be writable")
                              .c_str());
  throw nb::value_error(
      (prefix + ", got a " + actual + " array that cannot be imported")
          .c_str());
}

void Executable::execute(nb::handle buffers) const {
  // The imported arrays keep their memory alive while the GIL is released,
  // even if another thread drops the caller's references meanwhile.
  std::vector<nb::ndarray<>> arrays;
  std::vector<void *> pointers = importBuffers(buffers, arrays);
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = nlrt_executable_execute(handle, pointers.data(), pointers.size());
  }
  if (status == NLRT_HOST_CALLBACK_FAILED)
    raisePendingCallbackError();
  checkStatus(status);
}

std::vector<void *>
Executable::importBuffers(nb::handle buffers,
                          std::vector<nb::ndarray<>> &arrays) const {
  PyObject *sequence = buffers.ptr();
  if (!PyList_Check(sequence) && !PyTuple_Check(sequence))
    throw nb::type_error(
        (std::string("execute() takes a list or tuple of arrays, got '") +
         Py_TYPE(sequence)->tp_name + "'")
            .c_str());
  size_t count = (size_t)PySequence_Fast_GET_SIZE(sequence);
  if (count != specs.size())
    throw nb::value_error(
        (std::string("'") + entry() + "' (" + signature() + ") takes " +
         std::to_string(specs.size()) + " buffers (" +
         counted(numInputs_, "input") + ", " +
         counted(numOutputs(), "output") + "), got " + std::to_string(count))
            .c_str());

  arrays.reserve(arrays.size() + count);
  std::vector<void *> pointers(count);
  for (size_t i = 0; i < count; ++i) {
    // Re-read the size: a __dlpack__ method could have shrunk a list.
    if ((size_t)PySequence_Fast_GET_SIZE(sequence) != count)
      throw nb::value_error("the buffer list changed during execute()");
    nb::handle item = PySequence_Fast_GET_ITEM(sequence, (Py_ssize_t)i);
    bool isBf16 = false;
    if (!importArray(item, i < numInputs_, arrays)) {
      // NumPy cannot export ml_dtypes' bfloat16 through DLPack or the buffer
      // protocol; its raw bits can go as a uint16 view of the same memory.
      nb::object bits = viewBfloat16AsBits(item);
      isBf16 = bits.is_valid() && importArray(bits, i < numInputs_, arrays);
      if (!isBf16)
        throwUnusable(i, bits.is_valid() ? nb::handle(bits) : item);
    }
    const nb::ndarray<> &array = arrays.back();
    if (!matches(i, array))
      throw nb::value_error(
          (describe(i) + ": expected " + expected(i) + ", got " +
           (isBf16 ? formatBuffer(NLRT_DTYPE_BF16, array.shape_ptr(),
                                  array.ndim())
                   : formatArray(array.dtype(), array.shape_ptr(),
                                 array.ndim())))
              .c_str());
    // The runtime refuses NULL; an empty array may legitimately have none.
    static char emptyBuffer;
    pointers[i] = array.data() ? array.data() : &emptyBuffer;
  }
  return pointers;
}

void Executable::executeBuffers(nb::handle buffers) const {
  nb::sequence sequence = nb::borrow<nb::sequence>(buffers);
  std::vector<nb::object> held; // keeps the Buffers alive without the GIL
  std::vector<nlrt_buffer *> handles;
  for (nb::handle item : sequence) {
    Buffer *buffer = nullptr;
    if (!nb::try_cast<Buffer *>(item, buffer) || !buffer)
      throw nb::type_error(
          (std::string("execute_buffers takes numlir._runtime.Buffer objects, "
                       "got '") +
           Py_TYPE(item.ptr())->tp_name + "'")
              .c_str());
    held.push_back(nb::borrow(item));
    handles.push_back(buffer->handle);
  }
  nlrt_status status;
  {
    nb::gil_scoped_release release;
    status = nlrt_executable_execute_buffers(handle, handles.data(),
                                             handles.size());
  }
  if (status == NLRT_HOST_CALLBACK_FAILED)
    raisePendingCallbackError();
  checkStatus(status);
}

} // namespace numlir::runtime
