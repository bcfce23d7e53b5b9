//===- NumpyApi.h - NumPy's C API, one table for the module ------*- C++ -*-===//
//
// NumPy's C API is a table of function pointers that each translation unit
// would otherwise import for itself. The module's files share one, imported
// by ArraySlots.cpp (setArrayContext); the others include this header with
// NUMLIR_NUMPY_IMPORTS_HERE undefined.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PYTHON_RUNTIME_NUMPYAPI_H
#define NUMLIR_PYTHON_RUNTIME_NUMPYAPI_H

#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL numlir_runtime_numpy_api
#ifndef NUMLIR_NUMPY_IMPORTS_HERE
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#endif // NUMLIR_PYTHON_RUNTIME_NUMPYAPI_H
