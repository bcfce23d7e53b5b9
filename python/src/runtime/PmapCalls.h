//===- PmapCalls.h - a pmapped function's remembered calls ------*- C++ -*-===//
//
// The per-call path of numlir.pmap on numlir's cpu devices: after the
// general path (python/numlir/_src/pmap.py) has run a call, its decisions
// are kept as a plan (the executables loaded on each device, the
// communicator, each argument's mapped axis, the outputs' Arrays). A later
// call whose positional Arrays match runs the SPMD launch on rows of the
// arguments' buffers and writes each device's outputs into rows of new
// stacked arrays, without running Python. Anything else returns None and
// pmap.py goes the general way, which decides and reports.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PYTHON_RUNTIME_PMAPCALLS_H
#define NUMLIR_PYTHON_RUNTIME_PMAPCALLS_H

#include "RecentPlans.h"

#include <nanobind/nanobind.h>

namespace numlir::runtime {

struct PmapPlan;

/// The remembered calls of one pmapped function, most recently used first.
/// Only touched with the GIL held; a running call keeps its plan alive.
class PmapCallCache {
public:
  /// The outputs of `args` (a tuple) if a plan matches it, else None.
  /// Raises what the launch raises (a collective's failure).
  nanobind::object call(nanobind::handle args);

  /// Remembers the call the general path just made on `args` (a tuple of
  /// Arrays, each mapped on `inAxes[i]`, 0 or None): `executables` (one
  /// CpuExecutable per local device, `_native`), launched by
  /// `communicator`, gave `outputs`, Arrays stacked on axis 0 whose aval,
  /// device, committed flag and layout each later call's outputs take,
  /// rebuilt by `unflatten` as CallCache.remember's. `donated` maps each
  /// donated argument (mapped on axis 0, deleted by the call) to (its
  /// output, the _DeletedBuffer its Array's value becomes). Ignored when
  /// `generation` is no longer current (CallCache.generation) or the
  /// buffers are not what the executables' signatures say; whether it was
  /// kept.
  bool remember(uint64_t generation, nanobind::handle args,
                nanobind::handle inAxes, nanobind::handle donated,
                nanobind::handle executables, nanobind::handle communicator,
                nanobind::handle outputs, nanobind::handle unflatten);

  size_t size() const { return plans.size(); }
  void clear() { plans.clear(); }

private:
  RecentPlans<PmapPlan> plans;
};

/// Defines numlir._runtime.PmapCallCache.
void definePmapCallCache(nanobind::module_ &m);

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_PMAPCALLS_H
