"""Saved executables: a compiled function in a file, loaded and run without the compiler.

``numlir.jit(f).lower(*args).compile().save(path)`` writes one;
``numlir.load_executable(path)`` reads it back as a callable, in this or
another process, on a machine that has numlir's runtime but not its compiler
(numlir._compiler and LLVM are never imported). The file is an artifact_file frame
(magic b"NLSAVED\\x1a"; docs/saved-executables.md) whose payload is the backend's image.

The metadata holds the signature (argument and result structure, dtypes and
shapes) and the target the image was compiled for; the image is what the
backend's device loads (for cpu, the runtime's checksummed image). Loading
checks, in order: the header, the size, the checksum, the format and numlir
versions, the backend, the target (architecture and CPU features), and only
then hands the image to the runtime. Each failure is a SavedExecutableError
that names the file and what is wrong.
"""

from __future__ import annotations

import os

from numlir._src import (
    artifact_file,
    backends,
    compilation_cache,
    core,
    dispatch,
    donation,
    tree_util,
)

MAGIC = b"NLSAVED\x1a"
FORMAT_VERSION = 1
HEADER_SIZE = artifact_file.HEADER_SIZE


class SavedExecutableError(ValueError):
    """A saved executable that cannot be loaded here: damaged, from another version, or
    compiled for another machine."""


_FORMAT = artifact_file.ArtifactFormat(MAGIC, FORMAT_VERSION, "numlir saved executable",
                                       SavedExecutableError)
encode = _FORMAT.encode


def decode(data: bytes, path: str) -> tuple[dict, bytes]:
    """(metadata, image) of an intact file of this format version."""
    return _FORMAT.decode(data, path)


def _fail(path: str, what: str) -> SavedExecutableError:
    return SavedExecutableError(f"{path}: {what}")


def _tree_from_json(value, path: str) -> tree_util.PyTreeDef:
    return artifact_file.tree_from_json(value, lambda what: _fail(path, what))


def save(compiled, path) -> None:
    """Writes ``compiled`` (a ``Compiled`` from ``.lower(...).compile()``) to ``path``."""
    exe = compiled._exe
    if exe.image is None:
        raise ValueError("this executable was loaded without its image and cannot be saved")
    if exe.has_host_callbacks:
        raise ValueError(
            "this executable calls host callbacks (numlir.debug.print, numlir.debug.callback, "
            "numlir.pure_callback), which belong to the process that compiled it; it cannot "
            "be saved")
    backend = dispatch.backend_of(exe.device)  # jit(backend=...) may name another
    metadata = {
        "numlir_version": compilation_cache.numlir_version(),
        "backend": backend.name,
        "name": exe.name,
        # What the image is compiled for: the executable's own record where it has one
        # (the cuda backend's chip), else the backend's (the cpu's host target).
        "target": getattr(exe, "target", None) or backend.describe_target(),
        "in_tree": artifact_file.tree_to_json(compiled.in_tree, "saved executable"),
        "out_tree": artifact_file.tree_to_json(compiled.out_tree, "saved executable"),
        "inputs": [artifact_file.aval_to_json(a) for a in compiled.in_avals],
        "outputs": [artifact_file.aval_to_json(a) for a in compiled.out_avals],
        "donated": sorted([i, j] for i, j in compiled.donated_pairs.items()),
    }
    data = encode(metadata, exe.image)
    path = os.fspath(path)
    temporary = f"{path}.tmp-{os.getpid()}"
    try:
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, path)  # a reader never sees half a file
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


class LoadedExecutable:
    """A saved executable, loaded: call it with arguments of the saved structure, dtypes
    and shapes (the static arguments of the original function are baked in and left out)."""

    def __init__(self, path: str, metadata: dict, exe):
        self.path = path
        self.name = metadata["name"]
        self.metadata = metadata
        self.in_tree = _tree_from_json(metadata["in_tree"], path)
        self.out_tree = _tree_from_json(metadata["out_tree"], path)
        self.in_avals = [artifact_file.aval_from_json(a) for a in metadata["inputs"]]
        self.out_avals = [artifact_file.aval_from_json(a) for a in metadata["outputs"]]
        # Its code may write a donated input's buffer: such inputs are donated here too.
        self.donated_pairs = {int(i): int(j) for i, j in metadata.get("donated", [])}
        self._exe = exe

    def __repr__(self):
        ins = ", ".join(a.str_short() for a in self.in_avals)
        return f"<numlir.LoadedExecutable {self.name}({ins}) from {self.path!r}>"

    def __call__(self, *args, **kwargs):
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if in_tree != self.in_tree:
            raise TypeError(f"{self.name}: the saved executable takes arguments structured as "
                            f"{self.in_tree}, got {in_tree}")
        avals = [core.get_aval(x) for x in leaves]
        for i, (got, want) in enumerate(zip(avals, self.in_avals)):
            if got.shape != want.shape or got.dtype != want.dtype:
                raise TypeError(
                    f"{self.name}: argument {i} must be {want.strip_weak_type().str_short()}, "
                    f"got {got.strip_weak_type().str_short()} (saved executables take the "
                    f"signature they were compiled for: "
                    f"{', '.join(a.str_short() for a in self.in_avals)})")
        outs = donation.execute(self._exe, leaves, self.in_avals, self.out_avals,
                                self.donated_pairs)
        return tree_util.tree_unflatten(self.out_tree, outs)


def load(path) -> LoadedExecutable:
    """Reads, checks and loads a file written by ``Compiled.save``."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    metadata, image = decode(data, path)
    version = compilation_cache.numlir_version()
    if metadata.get("numlir_version") != version:
        raise _fail(path, f"saved by numlir {metadata.get('numlir_version')}; this is numlir "
                          f"{version}. Save it again with this version")
    # The backend it was compiled for, whatever this process's default is.
    try:
        backend = backends.get_backend(str(metadata.get("backend")))
    except ValueError:
        raise _fail(path, f"compiled for the {metadata.get('backend')!r} backend, which this "
                          f"process does not have (its backends: "
                          f"{', '.join(backends.available_backends())})") from None
    mismatch = backend.device.target_mismatch(metadata.get("target", {}))
    if mismatch:
        raise _fail(path, mismatch)
    try:
        exe = backend.device.load(image)
    except Exception as error:  # the runtime's own image checks
        raise _fail(path, f"the runtime refused its image: {error}") from None
    exe.name = metadata["name"]
    return LoadedExecutable(path, metadata, exe)
