"""The backends NUMLIR_PJRT_PLUGINS names, for numlir's ``numlir.backend_providers`` entry
point. numlir asks when it first looks a backend up, so this module imports no jax: each
backend is made (and jaxlib loaded) only when used."""

from __future__ import annotations

import functools
import os
import re
from typing import Any, Callable

#: Comma-separated ``name:/path/to/plugin.so``.
PLUGINS_VARIABLE = "NUMLIR_PJRT_PLUGINS"
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_TAKEN = ("cpu", "tpu", "pjrt_cpu")


def _make(name: str, path: str) -> Any:
    from numlir_pjrt.backend import PjrtPluginBackend

    return PjrtPluginBackend(name, path)


def plugin_backends() -> dict[str, Callable[[], Any]]:
    """{name: a maker of its backend} for NUMLIR_PJRT_PLUGINS; a malformed value is a
    ValueError naming the variable."""
    makers: dict[str, Callable[[], Any]] = {}
    for item in filter(None, (p.strip() for p in os.environ.get(PLUGINS_VARIABLE, "").split(","))):
        name, sep, path = item.partition(":")
        if not sep or not _NAME.fullmatch(name) or not path:
            raise ValueError(f"{PLUGINS_VARIABLE} holds comma-separated name:/path/plugin.so "
                             f"entries (names: lowercase letters, digits, _), got {item!r}")
        if name in makers or name in _TAKEN:
            raise ValueError(f"{PLUGINS_VARIABLE} names the backend {name!r} twice, or as "
                             "one numlir already has")
        makers[name] = functools.partial(_make, name, os.path.expanduser(path))
    return makers
