//===- SharedObjectLinker.cpp - host objects to shared objects with lld ---===//

#include "numlir/Backends/CPU/SharedObjectLinker.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <vector>

LLD_HAS_DRIVER(elf)

using namespace numlir::cpu;

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
} // namespace

/// The file of the shared library that defines `address` ("" if none).
static std::string getLibraryDefining(void *address) {
  Dl_info info;
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr)
    return "";
  return info.dli_fname;
}

// The executable's libc and libm calls bind to the libraries this process
// already uses; naming those files (not a search path) keeps the link
// independent of the distribution's directory layout and of the C
// compiler's runtime. `volatile` keeps the compiler from folding the
// address of a builtin.
std::string numlir::cpu::getLoadedMathLibraryPath() {
  double (*volatile function)(double) = &::cos;
  return getLibraryDefining(reinterpret_cast<void *>(function));
}

static std::string getLoadedCLibraryPath() {
  void *(*volatile function)(size_t) = &::malloc;
  return getLibraryDefining(reinterpret_cast<void *>(function));
}

/// The OpenMP runtime that parallel loops call (`__kmpc_fork_call` and
/// friends, from convert-openmp-to-llvm's translation), loaded into this
/// process and kept there, so the executables bind to the same copy the
/// runtime configures (see nlrt's cpu driver). "" if it is not installed.
static std::string getOpenMPLibraryPath() {
  void *handle = dlopen("libomp.so.5", RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr)
    return "";
  void *symbol = dlsym(handle, "__kmpc_fork_call");
  return symbol == nullptr ? "" : getLibraryDefining(symbol);
}

/// Whether `objectPath`'s object calls into the OpenMP runtime.
static bool callsOpenMP(const std::string &objectPath) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(objectPath);
  return buffer && (*buffer)->getBuffer().contains("__kmpc_fork_call");
}

llvm::Error numlir::cpu::linkSharedObject(const std::string &objectPath,
                                          const std::string &outputPath) {
  static std::mutex mutex;
  static bool broken = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (broken)
    return makeError("lld reported that it cannot link again in this process");
  static const std::string libraries[] = {getLoadedMathLibraryPath(),
                                          getLoadedCLibraryPath()};
  std::string openMP;
  if (callsOpenMP(objectPath)) {
    static const std::string loaded = getOpenMPLibraryPath();
    if (loaded.empty())
      return makeError("the executable runs parallel loops, which need the "
                       "OpenMP runtime libomp.so.5 (Debian package "
                       "libomp5-19), and dlopen could not load it");
    openMP = loaded;
  }
  std::vector<const char *> args = {
      "ld.lld", "-shared", "--eh-frame-hdr", "-z", "noexecstack",
      "-z", "relro", "--hash-style=gnu", "--build-id=none",
      "-o", outputPath.c_str(),
      // The object of a large module is an archive of one per partition.
      "--whole-archive", objectPath.c_str(), "--no-whole-archive"};
  args.push_back("--as-needed");
  for (const std::string &library : libraries)
    if (!library.empty())
      args.push_back(library.c_str());
  if (!openMP.empty())
    args.push_back(openMP.c_str());
  std::string diagnostics;
  llvm::raw_string_ostream errors(diagnostics);
  std::string output;
  llvm::raw_string_ostream out(output);
  lld::Result result =
      lld::lldMain(args, out, errors, {{lld::Gnu, &lld::elf::link}});
  if (!result.canRunAgain)
    broken = true;
  if (result.retCode != 0)
    return makeError("lld failed to link the executable:\n" + diagnostics);
  return llvm::Error::success();
}
