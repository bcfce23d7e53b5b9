"""Pytrees: nested tuples, lists, dicts and None (plus registered types), as in jax.tree_util.

Dicts flatten in sorted-key order, OrderedDicts in insertion order, namedtuples
by field; None is an empty node (no leaves). Key paths (``tree_flatten_with_path``)
name each leaf by ``SequenceKey``/``DictKey``/``GetAttrKey``/``FlattenedIndexKey``.

Example::

    >>> leaves, treedef = tree_flatten({"w": 1, "b": (2, None)})
    >>> leaves
    [2, 1]
    >>> tree_unflatten(treedef, [20, 10])
    {'b': (20, None), 'w': 10}
"""

from __future__ import annotations

import collections
import functools
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Iterator, NamedTuple

import numpy as np

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "PyTreeDef", "SequenceKey", "all_leaves", "keystr",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "tree_all", "tree_flatten", "tree_flatten_with_path",
    "tree_leaves", "tree_leaves_with_path", "tree_map", "tree_map_with_path", "tree_reduce",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children", "treedef_is_leaf",
]

# --- key path entries --------------------------------------------------------------------------


@dataclass(frozen=True)
class SequenceKey:
    """The position of a child in a tuple or list: ``[idx]``."""

    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclass(frozen=True)
class DictKey:
    """The key of a child in a dict: ``[key]``."""

    key: Hashable

    def __str__(self):
        return f"[{self.key!r}]"


@dataclass(frozen=True)
class GetAttrKey:
    """The attribute holding a child (namedtuple fields): ``.name``."""

    name: str

    def __str__(self):
        return f".{self.name}"


@dataclass(frozen=True)
class FlattenedIndexKey:
    """The index of a child of a node registered without keys: ``[key]``."""

    key: int

    def __str__(self):
        return f"[{self.key!r}]"


def keystr(keys: tuple) -> str:
    """A key path as a string: ``keystr((DictKey('a'), SequenceKey(0)))`` is ``"['a'][0]"``."""
    return "".join(str(k) for k in keys)


# --- the registry ----------------------------------------------------------------------------


class _NodeType(NamedTuple):
    flatten: Callable[[Any], tuple[Iterable[Any], Any]]
    unflatten: Callable[[Any, Iterable[Any]], Any]
    # x -> (((key, child), ...), aux); None for nodes registered without keys.
    flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]] | None = None


_registry: dict[type, _NodeType] = {}

# Types that are always leaves: never registered as nodes (register_pytree_node refuses
# them) and not tuples. numlir.Array joins through register_leaf_type.
_leaf_types: set[type] = {float, int, bool, complex, np.ndarray, str}


def register_pytree_node(nodetype: type, flatten_func, unflatten_func, flatten_with_keys_func=None) -> None:
    """Register ``nodetype``: ``flatten_func(x) -> (children, aux)``, ``unflatten_func(aux, children) -> x``.

    Example::

        class Pair:
            def __init__(self, a, b): self.a, self.b = a, b

        register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    """
    if nodetype in _registry:
        raise ValueError(f"Duplicate pytree node registration for {nodetype}")
    if nodetype in _leaf_types:
        raise ValueError(f"{nodetype} is a leaf type and cannot be registered as a pytree node")
    _registry[nodetype] = _NodeType(flatten_func, unflatten_func, flatten_with_keys_func)


def register_pytree_with_keys(nodetype: type, flatten_with_keys, unflatten_func, flatten_func=None) -> None:
    """Register ``nodetype`` with key paths: ``flatten_with_keys(x) -> (((key, child), ...), aux)``.

    Example::

        register_pytree_with_keys(
            Pair, lambda p: (((GetAttrKey("a"), p.a), (GetAttrKey("b"), p.b)), None),
            lambda _, c: Pair(*c))
    """
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls):
    """Class decorator: uses ``x.tree_flatten()`` and ``cls.tree_unflatten(aux, children)``."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls):
    """Class decorator: uses ``x.tree_flatten_with_keys()`` and ``cls.tree_unflatten(aux, children)``."""
    flatten = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten, flatten)
    return cls


def _dict_flatten(d):
    keys = sorted(d)
    return [d[k] for k in keys], tuple(keys)


def _seq_keys(t):
    return [(SequenceKey(i), c) for i, c in enumerate(t)], None


def _dict_keys(flatten):
    def with_keys(d):
        children, keys = flatten(d)
        return [(DictKey(k), c) for k, c in zip(keys, children)], keys
    return with_keys


def _ordered_dict_flatten(d):
    return list(d.values()), tuple(d.keys())


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c), _seq_keys)
register_pytree_node(list, lambda t: (t, None), lambda _, c: list(c), _seq_keys)
register_pytree_node(dict, _dict_flatten, lambda keys, c: dict(zip(keys, c)), _dict_keys(_dict_flatten))
register_pytree_node(type(None), lambda _: ((), None), lambda _, c: None, lambda _: ((), None))
register_pytree_node(collections.OrderedDict, _ordered_dict_flatten,
                     lambda keys, c: collections.OrderedDict(zip(keys, c)),
                     _dict_keys(_ordered_dict_flatten))
register_pytree_node(collections.defaultdict, lambda d: (_dict_flatten(d)[0], (d.default_factory, _dict_flatten(d)[1])),
                     lambda aux, c: collections.defaultdict(aux[0], zip(aux[1], c)),
                     lambda d: ([(DictKey(k), d[k]) for k in sorted(d)], (d.default_factory, tuple(sorted(d)))))


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _namedtuple_node(t: type) -> _NodeType:
    return _NodeType(lambda n: (tuple(n), None), lambda _, c: t(*c),
                     lambda n: ([(GetAttrKey(f), v) for f, v in zip(n._fields, n)], None))


def _node_type(x):
    t = type(x)
    node = _registry.get(t)
    if node is not None:
        return t, node
    if _is_namedtuple(x):
        return t, _namedtuple_node(t)
    return None, None


def _keyed_children(node: _NodeType, x) -> tuple[list, list, Any]:
    """(keys, children, aux) of node ``x``; keys are FlattenedIndexKeys for keyless nodes."""
    if node.flatten_with_keys is not None:
        pairs, aux = node.flatten_with_keys(x)
        pairs = list(pairs)
        return [k for k, _ in pairs], [c for _, c in pairs], aux
    children, aux = node.flatten(x)
    children = list(children)
    return [FlattenedIndexKey(i) for i in range(len(children))], children, aux


# --- PyTreeDef --------------------------------------------------------------------------------


class PyTreeDef:
    """The structure of a pytree (leaves replaced by ``*``); hashable and comparable."""

    # Immutable once built. The hash is kept because every jitted call hashes its argument
    # structure for the cache lookup; it is computed on first use, since a custom node's aux
    # data need not be hashable for flattening alone.
    __slots__ = ("node_type", "node_data", "children", "num_leaves", "num_nodes", "_hash")

    def __init__(self, node_type, node_data, children: tuple["PyTreeDef", ...]):
        self.node_type = node_type  # None for a leaf
        self.node_data = node_data
        self.children = children
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
        self.num_nodes = 1 + sum(c.num_nodes for c in children)
        self._hash = None

    def _key(self):
        return (self.node_type, self.node_data, self.children)

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, PyTreeDef) or self.num_nodes != other.num_nodes:
            return False
        if self._hash is not None and other._hash is not None and self._hash != other._hash:
            return False
        return self._key() == other._key()

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __reduce__(self):  # never pickle the hash: string hashes differ between processes
        return PyTreeDef, (self.node_type, self.node_data, self.children)

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """The subtrees of ``tree`` at this structure's leaves (``tree`` must have this structure)."""
        return _flatten_up_to(self, tree, "tree")

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
        if issubclass(self.node_type, tuple) and hasattr(self.node_type, "_fields"):
            return f"CustomNode(namedtuple[{self.node_type.__name__}], [{', '.join(kids)}])"
        return f"CustomNode({self.node_type.__name__}[{self.node_data!r}], [{', '.join(kids)}])"

    def __repr__(self):
        return f"PyTreeDef({self._str()})"


_LEAF = PyTreeDef(None, None, ())



def all_leaf_types(xs: Iterable[Any]) -> bool:
    """Whether every element of ``xs`` is of a type that is always a leaf (exact types only)."""
    return all(type(x) in _leaf_types for x in xs)


def register_leaf_type(t: type) -> None:
    """Mark ``t`` as a leaf type for tree_flatten's fast path (``t`` must not be a node)."""
    if t in _registry or issubclass(t, tuple):
        raise ValueError(f"{t} is a pytree node type, not a leaf type")
    _leaf_types.add(t)


def _unflatten_node(td: PyTreeDef, children: list) -> Any:
    node = _registry.get(td.node_type)
    if node is None:  # namedtuple
        return td.node_type(*children)
    return node.unflatten(td.node_data, children)


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """Leaves in a canonical order (dicts by sorted key) and the tree's structure."""
    leaves: list[Any] = []
    treedef = _flatten_into(tree, is_leaf, leaves)
    return leaves, treedef


# The recursive helpers of this module are module-level functions that take
# their accumulator: a nested function that calls itself is a reference
# cycle, which would keep the leaves it collected (a jitted call's inputs and
# outputs) alive until the cyclic garbage collector runs.
def _flatten_into(x: Any, is_leaf, leaves: list) -> PyTreeDef:
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    if type(x) in _leaf_types:  # the common leaves, without the registry and namedtuple checks
        leaves.append(x)
        return _LEAF
    t, node = _node_type(x)
    if node is None:
        leaves.append(x)
        return _LEAF
    children, aux = node.flatten(x)
    return PyTreeDef(t, aux, tuple(_flatten_into(c, is_leaf, leaves) for c in children))


def tree_flatten_with_path(tree: Any, is_leaf=None) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
    """Like tree_flatten, with each leaf paired with its key path.

    Example::

        >>> tree_flatten_with_path({"a": [1, 2]})[0]
        [((DictKey(key='a'), SequenceKey(idx=0)), 1), ((DictKey(key='a'), SequenceKey(idx=1)), 2)]
    """
    out: list[tuple[tuple, Any]] = []
    _flatten_with_path_into(tree, (), is_leaf, out)
    return out, tree_structure(tree, is_leaf)


def _flatten_with_path_into(x: Any, path: tuple, is_leaf, out: list) -> None:
    if is_leaf is not None and is_leaf(x):
        out.append((path, x))
        return
    _, node = _node_type(x)
    if node is None:
        out.append((path, x))
        return
    keys, children, _ = _keyed_children(node, x)
    for k, c in zip(keys, children):
        _flatten_with_path_into(c, path + (k,), is_leaf, out)


def tree_leaves_with_path(tree: Any, is_leaf=None) -> list[tuple[tuple, Any]]:
    """``(key_path, leaf)`` pairs, in tree_leaves order."""
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure ``treedef`` from ``leaves``."""
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"Too {'few' if len(leaves) < treedef.num_leaves else 'many'} leaves for "
                         f"PyTreeDef; expected {treedef.num_leaves}, got {len(leaves)}.")
    return _unflatten_from(treedef, iter(leaves))


def _unflatten_from(treedef: PyTreeDef, leaves: Iterator[Any]) -> Any:
    # A module-level function, not a recursive closure: a closure that calls
    # itself is a reference cycle, and it would keep every leaf (a jitted
    # call's outputs) alive until the cyclic garbage collector runs.
    if treedef.node_type is None:
        return next(leaves)
    return _unflatten_node(treedef, [_unflatten_from(c, leaves) for c in treedef.children])


def tree_leaves(tree: Any, is_leaf=None) -> list[Any]:
    """The leaves of ``tree``, in tree_flatten order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf=None) -> PyTreeDef:
    """The PyTreeDef of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    return list(treedef.children)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    return treedef.node_type is None


def all_leaves(iterable: Iterable[Any]) -> bool:
    return all(treedef_is_leaf(tree_structure(x)) for x in iterable)


def _type_name(t) -> str:
    return "None" if t is type(None) else t.__name__


def _flatten_up_to(treedef: PyTreeDef, tree: Any, name: str) -> list[Any]:
    """The subtrees of ``tree`` at the leaf positions of ``treedef``; errors name the mismatch."""
    out: list[Any] = []
    _flatten_up_to_into(treedef, tree, (), name, out)
    return out


def _flatten_up_to_into(td: PyTreeDef, x: Any, path: tuple, name: str, out: list) -> None:
    def fail(what):
        raise ValueError(f"pytree structure error: {what} at key path {name}{keystr(path)}")

    if td.node_type is None:
        out.append(x)
        return
    t, node = _node_type(x)
    if t is not td.node_type:
        fail(f"different types: expected {_type_name(td.node_type)} (from the first tree), "
             f"got {_type_name(type(x))}: {x!r:.80}")
    keys, children, aux = _keyed_children(node, x)
    if len(children) != len(td.children):
        fail(f"different numbers of children of {_type_name(t)}: expected "
             f"{len(td.children)}, got {len(children)}")
    if aux != td.node_data:
        what = "dict keys" if t in (dict, collections.OrderedDict) else "pytree metadata"
        fail(f"different {what}: expected {td.node_data!r}, got {aux!r}")
    for c_td, k, c in zip(td.children, keys, children):
        _flatten_up_to_into(c_td, c, path + (k,), name, out)


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf=None) -> Any:
    """Apply ``f`` leafwise; ``rest`` trees must have ``tree``'s structure (or a refinement of it).

    Example::

        >>> tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)})
        {'x': 11, 'y': (22, 33)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    all_leaves_ = [leaves] + [_flatten_up_to(treedef, r, f"tree {i + 1}") for i, r in enumerate(rest)]
    return treedef.unflatten(f(*xs) for xs in zip(*all_leaves_))


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf=None) -> Any:
    """Like tree_map, calling ``f(key_path, leaf, *other_leaves)``."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [_flatten_up_to(treedef, r, f"tree {i + 1}") for i, r in enumerate(rest)]
    return treedef.unflatten(f(p, x, *xs) for (p, x), *xs in zip(pairs, *others))


_NO_INITIALIZER = object()


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _NO_INITIALIZER,
                is_leaf=None) -> Any:
    """``functools.reduce(function, tree_leaves(tree), initializer)``.

    Example::

        >>> tree_reduce(lambda a, b: a + b, [1, (2, 3)])
        6
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf=None) -> bool:
    """True when every leaf is truthy (``all(tree_leaves(tree))``)."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any) -> Any:
    """Turn an outer tree of inner trees into an inner tree of outer trees.

    Example::

        >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
        ([1, 3], [2, 4])
    """
    inners = _flatten_up_to(outer_treedef, pytree_to_transpose, "tree")
    if inner_treedef is None:
        inner_treedef = tree_structure(inners[0]) if inners else _LEAF
    columns = [_flatten_up_to(inner_treedef, sub, f"tree (outer leaf {i})") for i, sub in enumerate(inners)]
    per_inner_leaf = zip(*columns) if columns else [[] for _ in range(inner_treedef.num_leaves)]
    return inner_treedef.unflatten(outer_treedef.unflatten(col) for col in per_inner_leaf)


def is_tree_node(typ: type) -> bool:
    """Whether ``typ`` is a pytree node type: registered (built in or by the user) or a namedtuple."""
    return typ in _registry or (isinstance(typ, type) and issubclass(typ, tuple) and hasattr(typ, "_fields"))


def _one_level(tree: Any):
    t, node = _node_type(tree)
    if node is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return node


def flatten_one_level(tree: Any) -> tuple[tuple[Any, ...], Any]:
    """The children and the node data of the node ``tree`` (a ValueError for a leaf).

    Example::

        >>> flatten_one_level({"b": 1, "a": (2, 3)})
        (((2, 3), 1), ('a', 'b'))
    """
    children, aux = _one_level(tree).flatten(tree)
    return tuple(children), aux


def flatten_one_level_with_keys(tree: Any) -> tuple[tuple[tuple[Any, Any], ...], Any]:
    """Like flatten_one_level, each child paired with its key."""
    keys, children, aux = _keyed_children(_one_level(tree), tree)
    return tuple(zip(keys, children)), aux


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose elements have the structures ``treedefs``."""
    return PyTreeDef(tuple, None, tuple(treedefs))


def tree_broadcast(prefix_tree: Any, full_tree: Any, is_leaf=None) -> Any:
    """``full_tree``'s structure, each leaf replaced by the leaf of ``prefix_tree`` above it.

    Example::

        >>> tree_broadcast([1, {"a": 2}], [(3, 4), {"a": [5, 6]}])
        [(1, 1), {'a': [2, 2]}]
    """
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    subtrees = _flatten_up_to(treedef, full_tree, "full_tree")
    return treedef.unflatten(tree_map(lambda _, leaf=leaf: leaf, sub, is_leaf=is_leaf)
                             for leaf, sub in zip(leaves, subtrees))


_NO_IDENTITY = object()


def tree_reduce_associative(operation: Callable[[Any, Any], Any], tree: Any, *, identity: Any = _NO_IDENTITY,
                            is_leaf=None) -> Any:
    """Combine the leaves as a balanced tree (halves first), for an associative ``operation``.

    Example::

        >>> tree_reduce_associative(lambda a, b: f"({a}+{b})", [1, 2, 3, 4, 5])
        '((1+2)+(3+(4+5)))'
    """
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_IDENTITY:
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity

    def reduce(lo: int, hi: int):
        if hi - lo == 1:
            return leaves[lo]
        mid = lo + (hi - lo) // 2
        return operation(reduce(lo, mid), reduce(mid, hi))

    return reduce(0, len(leaves))
