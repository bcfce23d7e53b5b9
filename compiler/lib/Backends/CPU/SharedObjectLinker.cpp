//===- SharedObjectLinker.cpp - host objects to shared objects with lld ---===//

#include "numlir/Backends/CPU/SharedObjectLinker.h"

#include "lld/Common/Driver.h"
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

llvm::Error numlir::cpu::linkSharedObject(const std::string &objectPath,
                                          const std::string &outputPath) {
  static std::mutex mutex;
  static bool broken = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (broken)
    return makeError("lld reported that it cannot link again in this process");
  static const std::string libraries[] = {getLoadedMathLibraryPath(),
                                          getLoadedCLibraryPath()};
  std::vector<const char *> args = {
      "ld.lld", "-shared", "--eh-frame-hdr", "-z", "noexecstack",
      "-z", "relro", "--hash-style=gnu", "--build-id=none",
      "-o", outputPath.c_str(), objectPath.c_str()};
  args.push_back("--as-needed");
  for (const std::string &library : libraries)
    if (!library.empty())
      args.push_back(library.c_str());
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
