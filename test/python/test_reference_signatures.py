"""numlir's libraries have the signatures of the libraries they stand in for.

A program written for Haiku, Optax, Chex, Jraph or RLax must run after changing its
imports, so every public function and class numlir exports under a name the reference
library also exports takes the same parameters: the same names, kinds and order, and the
same defaults. Each (library, name) is its own test, whose failure shows both signatures.
"""

import enum
import importlib
import inspect

import numpy as np
import pytest

# (numlir module, reference module) pairs per library; submodules are compared too.
LIBRARIES = {
    "layers": [("numlir.layers", "haiku"), ("numlir.layers.initializers", "haiku.initializers"),
               ("numlir.layers.nets", "haiku.nets")],
    "optim": [("numlir.optim", "optax"), ("numlir.optim.losses", "optax.losses"),
              ("numlir.optim.schedules", "optax.schedules")],
    "testing": [("numlir.testing", "chex")],
    "graph": [("numlir.graph", "jraph")],
    "rl": [("numlir.rl", "rlax")],
}

# (library, qualified name) -> why the difference is deliberate. Only for differences that
# are explained; none are needed today.
ALLOWED: dict = {}


def _public_names(module) -> list:
    names = getattr(module, "__all__", None)
    if names is None:  # e.g. numlir.layers.initializers: what it defines, not what it imports
        names = [n for n, v in vars(module).items()
                 if getattr(v, "__module__", "").startswith(module.__name__)]
    return sorted(n for n in names if not n.startswith("_"))


def _has_signature(obj) -> bool:
    try:
        inspect.signature(obj)
        return True
    except (TypeError, ValueError):
        return False


def _cases():
    """(library, qualified name, ours, reference) for each name both libraries export."""
    cases = []
    for library, pairs in LIBRARIES.items():
        for ours_name, ref_name in pairs:
            try:
                ours, ref = importlib.import_module(ours_name), importlib.import_module(ref_name)
            except Exception as error:  # noqa: BLE001 - reported as the case's failure
                cases.append((library, f"import {ours_name}", error, None))
                continue
            prefix = ours_name.split(".", 2)[2] + "." if ours_name.count(".") > 1 else ""
            for name in _public_names(ours):
                a, b = getattr(ours, name), getattr(ref, name, None)
                # Only callables are compared; a reference that has no signature (a typing
                # alias such as haiku.initializers.Initializer) is not a function to match.
                if b is None or inspect.ismodule(a) or not callable(a) or not _has_signature(b):
                    continue
                cases.append((library, prefix + name, a, b))
                # A module's call is part of its interface too (e.g. Embed's precision).
                if library == "layers" and isinstance(a, type) and "__call__" in vars(a):
                    cases.append((library, prefix + name + ".__call__", a.__call__, b.__call__))
    return cases


CASES = _cases()


def _dtype(value):
    """``value`` as an np.dtype if it names one (np.float32, jnp.float32, a dtype), else None."""
    if isinstance(value, np.dtype):
        return value
    if isinstance(value, type) and (issubclass(value, np.generic) or hasattr(value, "dtype")):
        return np.dtype(value)
    return None


_SIMPLE = (bool, int, float, complex, str, bytes, type(None))


def _is_simple(value) -> bool:
    if isinstance(value, tuple):
        return all(_is_simple(v) for v in value)
    return isinstance(value, _SIMPLE)


def _default_difference(a, b):
    """Why defaults ``a`` (ours) and ``b`` (the reference's) differ, or None if they agree."""
    empty = inspect.Parameter.empty
    if (a is empty) != (b is empty):
        return "one has a default and the other has none"
    if a is empty:
        return None
    if _dtype(a) is not None or _dtype(b) is not None:
        return None if _dtype(a) == _dtype(b) else f"dtype {_dtype(a)} != {_dtype(b)}"
    if isinstance(a, enum.Enum) and isinstance(b, enum.Enum):  # e.g. lax.Precision.HIGHEST
        same = (type(a).__name__, a.name) == (type(b).__name__, b.name)
        return None if same else f"{a!r} != {b!r}"
    if _is_simple(a) and _is_simple(b):
        return None if repr(a) == repr(b) else f"{a!r} != {b!r}"
    return None  # callables and other objects: only the names and kinds are compared


def _differences(ours: inspect.Signature, ref: inspect.Signature) -> list:
    ours_params, ref_params = list(ours.parameters.values()), list(ref.parameters.values())
    shape = lambda ps: [(p.name, p.kind.description) for p in ps]  # noqa: E731
    if shape(ours_params) != shape(ref_params):
        return [f"parameters (name, kind): ours {shape(ours_params)}, "
                f"reference {shape(ref_params)}"]
    problems = []
    for p, q in zip(ours_params, ref_params):
        why = _default_difference(p.default, q.default)
        if why:
            problems.append(f"default of {p.name}: {why}")
    return problems


def _plain(signature: inspect.Signature) -> inspect.Signature:
    """The signature without annotations (the reference's are long and not compared)."""
    empty = inspect.Parameter.empty
    return signature.replace(parameters=[p.replace(annotation=empty)
                                         for p in signature.parameters.values()],
                             return_annotation=empty)


@pytest.mark.parametrize("library,name,ours,ref", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_signature_matches_the_reference(library, name, ours, ref):
    if (library, name) in ALLOWED:
        pytest.skip(ALLOWED[library, name])
    if ref is None:
        pytest.fail(f"{name} failed: {ours!r}")
    ours_sig, ref_sig = inspect.signature(ours), inspect.signature(ref)
    problems = _differences(ours_sig, ref_sig)
    assert not problems, (f"{library}.{name} differs from the reference: {'; '.join(problems)}\n"
                          f"  ours:      {_plain(ours_sig)}\n  reference: {_plain(ref_sig)}")


def test_every_library_has_cases():
    """A library whose names all vanished (or whose import broke) must not pass silently."""
    assert {c[0] for c in CASES} == set(LIBRARIES)
