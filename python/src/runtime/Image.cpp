//===- Image.cpp - executable images: header + payload --------------------===//

#include "Image.h"

#include "BufferView.h"
#include "Status.h"

#include <Python.h>

#include <cstring>

namespace nb = nanobind;

namespace numlir::runtime {

nb::bytes wrapImage(nb::handle payload, const std::string &driver) {
  BufferView bytes(payload);
  size_t size = (size_t)bytes.view.len;
  PyObject *image =
      PyBytes_FromStringAndSize(nullptr, NLRT_IMAGE_HEADER_SIZE + size);
  if (!image)
    throw nb::python_error();
  nb::bytes result = nb::steal<nb::bytes>(image);
  char *out = PyBytes_AS_STRING(image);
  checkStatus(
      nlrt_image_write_header(driver.c_str(), bytes.view.buf, size, out));
  if (size)
    std::memcpy(out + NLRT_IMAGE_HEADER_SIZE, bytes.view.buf, size);
  return result;
}

nb::tuple unwrapImage(nb::handle image) {
  BufferView bytes(image);
  char driver[NLRT_IMAGE_MAX_DRIVER_LENGTH + 1];
  const void *payload = nullptr;
  size_t size = 0;
  checkStatus(nlrt_image_verify(bytes.view.buf, (size_t)bytes.view.len,
                                driver, &payload, &size));
  return nb::make_tuple(nb::str(driver),
                        nb::bytes(static_cast<const char *>(payload), size));
}

} // namespace numlir::runtime
