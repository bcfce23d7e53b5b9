"""Saved executables: a compiled function in a file, loaded and run without the compiler.

``numlir.jit(f).lower(*args).compile().save(path)`` writes one;
``numlir.load_executable(path)`` reads it back as a callable, in this or
another process, on a machine that has numlir's runtime but not its compiler
(numlir._compiler and LLVM are never imported). The format
(docs/saved-executables.md):

    offset size
         0    8  magic b"NLSAVED\\x1a"
         8    4  format version (little-endian u32)
        12    4  reserved, 0
        16    8  metadata size (little-endian u64)
        24    8  image size (little-endian u64)
        32   32  sha256 of the metadata and the image
        64    -  metadata (UTF-8 JSON), then the backend's image

The metadata holds the signature (argument and result structure, dtypes and
shapes) and the target the image was compiled for; the image is what the
backend's device loads (for cpu, the runtime's checksummed image). Loading
checks, in order: the header, the size, the checksum, the format and numlir
versions, the backend, the target (architecture and CPU features), and only
then hands the image to the runtime. Each failure is a SavedExecutableError
that names the file and what is wrong.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import struct
from collections import OrderedDict
from typing import Any

from numlir._src import compilation_cache, core, dispatch, donation, dtypes, tree_util

MAGIC = b"NLSAVED\x1a"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sII QQ 32s")
HEADER_SIZE = _HEADER.size


class SavedExecutableError(ValueError):
    """A saved executable that cannot be loaded here: damaged, from another version, or
    compiled for another machine."""


# --- pytree structures as JSON ----------------------------------------------------------------


def _type_name(t: type) -> str:
    return f"{t.__module__}:{t.__qualname__}"


def _import_type(name: str, path: str) -> type:
    module_name, _, qualname = name.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise SavedExecutableError(
            f"{path}: its signature has a pytree node of type {name}, which this process does "
            "not define; import the module that defines it first") from None
    return found


def _json_exact(value: Any) -> bool:
    try:
        return json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        return False


def _keys_to_json(keys) -> list:
    out = []
    for k in keys:
        if isinstance(k, bool) or not isinstance(k, (str, int)):
            raise TypeError(f"cannot save a dict key {k!r} of type {type(k).__name__}: saved "
                            "executables take str and int keys")
        out.append(["s" if isinstance(k, str) else "i", k])
    return out


def tree_to_json(td: tree_util.PyTreeDef) -> Any:
    """A JSON value for a pytree structure of tuples, lists, dicts, None, OrderedDicts,
    namedtuples and registered nodes whose auxiliary data is JSON."""
    kids = [tree_to_json(c) for c in td.children]
    t = td.node_type
    if t is None:
        return "*"
    if t is tuple:
        return ["tuple", kids]
    if t is list:
        return ["list", kids]
    if t is dict:
        return ["dict", _keys_to_json(td.node_data), kids]
    if t is type(None):
        return ["None"]
    if t is OrderedDict:
        return ["OrderedDict", _keys_to_json(td.node_data), kids]
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return ["namedtuple", _type_name(t), kids]
    if not _json_exact(td.node_data):
        raise TypeError(f"cannot save the pytree node {_type_name(t)}: its auxiliary data "
                        f"{td.node_data!r:.80} is not JSON")
    return ["node", _type_name(t), td.node_data, kids]


def _keys_from_json(keys) -> tuple:
    return tuple(k for _, k in keys)


def tree_from_json(value: Any, path: str) -> tree_util.PyTreeDef:
    if value == "*":
        return tree_util.tree_structure(0)
    kind = value[0]
    if kind == "None":
        return tree_util.tree_structure(None)
    kids = tuple(tree_from_json(c, path) for c in value[-1])
    if kind in ("tuple", "list"):
        return tree_util.PyTreeDef(tuple if kind == "tuple" else list, None, kids)
    if kind in ("dict", "OrderedDict"):
        t = dict if kind == "dict" else OrderedDict
        return tree_util.PyTreeDef(t, _keys_from_json(value[1]), kids)
    if kind == "namedtuple":
        return tree_util.PyTreeDef(_import_type(value[1], path), None, kids)
    if kind == "node":
        data = value[2]
        return tree_util.PyTreeDef(_import_type(value[1], path),
                                   tuple(data) if isinstance(data, list) else data, kids)
    raise SavedExecutableError(f"{path}: unknown pytree node kind {kind!r} in its signature")


# --- the file ---------------------------------------------------------------------------------


def _aval_to_json(aval: core.ShapedArray) -> dict:
    return {"dtype": dtypes.mlir_element_type(aval.dtype), "shape": list(aval.shape),
            "weak_type": aval.weak_type}


def _aval_from_json(d: dict) -> core.ShapedArray:
    return core.ShapedArray(tuple(d["shape"]), dtypes.from_mlir_element_type(d["dtype"]),
                            d["weak_type"])


def encode(metadata: dict, image: bytes) -> bytes:
    meta = json.dumps(metadata, sort_keys=True).encode()
    checksum = hashlib.sha256(meta + image).digest()
    return _HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(meta), len(image), checksum) + meta + image


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
    backend = dispatch.get_backend()
    metadata = {
        "numlir_version": compilation_cache.numlir_version(),
        "backend": backend.name,
        "name": exe.name,
        "target": backend.describe_target(),
        "in_tree": tree_to_json(compiled.in_tree),
        "out_tree": tree_to_json(compiled.out_tree),
        "inputs": [_aval_to_json(a) for a in compiled.in_avals],
        "outputs": [_aval_to_json(a) for a in compiled.out_avals],
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


def _fail(path: str, what: str) -> SavedExecutableError:
    return SavedExecutableError(f"{path}: {what}")


def decode(data: bytes, path: str) -> tuple[dict, bytes]:
    """(metadata, image) of an intact file of this format version."""
    if len(data) < HEADER_SIZE:
        raise _fail(path, f"truncated: {len(data)} bytes, shorter than the {HEADER_SIZE}-byte "
                          "header of a numlir saved executable")
    magic, version, reserved, meta_size, image_size, checksum = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise _fail(path, f"not a numlir saved executable (it starts with {data[:8]!r}; "
                          f"saved executables start with {MAGIC!r})")
    if version != FORMAT_VERSION:
        raise _fail(path, f"saved executable format version {version}; this numlir reads "
                          f"version {FORMAT_VERSION}. Save it again with this numlir")
    expected = HEADER_SIZE + meta_size + image_size
    if len(data) != expected:
        state = "truncated" if len(data) < expected else "has trailing bytes"
        raise _fail(path, f"{state}: the header promises {expected} bytes, the file has "
                          f"{len(data)}")
    body = data[HEADER_SIZE:]
    if reserved != 0 or hashlib.sha256(body).digest() != checksum:
        raise _fail(path, "corrupted: its checksum does not match its contents")
    try:
        metadata = json.loads(body[:meta_size])
    except ValueError as error:
        raise _fail(path, f"corrupted metadata ({error})") from None
    return metadata, body[meta_size:]


class LoadedExecutable:
    """A saved executable, loaded: call it with arguments of the saved structure, dtypes
    and shapes (the static arguments of the original function are baked in and left out)."""

    def __init__(self, path: str, metadata: dict, exe):
        self.path = path
        self.name = metadata["name"]
        self.metadata = metadata
        self.in_tree = tree_from_json(metadata["in_tree"], path)
        self.out_tree = tree_from_json(metadata["out_tree"], path)
        self.in_avals = [_aval_from_json(a) for a in metadata["inputs"]]
        self.out_avals = [_aval_from_json(a) for a in metadata["outputs"]]
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
    backend = dispatch.get_backend()
    if metadata.get("backend") != backend.name:
        raise _fail(path, f"compiled for the {metadata.get('backend')!r} backend; this process "
                          f"runs {backend.name!r}")
    mismatch = backend.device.target_mismatch(metadata.get("target", {}))
    if mismatch:
        raise _fail(path, mismatch)
    try:
        exe = backend.device.load(image)
    except Exception as error:  # the runtime's own image checks
        raise _fail(path, f"the runtime refused its image: {error}") from None
    exe.name = metadata["name"]
    return LoadedExecutable(path, metadata, exe)
