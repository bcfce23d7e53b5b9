"""Ready-made pytree registrations, as in jax.tree_util: Partial, dataclasses, static values."""

from __future__ import annotations

import dataclasses
import functools
from typing import Sequence

from .tree_util import GetAttrKey, register_pytree_node, register_pytree_with_keys


class _StaticPartial:
    """A partial used as another Partial's function: wrapped, so functools does not merge the
    two and the inner one's arguments stay static, as in jax."""

    __slots__ = ("partial",)

    def __init__(self, partial: functools.partial):
        self.partial = partial

    def __call__(self, *args, **kwargs):
        return self.partial(*args, **kwargs)

    def __eq__(self, other):
        return isinstance(other, _StaticPartial) and self.partial == other.partial

    def __hash__(self):
        return hash(self.partial)

    def __repr__(self):
        return repr(self.partial)


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree: its arguments are children, the function is static.

    So it can be passed to and returned from jitted functions. A Partial of a
    Partial keeps the inner one whole, as the outer one's (static) function.

    Example::

        >>> add = Partial(lambda a, b: a + b, 1)
        >>> numlir.jit(lambda f, x: f(x))(add, 2.0)  # 3.0
    """

    def __new__(cls, func, *args, **keywords):
        if isinstance(func, functools.partial):
            func = _StaticPartial(func)
        return super().__new__(cls, func, *args, **keywords)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


def register_dataclass(nodetype, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()):
    """Register a dataclass: ``data_fields`` are children, ``meta_fields`` static node data.

    Without field lists, fields whose metadata says ``static=True`` are meta
    fields and the rest data fields. Together the lists must name every field
    of ``__init__`` (less ``drop_fields``). Returns ``nodetype``, so it also
    serves as a class decorator.
    """
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: {nodetype.__name__} is not a dataclass; "
                            "pass data_fields and meta_fields")
        fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    elif data_fields is None or meta_fields is None:
        raise TypeError("register_dataclass: pass both data_fields and meta_fields, or neither")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        named = set(data_fields) | set(meta_fields)
        if named != init:
            raise ValueError(
                f"register_dataclass: data_fields and meta_fields of {nodetype.__name__} must name "
                f"each __init__ field once; missing {sorted(init - named)}, unknown {sorted(named - init)}")

    def flatten_with_keys(x):
        return ([(GetAttrKey(name), getattr(x, name)) for name in data_fields],
                tuple(getattr(x, name) for name in meta_fields))

    def unflatten(meta, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, meta)))

    register_pytree_with_keys(nodetype, flatten_with_keys, unflatten)
    return nodetype


def register_static(cls):
    """Register ``cls`` as a node without children: its instances are static (hashable) node data."""
    register_pytree_node(cls, lambda x: ((), x), lambda x, _: x)
    return cls
