//===- SharedObjectLinker.cpp - host objects to shared objects with lld ---===//

#include "numlir/Backends/CPU/SharedObjectLinker.h"
#include "numlir/Backends/CPU/LibraryStubs.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
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

namespace {
/// lld's state: it keeps globals, so links are serialized; once it says it
/// cannot run again, it is not asked to.
struct Linker {
  std::mutex mutex;
  bool broken = false;
  LibraryStubs stubs;
  unsigned stubLinks = 0;

  /// Runs lld with `arguments` after the program name.
  llvm::Error run(const std::vector<std::string> &arguments) {
    if (broken)
      return makeError(
          "lld reported that it cannot link again in this process");
    std::vector<const char *> argv = {"ld.lld"};
    for (const std::string &argument : arguments)
      argv.push_back(argument.c_str());
    std::string diagnostics;
    llvm::raw_string_ostream errors(diagnostics);
    std::string output;
    llvm::raw_string_ostream out(output);
    lld::Result result =
        lld::lldMain(argv, out, errors, {{lld::Gnu, &lld::elf::link}});
    if (!result.canRunAgain)
      broken = true;
    if (result.retCode != 0)
      return makeError("lld failed to link the executable:\n" + diagnostics);
    return llvm::Error::success();
  }
};

Linker &getLinker() {
  // Never destroyed: links may still run while static destructors do.
  static Linker *linker = new Linker();
  return *linker;
}
} // namespace

llvm::Error numlir::cpu::linkSharedObject(const std::string &objectPath,
                                          const std::string &outputPath,
                                          bool useStubs) {
  Linker &linker = getLinker();
  std::lock_guard<std::mutex> lock(linker.mutex);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> object =
      llvm::MemoryBuffer::getFile(objectPath);
  if (!object)
    return makeError("cannot read " + objectPath + ": " +
                     object.getError().message());
  static const std::string mathAndC[] = {getLoadedMathLibraryPath(),
                                         getLoadedCLibraryPath()};
  std::vector<std::string> libraries;
  for (const std::string &library : mathAndC)
    if (!library.empty())
      libraries.push_back(library);
  if ((*object)->getBuffer().contains("__kmpc_fork_call")) {
    static const std::string openMP = getOpenMPLibraryPath();
    if (openMP.empty())
      return makeError("the executable runs parallel loops, which need the "
                       "OpenMP runtime libomp.so.5 (Debian package "
                       "libomp5-19), and dlopen could not load it");
    libraries.push_back(openMP);
  }
  // Stubs, where they cover what the object calls; the real libraries
  // otherwise, and whenever the stubs cannot be had (the link is the same).
  if (useStubs) {
    llvm::Expected<std::vector<std::string>> undefined =
        getUndefinedSymbols((*object)->getBuffer());
    llvm::Expected<std::optional<std::vector<std::string>>> stubFiles =
        undefined ? linker.stubs.getStubFiles(
                        libraries, *undefined,
                        llvm::sys::path::parent_path(outputPath),
                        [&](const std::vector<std::string> &arguments) {
                          return linker.run(arguments);
                        })
                  : undefined.takeError();
    if (!stubFiles) {
      llvm::consumeError(stubFiles.takeError());
    } else if (*stubFiles) {
      libraries = std::move(**stubFiles);
      ++linker.stubLinks;
    }
  }
  std::vector<std::string> arguments = {
      "-shared", "--eh-frame-hdr", "-z", "noexecstack", "-z", "relro",
      "--hash-style=gnu", "--build-id=none", "-o", outputPath,
      // The object of a large module is an archive of one per partition.
      "--whole-archive", objectPath, "--no-whole-archive", "--as-needed"};
  arguments.insert(arguments.end(), libraries.begin(), libraries.end());
  return linker.run(arguments);
}

LinkerCounts numlir::cpu::getLinkerCounts() {
  Linker &linker = getLinker();
  std::lock_guard<std::mutex> lock(linker.mutex);
  return {linker.stubLinks, linker.stubs.getBuildCount()};
}
