//===- RecentPlans.h - remembered calls, most recent first ------*- C++ -*-===//
//
// The plans a per-call path keeps for one function (CallCache.cpp for jit,
// PmapCalls.cpp for pmap): at most kMaxPlans, the signatures a loop
// repeats, most recently used first, all made under one config generation
// and dropped together when it changes.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PYTHON_RUNTIME_RECENTPLANS_H
#define NUMLIR_PYTHON_RUNTIME_RECENTPLANS_H

#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace numlir::runtime {

/// `Plan` has `bool matches(PyObject *args) const`. Only touched with the
/// GIL held; a running call keeps its plan alive through the shared_ptr.
template <typename Plan> class RecentPlans {
public:
  /// A function called with more signatures keeps the most recent; the
  /// rest go the general way, which still caches their executables.
  static constexpr size_t kMaxPlans = 8;

  /// The plan matching the tuple `args`, now first; null if none does or
  /// the generation is no longer `current` (the plans are dropped then).
  std::shared_ptr<Plan> find(PyObject *args, uint64_t current) {
    if (plans.empty())
      return nullptr;
    if (generation != current) {
      plans.clear();
      return nullptr;
    }
    for (size_t i = 0; i < plans.size(); ++i) {
      if (!plans[i]->matches(args))
        continue;
      std::rotate(plans.begin(), plans.begin() + i, plans.begin() + i + 1);
      return plans.front();
    }
    return nullptr;
  }

  /// Puts `plan`, made under `current`, first, dropping plans for the same
  /// arguments (whose run went the general way) and the least recent
  /// beyond kMaxPlans.
  void keep(std::shared_ptr<Plan> plan, PyObject *args, uint64_t current) {
    if (generation != current) {
      plans.clear();
      generation = current;
    }
    plans.erase(std::remove_if(plans.begin(), plans.end(),
                               [&](const std::shared_ptr<Plan> &old) {
                                 return old->matches(args);
                               }),
                plans.end());
    plans.insert(plans.begin(), std::move(plan));
    if (plans.size() > kMaxPlans)
      plans.pop_back();
  }

  size_t size() const { return plans.size(); }
  void clear() { plans.clear(); }

private:
  std::vector<std::shared_ptr<Plan>> plans;
  uint64_t generation = 0; // of every plan in `plans`
};

} // namespace numlir::runtime

#endif // NUMLIR_PYTHON_RUNTIME_RECENTPLANS_H
