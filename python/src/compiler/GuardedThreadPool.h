//===- GuardedThreadPool.h - MLIR's worker threads, crash-guarded -*- C++ -*-===//
//
// MLIR runs the passes nested on functions (func.func(...), llvm.func(...))
// on its context's thread pool. Debian's LLVM has assertions off, so a
// compiler bug shows as a segfault, and a segfault on a thread without a
// CrashRecoveryContext kills the Python process. This pool runs every task
// under one, and remembers that a task crashed, so that the call that
// started the work (runGuarded) raises CompileError instead.
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_PYTHON_GUARDEDTHREADPOOL_H
#define NUMLIR_PYTHON_GUARDEDTHREADPOOL_H

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <atomic>

namespace numlir::python {

class GuardedThreadPool final : public llvm::ThreadPoolInterface {
public:
  GuardedThreadPool() : workers(llvm::hardware_concurrency()) {}

  void wait() override { workers.wait(); }
  // The group's tasks sit in `workers` under the group's address, so
  // waiting there waits for exactly them (and a waiting worker thread helps).
  void wait(llvm::ThreadPoolTaskGroup &group) override { workers.wait(group); }
  unsigned getMaxConcurrency() const override {
    return workers.getMaxConcurrency();
  }

  /// Whether a task crashed since the last call; clears the mark.
  bool takeCrash() { return crashed.exchange(false); }

private:
  void asyncEnqueue(llvm::unique_function<void()> task,
                    llvm::ThreadPoolTaskGroup *group) override {
    auto guarded = [this, task = std::move(task)]() mutable {
      llvm::CrashRecoveryContext recovery;
      if (!recovery.RunSafely([&] { task(); }))
        crashed = true;
    };
    if (group)
      workers.async(*group, std::move(guarded));
    else
      workers.async(std::move(guarded));
  }

  // Threads start on first use, so a process that never compiles in
  // parallel never starts them.
  llvm::DefaultThreadPool workers;
  std::atomic<bool> crashed{false};
};

/// The pool every compilation context of this module shares. Never
/// destroyed: its threads must not be joined during static destruction.
inline GuardedThreadPool &compilePool() {
  static GuardedThreadPool *pool = new GuardedThreadPool();
  return *pool;
}

} // namespace numlir::python

#endif // NUMLIR_PYTHON_GUARDEDTHREADPOOL_H
