//===- HostCallbacks.h - the runtime's host callback handler ---*- C++ -*-===//

#ifndef NUMLIR_PYTHON_RUNTIME_HOSTCALLBACKS_H
#define NUMLIR_PYTHON_RUNTIME_HOSTCALLBACKS_H

#include <nanobind/nanobind.h>

namespace numlir::runtime {

/// Defines set_host_callback_dispatcher on `m` (HostCallbacks.cpp).
void defineHostCallbacks(nanobind::module_ &m);

/// After an execute that returned NLRT_HOST_CALLBACK_FAILED: raises the
/// Python exception the callback raised on this thread, if one is pending.
void raisePendingCallbackError();

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_HOSTCALLBACKS_H
