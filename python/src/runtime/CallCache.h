//===- CallCache.h - a jitted function's remembered cpu calls ---*- C++ -*-===//
//
// The per-call path of a jitted function on numlir's cpu backend: after the
// general path (python/numlir/_src/jit.py) has run a call, host_calls.py
// hands its decisions here as a plan, keyed by what decided them. A later
// call whose arguments match a plan runs the plan's executable and wraps its
// outputs in numlir Arrays without running any Python; on a device with
// memory of its own (PJRT), with one Python call, its executable's
// `execute`. docs/design-decisions.md ("Remembered calls run in C++") has
// the design.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PYTHON_RUNTIME_CALLCACHE_H
#define NUMLIR_PYTHON_RUNTIME_CALLCACHE_H

#include "RecentPlans.h"

#include <nanobind/nanobind.h>

namespace numlir::runtime {

struct CallPlan;

/// The remembered calls of one jitted function, most recently used first.
/// Only touched with the GIL held; a running call keeps its plan alive.
class CallCache {
public:
  /// Tells every cache which Python objects to read (once, by host_calls.py):
  /// the Array and ShapedArray classes, whose slots are read directly; the
  /// EvalTrace class and the thread-local trace state of numlir._src.core
  /// (a call under another trace goes the general way); the thread-local
  /// placement state whose `default_devices` stack, when it names a device,
  /// decides where uncommitted arguments run.
  static void setContext(nanobind::handle arrayType,
                         nanobind::handle shapedArrayType,
                         nanobind::handle evalTraceType,
                         nanobind::handle traceState,
                         nanobind::handle placementState);

  /// Forgets every cache's plans: a config flag changed (x64, debug_nans,
  /// disable_jit, the default device, ...), so what decided them may have.
  static void invalidateAll();

  /// The count of invalidateAll() calls: a plan remembers the one its
  /// general call began under and is dropped if they differ.
  static uint64_t generation();

  /// The outputs of `args` (a tuple) if a plan matches it, else None, also
  /// for anything unusual (the general path then decides and reports it).
  nanobind::object call(nanobind::handle args);

  /// Remembers the call the general path just made on `args` (live Arrays):
  /// `executable` (a CpuExecutable: `_native`, `output_specs`) on `device`,
  /// its outputs `outAvals`, committed or not, rebuilt by `unflatten` (None
  /// for a single output; the tuple or list type for a flat tuple or list;
  /// else a callable taking the list of outputs); `allocate`, if not None,
  /// makes the output buffers (the pooled allocator of large outputs).
  /// Ignored when `generation` is no longer current or the thread state is
  /// not the plain one.
  void remember(uint64_t generation, nanobind::handle args,
                nanobind::handle executable, nanobind::handle device,
                nanobind::handle outAvals, bool committed,
                nanobind::handle unflatten, nanobind::handle allocate);

  /// Remembers a call the general path just made on `args`, all on `device`,
  /// a device with memory of its own (`device.host_memory` false):
  /// `executable.execute(buffers)` runs it, taking the arguments' `_value`s
  /// (all of the first one's type) and returning a list of output buffers,
  /// wrapped as Arrays of `outAvals` on `device`, committed if an argument
  /// is. `device` must be where the general path ran it: for uncommitted
  /// arguments, the default device. Whether it was kept (not under a trace
  /// or, for uncommitted arguments, a default_device context; not for mixed
  /// buffer types).
  bool rememberOnDevice(uint64_t generation, nanobind::handle args,
                        nanobind::handle executable, nanobind::handle device,
                        nanobind::handle outAvals, nanobind::handle unflatten);

  size_t size() const { return plans.size(); }
  void clear() { plans.clear(); }

private:
  RecentPlans<CallPlan> plans;
};

/// Defines numlir._runtime.CallCache.
void defineCallCache(nanobind::module_ &m);

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_CALLCACHE_H
