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
