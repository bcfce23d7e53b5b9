"""The frame shared by numlir's artifact files: saved executables and exported functions.

    offset size
         0    8  magic (one per kind of artifact)
         8    4  format version (little-endian u32)
        12    4  reserved, 0
        16    8  metadata size (little-endian u64)
        24    8  payload size (little-endian u64)
        32   32  sha256 of the metadata and the payload
        64    -  metadata (UTF-8 JSON), then the payload

The metadata holds a function's signature; ``signature_to_json`` and its inverses write
pytree structures and abstract values as JSON, so that another process rebuilds them.
Every decoding failure raises the artifact kind's own error class, naming the source and
what is wrong.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import struct
from collections import OrderedDict
from typing import Any

from numlir._src import core, dtypes, tree_util

_HEADER = struct.Struct("<8sII QQ 32s")
HEADER_SIZE = _HEADER.size


@dataclasses.dataclass(frozen=True)
class ArtifactFormat:
    """One kind of artifact: its magic, the version this numlir writes and reads, what it
    is called in messages, and the error its decoding raises."""

    magic: bytes
    version: int
    what: str
    error: type[Exception]

    def encode(self, metadata: dict, payload: bytes) -> bytes:
        meta = json.dumps(metadata, sort_keys=True).encode()
        checksum = hashlib.sha256(meta + payload).digest()
        return (_HEADER.pack(self.magic, self.version, 0, len(meta), len(payload), checksum)
                + meta + payload)

    def fail(self, source: str, what: str) -> Exception:
        return self.error(f"{source}: {what}")

    def decode(self, data: bytes, source: str) -> tuple[dict, bytes]:
        """(metadata, payload) of intact bytes of this format version."""
        data = bytes(data)
        if len(data) < HEADER_SIZE:
            raise self.fail(source, f"truncated: {len(data)} bytes, shorter than the "
                                    f"{HEADER_SIZE}-byte header of a {self.what}")
        magic, version, reserved, meta_size, payload_size, checksum = _HEADER.unpack_from(data)
        if magic != self.magic:
            raise self.fail(source, f"not a {self.what} (it starts with {data[:8]!r}; "
                                    f"a {self.what} starts with {self.magic!r})")
        if version != self.version:
            raise self.fail(source, f"{self.what} format version {version}; this numlir "
                                    f"reads version {self.version}. Write it again with this "
                                    "numlir")
        expected = HEADER_SIZE + meta_size + payload_size
        if len(data) != expected:
            state = "truncated" if len(data) < expected else "has trailing bytes"
            raise self.fail(source, f"{state}: the header promises {expected} bytes, there "
                                    f"are {len(data)}")
        body = data[HEADER_SIZE:]
        if reserved != 0 or hashlib.sha256(body).digest() != checksum:
            raise self.fail(source, "corrupted: its checksum does not match its contents")
        try:
            metadata = json.loads(body[:meta_size])
        except ValueError as error:
            raise self.fail(source, f"corrupted metadata ({error})") from None
        return metadata, body[meta_size:]


# --- pytree structures and abstract values as JSON --------------------------------------------


def _type_name(t: type) -> str:
    return f"{t.__module__}:{t.__qualname__}"


def _json_exact(value: Any) -> bool:
    try:
        return json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        return False


def _keys_to_json(keys, what: str) -> list:
    out = []
    for k in keys:
        if isinstance(k, bool) or not isinstance(k, (str, int)):
            raise TypeError(f"cannot write a dict key {k!r} of type {type(k).__name__}: "
                            f"{what}s take str and int keys")
        out.append(["s" if isinstance(k, str) else "i", k])
    return out


def tree_to_json(td: tree_util.PyTreeDef, what: str) -> Any:
    """A JSON value for a pytree structure of tuples, lists, dicts, None, OrderedDicts,
    namedtuples and registered nodes whose auxiliary data is JSON; ``what`` names the
    artifact in errors."""
    kids = [tree_to_json(c, what) for c in td.children]
    t = td.node_type
    if t is None:
        return "*"
    if t is tuple:
        return ["tuple", kids]
    if t is list:
        return ["list", kids]
    if t is dict:
        return ["dict", _keys_to_json(td.node_data, what), kids]
    if t is type(None):
        return ["None"]
    if t is OrderedDict:
        return ["OrderedDict", _keys_to_json(td.node_data, what), kids]
    if issubclass(t, tuple) and hasattr(t, "_fields"):
        return ["namedtuple", _type_name(t), kids]
    if not _json_exact(td.node_data):
        raise TypeError(f"cannot write the pytree node {_type_name(t)} into a {what}: its "
                        f"auxiliary data {td.node_data!r:.80} is not JSON")
    return ["node", _type_name(t), td.node_data, kids]


def _import_type(name: str, fail) -> type:
    module_name, _, qualname = name.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise fail(f"its signature has a pytree node of type {name}, which this process does "
                   "not define; import the module that defines it first") from None
    return found


def tree_from_json(value: Any, fail) -> tree_util.PyTreeDef:
    """The structure ``tree_to_json`` wrote; ``fail(message)`` makes the error to raise."""
    if value == "*":
        return tree_util.tree_structure(0)
    kind = value[0]
    if kind == "None":
        return tree_util.tree_structure(None)
    kids = tuple(tree_from_json(c, fail) for c in value[-1])
    if kind in ("tuple", "list"):
        return tree_util.PyTreeDef(tuple if kind == "tuple" else list, None, kids)
    if kind in ("dict", "OrderedDict"):
        t = dict if kind == "dict" else OrderedDict
        return tree_util.PyTreeDef(t, tuple(k for _, k in value[1]), kids)
    if kind == "namedtuple":
        return tree_util.PyTreeDef(_import_type(value[1], fail), None, kids)
    if kind == "node":
        data = value[2]
        return tree_util.PyTreeDef(_import_type(value[1], fail),
                                   tuple(data) if isinstance(data, list) else data, kids)
    raise fail(f"unknown pytree node kind {kind!r} in its signature")


def aval_to_json(aval: core.ShapedArray) -> dict:
    return {"dtype": dtypes.mlir_element_type(aval.dtype), "shape": list(aval.shape),
            "weak_type": aval.weak_type}


def aval_from_json(d: dict) -> core.ShapedArray:
    return core.ShapedArray(tuple(d["shape"]), dtypes.from_mlir_element_type(d["dtype"]),
                            d["weak_type"])
