//===- LibraryStubs.h - small stand-ins for libc, libm and libomp -*- C++ -*-===//
//
// Linking an executable against the real libc and libm made lld read and
// hash their ~4,000 dynamic symbols on every link: 60% of the in-process
// link, a fifth of an eager op's compile time. A stub is a shared object
// with the real library's soname that defines, with the versions the real
// library gives them, only the functions this process's executables have
// called so far. Linked against stubs, an executable is the same file,
// byte for byte, as linked against the real libraries (test_library_stubs).
//
//===----------------------------------------------------------------------===//

#ifndef NUMLIR_BACKENDS_CPU_LIBRARYSTUBS_H
#define NUMLIR_BACKENDS_CPU_LIBRARYSTUBS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace numlir::cpu {

/// Links with lld: the arguments after the program name.
using LinkCommand =
    std::function<llvm::Error(const std::vector<std::string> &arguments)>;

/// The names an object file (or each object of an ar archive) leaves
/// undefined, less those the linker defines itself.
llvm::Expected<std::vector<std::string>>
getUndefinedSymbols(llvm::StringRef objectFile);

/// Stubs of a list of shared libraries, grown as executables need more of
/// their functions. Not thread-safe: the caller serializes links anyway.
class LibraryStubs {
public:
  /// Stub files standing in for `libraries` (in link order, as their paths)
  /// for an object that leaves `undefined` undefined, written into
  /// `directory`; std::nullopt when a name is not a function that one of the
  /// libraries exports (a data symbol, or one nobody defines): then the
  /// object links against the real libraries. `link` builds a new stub.
  llvm::Expected<std::optional<std::vector<std::string>>>
  getStubFiles(const std::vector<std::string> &libraries,
               const std::vector<std::string> &undefined,
               llvm::StringRef directory, const LinkCommand &link);

  /// How many times stubs were built (each time a link needed a function
  /// no stub had yet).
  unsigned getBuildCount() const { return builds; }

private:
  /// A function a library exports: the version a new reference binds to
  /// ("" for an unversioned one), and how it is defined.
  struct Export {
    std::string version;
    /// The version's index in the library: lld lists an executable's
    /// versions of a library in this order.
    unsigned versionIndex = 0;
    bool isIndirect = false;
    bool isWeak = false;
  };
  struct Library {
    std::string soname;
    /// The ELF header's OS/ABI byte (GNU for glibc), which lld copies into
    /// the executables it links.
    unsigned char osabi = 0;
    llvm::StringMap<Export> exports;
    /// The functions the stub defines, and the stub itself.
    std::map<std::string, Export> stubbed;
    std::string stub;
  };

  llvm::Expected<Library *> getLibrary(const std::string &path);
  llvm::Error buildStub(Library &library, llvm::StringRef directory,
                        const LinkCommand &link);

  std::map<std::string, Library> libraries;
  unsigned builds = 0;
};

} // namespace numlir::cpu

#endif // NUMLIR_BACKENDS_CPU_LIBRARYSTUBS_H
