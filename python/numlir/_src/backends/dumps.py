"""NUMLIR_DUMP_DIR: every compilation's hlo, per-stage IR and executable on disk.

Files are named ``<module>.<n>.<stage-index>.<stage>.<ext>`` with ``n``
counting compilations in this process, so the stages of one compilation sort
together. MLIR dumps start with a comment saying how ``hlo-opt`` reproduces
them from the previous file.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Any

from numlir._src import config

_counter = itertools.count()


class Dumper:
    """Writes the stages of one compilation, or nothing if dumping is off."""

    def __init__(self, directory: str | None, prefix: str):
        self.directory = directory
        self.prefix = prefix
        self.previous: str | None = None

    @classmethod
    def for_compilation(cls, backend: str, module_name: str, module_text: str) -> Dumper:
        directory = config.flags.dump_dir
        if not directory:
            return cls(None, "")
        os.makedirs(directory, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", module_name) or "module"
        return cls(directory, f"{safe}.{next(_counter):04d}.{backend}")

    def write(self, index: int, stage: str, suffix: str, value: str | bytes, replay: str) -> None:
        if self.directory is None:
            return
        path = os.path.join(self.directory, f"{self.prefix}.{index:02d}.{stage}{suffix}")
        if isinstance(value, bytes):
            with open(path, "wb") as f:
                f.write(value)
            return
        with open(path, "w") as f:
            if replay and self.previous and suffix == ".mlir":
                f.write(f"// replay: {replay} {os.path.basename(self.previous)}\n")
            f.write(value)
        if suffix == ".mlir":
            self.previous = path
