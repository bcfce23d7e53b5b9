"""Pytrees: nested tuples, lists, dicts and None (plus registered types), as in jax.tree_util.

Example::

    >>> leaves, treedef = tree_flatten({"w": 1, "b": (2, None)})
    >>> leaves
    [2, 1]
    >>> tree_unflatten(treedef, [20, 10])
    {'b': (20, None), 'w': 10}
"""

from __future__ import annotations

import collections
from typing import Any, Callable, Iterable, NamedTuple

__all__ = [
    "PyTreeDef", "register_pytree_node", "register_pytree_node_class", "tree_flatten",
    "tree_unflatten", "tree_leaves", "tree_structure", "tree_map", "treedef_children",
    "treedef_is_leaf", "all_leaves",
]


class _NodeType(NamedTuple):
    flatten: Callable[[Any], tuple[Iterable[Any], Any]]
    unflatten: Callable[[Any, Iterable[Any]], Any]


_registry: dict[type, _NodeType] = {}


def register_pytree_node(nodetype: type, flatten_func, unflatten_func) -> None:
    """Register ``nodetype``: ``flatten_func(x) -> (children, aux)``, ``unflatten_func(aux, children) -> x``."""
    if nodetype in _registry:
        raise ValueError(f"Duplicate pytree node registration for {nodetype}")
    _registry[nodetype] = _NodeType(flatten_func, unflatten_func)


def register_pytree_node_class(cls):
    """Class decorator: uses ``x.tree_flatten()`` and ``cls.tree_unflatten(aux, children)``."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def _dict_flatten(d):
    keys = sorted(d)
    return [d[k] for k in keys], tuple(keys)


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (t, None), lambda _, c: list(c))
register_pytree_node(dict, _dict_flatten, lambda keys, c: dict(zip(keys, c)))
register_pytree_node(type(None), lambda _: ((), None), lambda _, c: None)
register_pytree_node(
    collections.OrderedDict,
    lambda d: (list(d.values()), tuple(d.keys())),
    lambda keys, c: collections.OrderedDict(zip(keys, c)),
)


def _node_type(x):
    t = type(x)
    if t in _registry:
        return t, _registry[t]
    if isinstance(x, tuple) and hasattr(x, "_fields"):  # namedtuple
        return t, _NodeType(lambda n: (tuple(n), None), lambda _, c, t=t: t(*c))
    return None, None


class PyTreeDef:
    """The structure of a pytree (leaves replaced by ``*``); hashable and comparable."""

    __slots__ = ("node_type", "node_data", "children", "num_leaves", "num_nodes")

    def __init__(self, node_type, node_data, children: tuple["PyTreeDef", ...]):
        self.node_type = node_type  # None for a leaf
        self.node_data = node_data
        self.children = children
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
        self.num_nodes = 1 + sum(c.num_nodes for c in children)

    def _key(self):
        return (self.node_type, self.node_data, self.children)

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        return tree_unflatten(self, leaves)

    def _str(self) -> str:
        if self.node_type is None:
            return "*"
        kids = [c._str() for c in self.children]
        if self.node_type is tuple:
            return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
        if self.node_type is list:
            return "[" + ", ".join(kids) + "]"
        if self.node_type is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.node_data, kids)) + "}"
        if self.node_type is type(None):
            return "None"
        return f"CustomNode({self.node_type.__name__}[{self.node_data!r}], [{', '.join(kids)}])"

    def __repr__(self):
        return f"PyTreeDef({self._str()})"


_LEAF = PyTreeDef(None, None, ())


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """Leaves in a canonical order (dicts by sorted key) and the tree's structure."""
    leaves: list[Any] = []

    def rec(x) -> PyTreeDef:
        if is_leaf is not None and is_leaf(x):
            leaves.append(x)
            return _LEAF
        t, node = _node_type(x)
        if node is None:
            leaves.append(x)
            return _LEAF
        children, aux = node.flatten(x)
        return PyTreeDef(t, aux, tuple(rec(c) for c in children))

    treedef = rec(tree)
    return leaves, treedef


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure ``treedef`` from ``leaves``."""
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"Too {'few' if len(leaves) < treedef.num_leaves else 'many'} leaves for "
                         f"PyTreeDef; expected {treedef.num_leaves}, got {len(leaves)}.")
    it = iter(leaves)

    def rec(td: PyTreeDef):
        if td.node_type is None:
            return next(it)
        children = [rec(c) for c in td.children]
        t = td.node_type
        node = _registry.get(t)
        if node is None:  # namedtuple
            return t(*children)
        return node.unflatten(td.node_data, children)

    return rec(treedef)


def tree_leaves(tree: Any, is_leaf=None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf=None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    return list(treedef.children)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    return treedef.node_type is None


def all_leaves(iterable: Iterable[Any]) -> bool:
    return all(treedef_is_leaf(tree_structure(x)) for x in iterable)


def _flatten_up_to(treedef: PyTreeDef, tree: Any) -> list[Any]:
    """The subtrees of ``tree`` at the leaf positions of ``treedef`` (errors if they mismatch)."""
    out: list[Any] = []

    def rec(td: PyTreeDef, x):
        if td.node_type is None:
            out.append(x)
            return
        t, node = _node_type(x)
        if t is not td.node_type:
            raise ValueError(f"Custom node type mismatch; expected type: {td.node_type}; value: {x!r:.80}.")
        children, aux = node.flatten(x)
        children = list(children)
        if aux != td.node_data or len(children) != len(td.children):
            raise ValueError(f"Mismatch custom node data: {aux!r} != {td.node_data!r}; value: {x!r:.80}.")
        for c_td, c in zip(td.children, children):
            rec(c_td, c)

    rec(treedef, tree)
    return out


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf=None) -> Any:
    """Apply ``f`` leafwise; ``rest`` trees must have ``tree``'s structure (or a refinement of it)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    all_leaves_ = [leaves] + [_flatten_up_to(treedef, r) for r in rest]
    return treedef.unflatten(f(*xs) for xs in zip(*all_leaves_))
