"""The JAX namespaces the report walks, what counts as a public name, and numlir's side."""

from __future__ import annotations

import dataclasses
import importlib
import types


@dataclasses.dataclass(frozen=True)
class Namespace:
    jax_name: str
    numlir_name: str
    #: The issue's goal: the fraction of JAX's names numlir should have, or None.
    goal: float | None = None


#: jax.scipy.stats is a namespace of distributions, each a module of its own:
#: its modules are walked one by one (jax.scipy.stats.norm, ...).
STATS = "jax.scipy.stats"

NAMESPACES = (
    Namespace("jax", "numlir"),
    Namespace("jax.numpy", "numlir.numpy", 0.95),
    Namespace("jax.numpy.linalg", "numlir.numpy.linalg", 1.0),
    Namespace("jax.numpy.fft", "numlir.numpy.fft", 1.0),
    Namespace("jax.lax", "numlir.lax", 0.85),
    Namespace("jax.nn", "numlir.nn", 1.0),
    Namespace("jax.nn.initializers", "numlir.nn.initializers", 1.0),
    Namespace("jax.random", "numlir.random", 1.0),
    Namespace("jax.tree_util", "numlir.tree_util", 1.0),
    Namespace("jax.scipy.special", "numlir.scipy.special"),
    Namespace("jax.scipy.linalg", "numlir.scipy.linalg"),
    Namespace(STATS, "numlir.scipy.stats"),
)

#: The methods and properties of jax.Array, against numlir.Array.
ARRAY = Namespace("jax.Array", "numlir.Array", 1.0)


def import_path(path: str):
    """The module or attribute at a dotted path, or None where numlir has nothing there."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return obj
    return None


def public_callables(module) -> list[str]:
    """Names not starting with ``_`` whose values are callable and not modules."""
    names = []
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name, None)
        if callable(value) and not isinstance(value, types.ModuleType):
            names.append(name)
    return sorted(names)


def public_members(cls) -> list[str]:
    """Methods and properties of a class (everything public ``dir`` lists)."""
    return sorted(name for name in dir(cls) if not name.startswith("_"))


def expanded_namespaces() -> list[Namespace]:
    """NAMESPACES with jax.scipy.stats replaced by one namespace per distribution module."""
    out = []
    for ns in NAMESPACES:
        if ns.jax_name != STATS:
            out.append(ns)
            continue
        stats = importlib.import_module(STATS)
        for name in sorted(dir(stats)):
            if not name.startswith("_") and isinstance(getattr(stats, name), types.ModuleType):
                out.append(Namespace(f"{STATS}.{name}", f"{ns.numlir_name}.{name}"))
    return out


def jax_names(ns: Namespace) -> list[str]:
    obj = import_path(ns.jax_name)
    return public_members(obj) if isinstance(obj, type) else public_callables(obj)


def numlir_has(ns: Namespace, name: str) -> bool:
    obj = import_path(ns.numlir_name)
    return obj is not None and hasattr(obj, name)
