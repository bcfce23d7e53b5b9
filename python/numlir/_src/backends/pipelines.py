"""Named pass pipelines with typed options, spelled the way MLIR parses them.

numlir's compiler registers its stages as named pipelines
(compiler/lib/Pipelines/Pipelines.cpp; docs/compiler-stages.md), some with
options. A backend says which one a stage runs, with which settings, as a
:class:`Pipeline`; this module writes the pipeline text, the ``hlo-opt`` flag
of a dump's replay line and the argument of an external ``hlo-opt`` from it,
so no backend edits pipeline text::

    >>> p = Pipeline.of("hlo-cpu-to-llvm", threads=2, min_iterations=1024)
    >>> p.text
    'hlo-cpu-to-llvm{threads=2 min-iterations=1024}'
    >>> p.anchored
    'builtin.module(hlo-cpu-to-llvm{threads=2 min-iterations=1024})'
    >>> p.replay
    "hlo-opt --hlo-cpu-to-llvm='threads=2 min-iterations=1024'"
"""

from __future__ import annotations

import dataclasses
import re

#: hlo-optimize, then hlo-fusion: the target-independent stage from hlo to fused hlo,
#: each hlo.fusion one kernel, for backends that compile one kernel per fusion.
HLO_FUSE = "hlo-fuse"

_NAME = re.compile(r"[a-z][a-z0-9-]*")


def _spell(value: int | bool | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value and not re.search(r"[\s{}'\"=]", value):
        return value
    raise ValueError(f"a pipeline option is an int, a bool or a plain word, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Pipeline:
    """A named pipeline and its options, in the order given."""

    name: str
    options: tuple[tuple[str, int | bool | str], ...] = ()

    @classmethod
    def of(cls, name: str, **options: int | bool | str) -> Pipeline:
        """``Pipeline.of("hlo-cpu-to-llvm", threads=2)``: keyword ``min_iterations`` is
        the option ``min-iterations``."""
        return cls(name, tuple((key.replace("_", "-"), value) for key, value in options.items()))

    def __post_init__(self) -> None:
        for word in (self.name, *(key for key, _ in self.options)):
            if not _NAME.fullmatch(word):
                raise ValueError(f"not a pipeline or option name: {word!r}")
        for _, value in self.options:
            _spell(value)

    @property
    def option_text(self) -> str:
        """``threads=2 min-iterations=1024``: the options as MLIR's option parser reads them."""
        return " ".join(f"{key}={_spell(value)}" for key, value in self.options)

    @property
    def text(self) -> str:
        """The pipeline as an element of pass-pipeline text: ``name{options}``."""
        return f"{self.name}{{{self.option_text}}}" if self.options else self.name

    @property
    def anchored(self) -> str:
        """Pipeline text nested in ``builtin.module``, as the native compiler runs it."""
        return f"builtin.module({self.text})"

    @property
    def flag(self) -> str:
        """The one ``hlo-opt`` argument that runs it: ``--name=options`` (not quoted)."""
        return f"--{self.name}={self.option_text}" if self.options else f"--{self.name}"

    @property
    def replay(self) -> str:
        """The ``hlo-opt`` command line, quoted for a shell, that replays it."""
        if not self.options:
            return f"hlo-opt --{self.name}"
        return f"hlo-opt --{self.name}='{self.option_text}'"
