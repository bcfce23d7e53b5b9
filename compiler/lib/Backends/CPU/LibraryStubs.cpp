//===- LibraryStubs.cpp - small stand-ins for the libraries we link -------===//

#include "numlir/Backends/CPU/LibraryStubs.h"
#include "numlir/Backends/CPU/ObjectEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace numlir::cpu;
using ELF64 = llvm::object::ELF64LE;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Symbols lld defines in every shared object it writes.
bool isDefinedByTheLinker(llvm::StringRef name) {
  return name == "_GLOBAL_OFFSET_TABLE_" || name == "_DYNAMIC" ||
         name == "__ehdr_start";
}

/// Names that go into IR and version scripts without quoting trouble;
/// every libc, libm and libomp function name is one.
bool isPlainName(llvm::StringRef name) {
  return !name.empty() && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
  });
}

llvm::Error addUndefined(const llvm::object::ObjectFile &object,
                         llvm::StringSet<> &names) {
  for (const llvm::object::SymbolRef &symbol : object.symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags)
      return flags.takeError();
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name)
      return name.takeError();
    if (!name->empty() && !isDefinedByTheLinker(*name))
      names.insert(*name);
  }
  return llvm::Error::success();
}

llvm::Error writeFile(llvm::StringRef path, llvm::StringRef contents) {
  std::error_code error;
  llvm::raw_fd_ostream out(path, error);
  if (error)
    return makeError("cannot write " + path + ": " + error.message());
  out << contents;
  out.close();
  if (out.has_error())
    return makeError("cannot write " + path + ": " + out.error().message());
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::vector<std::string>>
numlir::cpu::getUndefinedSymbols(llvm::StringRef objectFile) {
  llvm::MemoryBufferRef buffer(objectFile, "object");
  llvm::StringSet<> names;
  llvm::Expected<std::unique_ptr<llvm::object::Binary>> binary =
      llvm::object::createBinary(buffer);
  if (!binary)
    return binary.takeError();
  if (auto *archive = llvm::dyn_cast<llvm::object::Archive>(binary->get())) {
    llvm::Error error = llvm::Error::success();
    for (const llvm::object::Archive::Child &child : archive->children(error)) {
      llvm::Expected<std::unique_ptr<llvm::object::Binary>> member =
          child.getAsBinary();
      if (!member)
        return member.takeError();
      auto *object = llvm::dyn_cast<llvm::object::ObjectFile>(member->get());
      if (!object)
        return makeError("an archive member is not an object file");
      if (llvm::Error failure = addUndefined(*object, names))
        return std::move(failure);
    }
    if (error)
      return std::move(error);
  } else if (auto *object =
                 llvm::dyn_cast<llvm::object::ObjectFile>(binary->get())) {
    if (llvm::Error failure = addUndefined(*object, names))
      return std::move(failure);
  } else {
    return makeError("not an object file or archive");
  }
  std::vector<std::string> sorted;
  for (const auto &entry : names)
    sorted.push_back(entry.getKey().str());
  llvm::sort(sorted);
  return sorted;
}

/// Reads the functions a shared library exports, each with the version a
/// new reference binds to: the default one (`name@@VERSION`), not the
/// hidden older ones kept for old binaries.
llvm::Expected<LibraryStubs::Library *>
LibraryStubs::getLibrary(const std::string &path) {
  auto found = libraries.find(path);
  if (found != libraries.end())
    return &found->second;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError("cannot read " + path + ": " +
                     buffer.getError().message());
  llvm::Expected<llvm::object::ELFFile<ELF64>> file =
      llvm::object::ELFFile<ELF64>::create((*buffer)->getBuffer());
  if (!file)
    return file.takeError();
  auto sections = file->sections();
  if (!sections)
    return sections.takeError();
  const ELF64::Shdr *dynsym = nullptr, *versym = nullptr, *verdef = nullptr;
  for (const ELF64::Shdr &section : *sections) {
    if (section.sh_type == llvm::ELF::SHT_DYNSYM)
      dynsym = &section;
    else if (section.sh_type == llvm::ELF::SHT_GNU_versym)
      versym = &section;
    else if (section.sh_type == llvm::ELF::SHT_GNU_verdef)
      verdef = &section;
  }
  if (!dynsym)
    return makeError(path + " has no dynamic symbol table");
  llvm::Expected<llvm::StringRef> strings =
      file->getStringTableForSymtab(*dynsym);
  if (!strings)
    return strings.takeError();

  Library library;
  library.osabi = file->getHeader().e_ident[llvm::ELF::EI_OSABI];
  auto entries = file->dynamicEntries();
  if (!entries)
    return entries.takeError();
  for (const ELF64::Dyn &entry : *entries)
    if (entry.d_tag == llvm::ELF::DT_SONAME && entry.getVal() < strings->size())
      library.soname = strings->data() + entry.getVal();
  if (library.soname.empty())
    return makeError(path + " has no soname");

  std::map<unsigned, std::string> versionNames;
  if (verdef) {
    auto definitions = file->getVersionDefinitions(*verdef);
    if (!definitions)
      return definitions.takeError();
    for (const llvm::object::VerDef &definition : *definitions)
      versionNames[definition.Ndx] = definition.Name;
  }
  llvm::ArrayRef<ELF64::Versym> versions;
  if (versym) {
    auto contents = file->getSectionContentsAsArray<ELF64::Versym>(*versym);
    if (!contents)
      return contents.takeError();
    versions = *contents;
  }
  auto symbols = file->symbols(dynsym);
  if (!symbols)
    return symbols.takeError();
  for (size_t index = 1; index < symbols->size(); ++index) {
    const ELF64::Sym &symbol = (*symbols)[index];
    unsigned char type = symbol.getType(), binding = symbol.getBinding();
    if (symbol.st_shndx == llvm::ELF::SHN_UNDEF ||
        (type != llvm::ELF::STT_FUNC && type != llvm::ELF::STT_GNU_IFUNC) ||
        (binding != llvm::ELF::STB_GLOBAL && binding != llvm::ELF::STB_WEAK))
      continue;
    Export exported;
    if (index < versions.size()) {
      uint16_t version = versions[index].vs_index;
      if (version & llvm::ELF::VERSYM_HIDDEN)
        continue;
      version &= llvm::ELF::VERSYM_VERSION;
      if (version >= 2) { // 0: local, 1: the base (unversioned)
        auto name = versionNames.find(version);
        if (name == versionNames.end())
          continue;
        exported.version = name->second;
        exported.versionIndex = version;
      }
    }
    llvm::Expected<llvm::StringRef> name = symbol.getName(*strings);
    if (!name)
      return name.takeError();
    exported.isIndirect = type == llvm::ELF::STT_GNU_IFUNC;
    exported.isWeak = binding == llvm::ELF::STB_WEAK;
    library.exports.try_emplace(*name, exported);
  }
  return &libraries.emplace(path, std::move(library)).first->second;
}

/// Builds a shared object named like `library` that defines its stubbed
/// functions: empty bodies (an indirect function's resolver returns null),
/// given their versions by a version script, since the versions are all a
/// reference takes from a definition.
llvm::Error LibraryStubs::buildStub(Library &library, llvm::StringRef directory,
                                    const LinkCommand &link) {
  std::string ir;
  // Version nodes in the library's order, so the stub numbers them alike.
  std::map<std::pair<unsigned, std::string>, std::vector<std::string>>
      byVersion;
  bool anyIndirect = false;
  for (const auto &[name, exported] : library.stubbed) {
    std::string linkage = exported.isWeak ? "weak " : "";
    if (exported.isIndirect) {
      ir += "@" + name + " = " + linkage +
            "ifunc void (), ptr @numlir.stub.resolve\n";
      anyIndirect = true;
    } else {
      ir += "define " + linkage + "void @" + name + "() {\n  ret void\n}\n";
    }
    if (!exported.version.empty())
      byVersion[{exported.versionIndex, exported.version}].push_back(name);
  }
  if (anyIndirect)
    ir += "define internal ptr @numlir.stub.resolve() {\n  ret ptr null\n}\n";
  llvm::Expected<CompiledObject> object = compileLLVMIRForHost(
      ir, /*optLevel=*/0, /*unrollLoops=*/false, /*threads=*/1,
      /*printOptimizedIR=*/false, /*outlineMinInstructions=*/0);
  if (!object)
    return object.takeError();

  std::string script;
  for (const auto &[version, names] : byVersion) {
    script += version.second + " {\n  global:\n";
    for (const std::string &name : names)
      script += "    \"" + name + "\";\n";
    script += "};\n";
  }
  llvm::SmallString<128> objectPath(directory), scriptPath(directory),
      stubPath(directory);
  llvm::sys::path::append(objectPath, "numlir-stub.o");
  llvm::sys::path::append(scriptPath, "numlir-stub.map");
  llvm::sys::path::append(stubPath, "numlir-stub.so");
  if (llvm::Error error = writeFile(objectPath, object->object))
    return error;
  if (llvm::Error error = writeFile(scriptPath, script))
    return error;
  std::vector<std::string> arguments = {"-shared", "-soname", library.soname,
                                        "-o", std::string(stubPath),
                                        std::string(objectPath)};
  if (!byVersion.empty()) {
    arguments.push_back("--version-script");
    arguments.push_back(std::string(scriptPath));
  }
  llvm::Error linked = link(arguments);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> stub =
      linked ? nullptr : llvm::MemoryBuffer::getFile(stubPath);
  llvm::sys::fs::remove(objectPath);
  llvm::sys::fs::remove(scriptPath);
  llvm::sys::fs::remove(stubPath);
  if (linked)
    return linked;
  if (!stub)
    return makeError("cannot read the stub of " + library.soname + ": " +
                     stub.getError().message());
  library.stub = (*stub)->getBuffer().str();
  library.stub[llvm::ELF::EI_OSABI] = static_cast<char>(library.osabi);
  ++builds;
  return llvm::Error::success();
}

llvm::Expected<std::optional<std::vector<std::string>>>
LibraryStubs::getStubFiles(const std::vector<std::string> &paths,
                           const std::vector<std::string> &undefined,
                           llvm::StringRef directory, const LinkCommand &link) {
  std::vector<Library *> order;
  for (const std::string &path : paths) {
    llvm::Expected<Library *> library = getLibrary(path);
    if (!library)
      return library.takeError();
    order.push_back(*library);
  }
  // A name two libraries export binds to the first on the command line, as
  // lld binds it with the real libraries; only that library's stub has it.
  std::vector<bool> grown(order.size(), false);
  for (const std::string &name : undefined) {
    if (!isPlainName(name))
      return std::nullopt;
    size_t index = 0;
    while (index < order.size() && !order[index]->exports.count(name))
      ++index;
    if (index == order.size())
      return std::nullopt;
    Library &library = *order[index];
    if (library.stubbed.emplace(name, library.exports.lookup(name)).second)
      grown[index] = true;
  }
  std::vector<std::string> files;
  for (size_t index = 0; index < order.size(); ++index) {
    Library &library = *order[index];
    if (library.stubbed.empty())
      continue; // as --as-needed drops a real library nothing calls
    if (grown[index] || library.stub.empty())
      if (llvm::Error error = buildStub(library, directory, link)) {
        library.stub.clear(); // built again, whole, by the next link
        return std::move(error);
      }
    llvm::SmallString<128> file(directory);
    llvm::sys::path::append(file, "stub" + std::to_string(index) + "-" +
                                      library.soname);
    if (llvm::Error error = writeFile(file, library.stub))
      return std::move(error);
    files.push_back(std::string(file));
  }
  return files;
}
