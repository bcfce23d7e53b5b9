"""numlir.tree_util follows jax.tree_util: same leaf order, structure and errors."""

import collections

import jax
import pytest

from numlir import tree_util

Point = collections.namedtuple("Point", ["x", "y"])

TREES = [
    1,
    None,
    (),
    [1, 2],
    (1, (2, 3), [4, None]),
    {"b": 1, "a": (2, 3)},
    {"w": [1, {"z": 2, "y": 3}], "b": None},
    Point(1, (2, 3)),
    collections.OrderedDict([("z", 1), ("a", 2)]),
]


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_flatten_matches_jax_leaf_order_and_roundtrips(tree):
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == jax.tree_util.tree_leaves(tree)
    assert treedef.num_leaves == len(leaves)
    assert tree_util.tree_unflatten(treedef, leaves) == tree


def test_dicts_flatten_in_sorted_key_order():
    leaves, treedef = tree_util.tree_flatten({"b": 1, "a": 2})
    assert leaves == [2, 1]
    assert repr(treedef) == "PyTreeDef({'a': *, 'b': *})"


def test_structure_equality_and_hash():
    s1 = tree_util.tree_structure((1, {"a": 2}))
    s2 = tree_util.tree_structure((5, {"a": 7}))
    s3 = tree_util.tree_structure((5, {"b": 7}))
    assert s1 == s2 and hash(s1) == hash(s2)
    assert s1 != s3
    assert tree_util.tree_structure([1, 2]) != tree_util.tree_structure((1, 2))


def test_none_is_an_empty_node_not_a_leaf():
    assert tree_util.tree_leaves([None, 1, None]) == [1]


def test_tree_map_over_several_trees():
    out = tree_util.tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)})
    assert out == {"x": 11, "y": (22, 33)}


def test_tree_map_rejects_mismatched_structure():
    with pytest.raises(ValueError):
        tree_util.tree_map(lambda a, b: a, (1, 2), [1, 2])


def test_tree_map_is_leaf():
    out = tree_util.tree_map(lambda x: len(x), {"a": (1, 2), "b": (3,)}, is_leaf=lambda x: isinstance(x, tuple))
    assert out == {"a": 2, "b": 1}


def test_unflatten_checks_leaf_count():
    with pytest.raises(ValueError, match="leaves"):
        tree_util.tree_unflatten(tree_util.tree_structure((1, 2)), [1])


class Box:
    def __init__(self, value, label):
        self.value, self.label = value, label

    def __eq__(self, other):
        return isinstance(other, Box) and (self.value, self.label) == (other.value, other.label)


tree_util.register_pytree_node(Box, lambda b: ((b.value,), b.label), lambda label, c: Box(c[0], label))


def test_registered_custom_node_flattens_children_and_keeps_aux_data():
    tree = {"k": Box((1, 2), "lbl")}
    leaves, treedef = tree_util.tree_flatten(tree)
    assert leaves == [1, 2]
    assert tree_util.tree_unflatten(treedef, [3, 4]) == {"k": Box((3, 4), "lbl")}
    assert treedef != tree_util.tree_structure({"k": Box((1, 2), "other")})


def test_duplicate_registration_is_an_error():
    with pytest.raises(ValueError):
        tree_util.register_pytree_node(Box, lambda b: ((), None), lambda a, c: Box(None, None))
