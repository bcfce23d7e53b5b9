//===- Image.h - executable images: header + payload ------------*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_IMAGE_H
#define NUMLIR_PYTHON_RUNTIME_IMAGE_H

#include <nanobind/nanobind.h>

#include <string>

namespace numlir::runtime {

/// Header + payload, as bytes.
nanobind::bytes wrapImage(nanobind::handle payload, const std::string &driver);

/// (driver, payload) of a verified image; throws InvalidExecutable.
nanobind::tuple unwrapImage(nanobind::handle image);

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_IMAGE_H
