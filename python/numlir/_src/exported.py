"""numlir.export: a jitted function as a serializable StableHLO module, as ``jax.export``.

``export(numlir.jit(f))(*specs)`` traces and lowers ``f`` for ``specs`` (arrays or
ShapeDtypeStructs) and gives an ``Exported``: its signature, its StableHLO module
(``mlir_module()``), ``serialize()`` to bytes and ``call(*args)``. ``deserialize(blob)``
gives it back in another process, which needs no numlir compiler to read it and no numlir
at all to compile its module with a PJRT client (docs/export.md).

An artifact is an artifact_file frame (magic b"NLEXPORT") whose payload holds sections:

- ``vhlo``: the module as a StableHLO portable artifact (VHLO bytecode at the version
  ``PORTABLE_COMPATIBILITY`` allows), what PJRT compilers of other versions read; written
  where jaxlib is installed (it owns the serializer);
- ``stablehlo``: the module as StableHLO text (MLIR's generic form), for reading, and
  what a PJRT client compiles where there is no ``vhlo`` section;
- ``hlo``: numlir's own hlo module, which numlir's backends compile natively when the
  artifact comes from this numlir version.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from numlir._src import (artifact_file, compilation_cache, core, dispatch, jit as jit_module,
                         placement, traceback_util, tree_util)
from numlir._src import backends
from numlir._src.backends import BufferSpec, stablehlo
from numlir._src.static_args import function_name

MAGIC = b"NLEXPORT"
FORMAT_VERSION = 1
#: The calling convention of the module's ``main``: flat arguments in the order of the
#: flattened (args, kwargs), flat results in the order of the flattened outputs, no tokens,
#: no shardings, one device.
CALLING_CONVENTION_VERSION = 1
minimum_supported_calling_convention_version = CALLING_CONVENTION_VERSION
maximum_supported_calling_convention_version = CALLING_CONVENTION_VERSION
#: Platforms a module may be exported for: numlir's CPU and PJRT platforms by JAX's names.
KNOWN_PLATFORMS = ("cpu", "tpu", "cuda", "rocm")
_SECTIONS = ("vhlo", "stablehlo", "hlo")


class DeserializationError(ValueError):
    """Bytes that are not an intact numlir export of this format version."""


_FORMAT = artifact_file.ArtifactFormat(MAGIC, FORMAT_VERSION, "numlir exported function",
                                       DeserializationError)


class Exported:
    """A function lowered for one signature, as StableHLO: what ``export`` returns and
    ``deserialize`` reads back. The names of its fields are ``jax.export.Exported``'s."""

    def __init__(self, *, fun_name: str, in_tree, in_avals, out_tree, out_avals,
                 platforms: Sequence[str], sections: dict[str, bytes], numlir_version: str,
                 stablehlo_version: str | None):
        self.fun_name = fun_name
        self.in_tree = in_tree
        self.in_avals = tuple(in_avals)
        self.out_tree = out_tree
        self.out_avals = tuple(out_avals)
        self.platforms = tuple(platforms)
        self.nr_devices = 1
        self.calling_convention_version = CALLING_CONVENTION_VERSION
        self.in_shardings_hlo = (None,) * len(self.in_avals)
        self.out_shardings_hlo = (None,) * len(self.out_avals)
        #: The numlir that exported it, and the StableHLO version of its ``vhlo`` section.
        self.numlir_version = numlir_version
        self.stablehlo_version = stablehlo_version
        self._sections = dict(sections)
        #: Device -> the exported module compiled for it, on backends that take StableHLO.
        self._loaded: dict = {}

    def __repr__(self):
        ins = ", ".join(a.str_short() for a in self.in_avals)
        outs = ", ".join(a.str_short() for a in self.out_avals)
        return (f"Exported({self.fun_name}({ins}) -> ({outs}), "
                f"platforms={self.platforms})")

    @property
    def mlir_module_serialized(self) -> bytes:
        """The module as a PJRT client compiles it: the portable artifact where there is
        one, else the StableHLO text."""
        return self._sections.get("vhlo") or self._sections["stablehlo"]

    def mlir_module(self) -> str:
        """The StableHLO module as text."""
        return self._sections["stablehlo"].decode()

    def hlo_module(self) -> str | None:
        """numlir's own hlo module (None where the artifact has none)."""
        hlo = self._sections.get("hlo")
        return hlo.decode() if hlo is not None else None

    def has_vjp(self) -> bool:
        return False

    def serialize(self) -> bytearray:
        """The versioned bytes ``deserialize`` reads, here or in another process."""
        names = [n for n in _SECTIONS if n in self._sections]
        metadata = {
            "fun_name": self.fun_name,
            "numlir_version": self.numlir_version,
            "calling_convention_version": self.calling_convention_version,
            "platforms": list(self.platforms),
            "nr_devices": self.nr_devices,
            "in_tree": artifact_file.tree_to_json(self.in_tree, "numlir export"),
            "out_tree": artifact_file.tree_to_json(self.out_tree, "numlir export"),
            "in_avals": [artifact_file.aval_to_json(a) for a in self.in_avals],
            "out_avals": [artifact_file.aval_to_json(a) for a in self.out_avals],
            "stablehlo_version": self.stablehlo_version,
            "sections": [[n, len(self._sections[n])] for n in names],
        }
        return bytearray(_FORMAT.encode(metadata, b"".join(self._sections[n] for n in names)))

    @traceback_util.api_boundary
    def call(self, *args, **kwargs):
        """Runs the exported function on arrays of its signature, on their device (the
        default device for uncommitted ones), whose platform must be one it was exported
        for."""
        leaves, in_tree = tree_util.tree_flatten((args, kwargs))
        if any(isinstance(x, core.Tracer) for x in leaves):
            raise TypeError(
                f"Exported.call of '{self.fun_name}' takes arrays: numlir does not yet inline "
                "an exported module into a transformation (jit, grad, vmap); call it outside, "
                "or transform the original function")
        if in_tree != self.in_tree:
            raise ValueError(
                f"The invocation args and kwargs must have the same pytree structure as when "
                f"the function '{self.fun_name}' was exported: it was exported for "
                f"{self.in_tree}, and called with {in_tree}")
        for i, (x, want) in enumerate(zip(leaves, self.in_avals)):
            got = core.get_aval(x)
            if got.shape != want.shape or got.dtype != want.dtype:
                raise TypeError(
                    f"'{self.fun_name}' was exported for argument {i} of type "
                    f"{want.strip_weak_type().str_short()}, and called with "
                    f"{got.strip_weak_type().str_short()}")
        device, committed = placement.computation_device(leaves)
        if device.lowering_platform not in self.platforms:
            raise ValueError(
                f"Function '{self.fun_name}' was exported for platforms {self.platforms} but "
                f"it is used on ('{device.lowering_platform}',)")
        return jit_module._run(self._executable(device), leaves, self.in_avals, self.out_tree,
                               self.out_avals, committed=committed)

    def _executable(self, device):
        """Where the backend compiles StableHLO (PJRT), the exported module itself, with no
        numlir compiler; else numlir's hlo, compiled by the backend like any jit's."""
        backend = backends.get_backend(device.name)
        if not backend.compiles_stablehlo:
            return dispatch.compile_module(self._native_module(device), name=self.fun_name,
                                           device=device)
        exe = self._loaded.get(device)
        if exe is None:
            exe = backend.compile_stablehlo(
                self.mlir_module_serialized, name=self.fun_name, device=device,
                inputs=[BufferSpec(a.dtype, a.shape) for a in self.in_avals],
                outputs=[BufferSpec(a.dtype, a.shape) for a in self.out_avals])
            exe.device = device
            self._loaded[device] = exe
        return exe

    def _native_module(self, device) -> str:
        """The hlo module numlir's backend for ``device`` compiles."""
        hlo = self.hlo_module()
        version = compilation_cache.numlir_version()
        if hlo is None or self.numlir_version != version:
            why = ("has no numlir hlo module" if hlo is None else
                   f"was exported by numlir {self.numlir_version}, whose hlo this numlir "
                   f"({version}) does not compile")
            raise ValueError(
                f"'{self.fun_name}' {why}; its StableHLO module runs on a PJRT device "
                f"(numlir.devices('tpu'), docs/pjrt.md), not on numlir's {device.platform} "
                "backend")
        return hlo


def export(fun_jit: jit_module.JitFunction, *,
           platforms: Sequence[str] | None = None) -> Callable[..., Exported]:
    """``export(numlir.jit(f))(*args, **kwargs)``: ``f`` lowered for arguments shaped as
    ``args`` (arrays or ShapeDtypeStructs; static arguments given by value, as to the jitted
    function), as an ``Exported``. ``platforms`` (default: the default backend's) names
    where it may run; numlir's StableHLO is the same for each.

    Example::

        exp = numlir.export.export(numlir.jit(f))(numlir.ShapeDtypeStruct((4,), "float32"))
        blob = exp.serialize()
        numlir.export.deserialize(blob).call(np.ones(4, np.float32))
    """
    if not isinstance(fun_jit, jit_module.JitFunction):
        raise TypeError(f"export takes the result of numlir.jit, got {type(fun_jit).__name__}: "
                        "export(numlir.jit(f))")
    if platforms is None:
        platforms = (placement.current_default_device().platform,)
    elif isinstance(platforms, str):
        raise TypeError(f"platforms must be a sequence of names, got the string {platforms!r}")
    platforms = tuple(platforms)
    for p in platforms:
        if p not in KNOWN_PLATFORMS:
            raise ValueError(f"Unknown platform {p!r} for export; the platforms are "
                             f"{KNOWN_PLATFORMS}")
    if not platforms or len(set(platforms)) != len(platforms):
        raise ValueError(f"platforms must name each platform once, got {platforms}")

    @traceback_util.api_boundary
    def do_export(*args, **kwargs) -> Exported:
        # Without donation: the caller of an exported function keeps its arguments.
        plain = jit_module.JitFunction(fun_jit._fun, fun_jit._static_argnums,
                                       fun_jit._static_argnames)
        lowered = plain.lower(*args, **kwargs)
        hlo = lowered.portable_text()
        text = lowered.as_text(dialect="stablehlo")
        sections = {"stablehlo": text.encode(), "hlo": hlo.encode()}
        artifact = stablehlo.portable_artifact(text)
        version = None
        if artifact is not None:
            sections["vhlo"], version = artifact
        return Exported(fun_name=function_name(fun_jit._fun),
                        in_tree=lowered.in_tree, in_avals=lowered.in_avals,
                        out_tree=lowered.out_tree, out_avals=lowered.graph.out_avals,
                        platforms=platforms, sections=sections,
                        numlir_version=compilation_cache.numlir_version(),
                        stablehlo_version=version)

    return do_export


def deserialize(blob: bytes | bytearray) -> Exported:
    """The ``Exported`` that ``Exported.serialize`` wrote; DeserializationError says what is
    wrong with bytes that are not one."""
    metadata, payload = _FORMAT.decode(blob, "numlir.export.deserialize")

    def fail(what: str) -> DeserializationError:
        return DeserializationError(f"numlir.export.deserialize: {what}")

    version = metadata.get("calling_convention_version")
    if version != CALLING_CONVENTION_VERSION:
        raise fail(f"calling convention version {version}; this numlir supports "
                   f"{CALLING_CONVENTION_VERSION}")
    sections: dict[str, Any] = {}
    offset = 0
    for name, size in metadata["sections"]:
        sections[name] = payload[offset:offset + size]
        offset += size
    if offset != len(payload) or "stablehlo" not in sections:
        raise fail("its sections do not match its payload")
    return Exported(fun_name=metadata["fun_name"],
                    in_tree=artifact_file.tree_from_json(metadata["in_tree"], fail),
                    in_avals=[artifact_file.aval_from_json(a) for a in metadata["in_avals"]],
                    out_tree=artifact_file.tree_from_json(metadata["out_tree"], fail),
                    out_avals=[artifact_file.aval_from_json(a) for a in metadata["out_avals"]],
                    platforms=metadata["platforms"], sections=sections,
                    numlir_version=metadata["numlir_version"],
                    stablehlo_version=metadata.get("stablehlo_version"))
