"""numlir's hlo written as StableHLO and CHLO: what PJRT compilers take (docs/stablehlo.md).

The translation is native (``hlo-translate --hlo-to-stablehlo``); numlir does not link
StableHLO, so the text is MLIR's generic form, which any StableHLO consumer parses."""

from __future__ import annotations

from numlir._src.backends.base import CompileError


def from_hlo(module: str | bytes, name: str = "module") -> str:
    """The StableHLO text of an hlo ``module``; CompileError names an op with no
    translation yet."""
    from numlir import _compiler

    try:
        return _compiler.translate_to_stablehlo(module, name)
    except _compiler.CompileError as error:
        raise CompileError(str(error)) from None


#: How old a StableHLO consumer a portable artifact serves, by jaxlib's names for
#: compatibility windows (WEEK_12: consumers up to about 12 weeks older than the writer).
PORTABLE_COMPATIBILITY = "WEEK_12"


def portable_artifact(text: str) -> tuple[bytes, str] | None:
    """StableHLO ``text`` as a portable artifact (VHLO bytecode) and its StableHLO version,
    by jaxlib's serializer, which also rewrites CHLO as StableHLO (CHLO has no stable
    encoding). None where jaxlib is not installed: numlir does not link StableHLO."""
    try:
        from jax._src.lib import _jax
        from jaxlib.mlir.dialects import stablehlo as jaxlib_stablehlo
    except ImportError:
        return None
    requirement = getattr(jaxlib_stablehlo.StablehloCompatibilityRequirement,
                          PORTABLE_COMPATIBILITY)
    version = jaxlib_stablehlo.get_version_from_compatibility_requirement(requirement)
    try:
        return _jax.mlir.serialize_portable_artifact(text, version), version
    except Exception as error:  # noqa: BLE001 - jaxlib's parse and legalization errors
        raise CompileError(f"jaxlib could not write the StableHLO module as a portable "
                           f"artifact of StableHLO {version}: {error}") from None
