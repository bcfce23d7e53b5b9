"""numlir.tree_util: pytrees (nested tuples, lists, dicts, None and registered types), as
jax.tree_util. The implementation is numlir._src.tree_util, which core modules use.

Example::

    >>> from numlir.tree_util import tree_flatten, tree_unflatten
    >>> leaves, treedef = tree_flatten({"w": 1, "b": (2, None)})
    >>> leaves
    [2, 1]
    >>> tree_unflatten(treedef, [20, 10])
    {'b': (20, None), 'w': 10}
"""

from numlir._src.tree_util import (DictKey, FlattenedIndexKey, GetAttrKey, PyTreeDef, SequenceKey,
                                   all_leaves, keystr, register_pytree_node,
                                   register_pytree_node_class, register_pytree_with_keys,
                                   register_pytree_with_keys_class, tree_all, tree_flatten,
                                   tree_flatten_with_path, tree_leaves, tree_leaves_with_path,
                                   tree_map, tree_map_with_path, tree_reduce, tree_structure,
                                   tree_transpose, tree_unflatten, treedef_children,
                                   treedef_is_leaf, is_tree_node, flatten_one_level,
                                   flatten_one_level_with_keys, treedef_tuple, tree_broadcast,
                                   tree_reduce_associative)
from numlir._src.tree_registrations import Partial, register_dataclass, register_static

#: A path of keys from the root to a leaf, as in ``tree_flatten_with_path``.
KeyPath = tuple

__all__ = [
    "DictKey", "FlattenedIndexKey", "GetAttrKey", "PyTreeDef", "SequenceKey", "all_leaves", "keystr",
    "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
    "register_pytree_with_keys_class", "tree_all", "tree_flatten", "tree_flatten_with_path",
    "tree_leaves", "tree_leaves_with_path", "tree_map", "tree_map_with_path", "tree_reduce",
    "tree_structure", "tree_transpose", "tree_unflatten", "treedef_children", "treedef_is_leaf",
    "KeyPath", "Partial", "flatten_one_level", "flatten_one_level_with_keys", "is_tree_node",
    "register_dataclass", "register_static", "tree_broadcast", "tree_reduce_associative",
    "treedef_tuple",
]
