"""The executable images the cpu backend makes, for tests that look inside them
(exported symbols, the allocation-sites text)."""

from __future__ import annotations

import numlir
from numlir._src.backends import get_backend
from numlir._src.backends.base import WithExtras


def image_of(fun, *args) -> bytes:
    """The executable image the cpu backend's stages make for jit(fun)(*args)."""
    backend = get_backend("cpu")
    options = backend.parse_options()
    value = numlir.jit(fun).lower(*args).as_text()
    for stage in backend.stages(options):
        value = stage.run(value, options)
        if isinstance(value, WithExtras):
            value = value.value
    return value
