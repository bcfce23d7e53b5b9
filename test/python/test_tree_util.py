"""numlir.tree_util follows jax.tree_util: same leaf order, structure and errors."""

import collections

import jax
import pytest

from numlir import tree_util
from numlir import tree_util as tu

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


# --- registration, key paths, reduce/transpose, errors -------------------------------------------
# numlir.tree_util beyond flatten/unflatten: registration, key paths, reduce/transpose, errors.


PointTuple = collections.namedtuple("Point", ["x", "y"])


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return isinstance(other, Pair) and (self.a, self.b) == (other.a, other.b)


tu.register_pytree_node(Pair, lambda p: ((p.a, p.b), "pair"), lambda aux, c: Pair(*c))


@tu.register_pytree_node_class
class KeyedBox:
    def __init__(self, value, label):
        self.value, self.label = value, label

    def tree_flatten(self):
        return (self.value,), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children[0], label)


class Keyed:
    def __init__(self, w, b):
        self.w, self.b = w, b


tu.register_pytree_with_keys(
    Keyed, lambda k: (((tu.GetAttrKey("w"), k.w), (tu.GetAttrKey("b"), k.b)), None),
    lambda _, c: Keyed(*c))

MORE_TREES = [
    (1, [2, None], {"b": 3, "a": (4,)}),
    PointTuple(1, [2, 3]),
    collections.OrderedDict([("z", 1), ("a", (2, 3))]),
    {"x": None, "y": []},
]


@pytest.mark.parametrize("tree", MORE_TREES, ids=repr)
def test_paths_and_structure_strings_match_jax(tree):
    ours = [(tu.keystr(p), x) for p, x in tu.tree_flatten_with_path(tree)[0]]
    theirs = [(jax.tree_util.keystr(p), x) for p, x in jax.tree_util.tree_flatten_with_path(tree)[0]]
    assert ours == theirs
    assert repr(tu.tree_structure(tree)) == repr(jax.tree_util.tree_structure(tree))


def test_registered_class_roundtrips_and_keeps_aux_data():
    tree = {"p": Pair(1, (2, 3)), "box": KeyedBox([4, 5], "lbl")}
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == [4, 5, 1, 2, 3]
    back = tu.tree_unflatten(treedef, [x * 10 for x in leaves])
    assert back["p"] == Pair(10, (20, 30)) and back["box"].value == [40, 50] and back["box"].label == "lbl"
    assert tu.tree_structure(KeyedBox(1, "a")) != tu.tree_structure(KeyedBox(1, "b"))


def test_duplicate_registration_error_says_duplicate():
    with pytest.raises(ValueError, match="Duplicate"):
        tu.register_pytree_node(Pair, lambda p: ((), None), lambda _, c: Pair(0, 0))


def test_register_with_keys_gives_named_paths():
    paths = [tu.keystr(p) for p, _ in tu.tree_leaves_with_path({"layer": Keyed(1, 2)})]
    assert paths == ["['layer'].w", "['layer'].b"]
    assert tu.tree_map(lambda x: x + 1, Keyed(1, 2)).b == 3
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(Pair(1, 2))] == ["[0]", "[1]"]


def test_tree_map_with_several_trees_and_is_leaf():
    out = tu.tree_map(lambda a, b, c: a + b + c, [1, (2, 3)], [10, (20, 30)], [100, (200, 300)])
    assert out == [111, (222, 333)]
    # is_leaf stops at tuples; the second tree may hold anything at those positions
    out = tu.tree_map(lambda t, s: len(t) + s, [(1, 2), (3,)], [10, 20], is_leaf=lambda x: isinstance(x, tuple))
    assert out == [12, 21]


def test_tree_map_with_a_prefix_tree_broadcasts_subtrees():
    assert tu.tree_map(lambda a, b: (a, b), [1, 2], [{"x": 0}, None]) == [(1, {"x": 0}), (2, None)]


def test_tree_map_with_path():
    out = tu.tree_map_with_path(lambda p, x: f"{tu.keystr(p)}={x}", {"a": [1, 2]})
    assert out == {"a": ["['a'][0]=1", "['a'][1]=2"]}


@pytest.mark.parametrize("a,b,match", [
    ((1, 2), [1, 2], r"different types: expected tuple .* got list"),
    ((1, 2), (1, 2, 3), r"different numbers of children of tuple: expected 2, got 3"),
    ({"a": 1}, {"b": 1}, r"different dict keys: expected \('a',\), got \('b',\)"),
    ((1, (2, 3)), (1, 2), r"different types: expected tuple .* got int: 2 at key path tree 1\[1\]"),
    ([1, None], [1, 2], r"expected None .* got int"),
    (Pair(1, 2), KeyedBox(1, "x"), r"expected Pair .* got KeyedBox"),
], ids=["type", "length", "dict-keys", "nested", "none", "custom"])
def test_tree_map_mismatch_errors_name_the_difference(a, b, match):
    with pytest.raises(ValueError, match=match):
        tu.tree_map(lambda x, y: x, a, b)
    if not isinstance(a, Pair):  # Pair is registered with numlir only
        with pytest.raises(ValueError):
            jax.tree_util.tree_map(lambda x, y: x, a, b)


def test_tree_reduce_and_tree_all():
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6
    assert tu.tree_reduce(lambda a, b: a + b, [], 5) == 5
    with pytest.raises(TypeError):
        tu.tree_reduce(lambda a, b: a + b, [])
    assert tu.tree_all([1, (True, 2)]) and not tu.tree_all({"a": 1, "b": 0})
    assert tu.tree_all([])


def test_tree_transpose_matches_jax():
    outer, inner = tu.tree_structure([0, 0, 0]), tu.tree_structure({"a": 0, "b": 0})
    tree = [{"a": 1, "b": 2}, {"a": 3, "b": 4}, {"a": 5, "b": 6}]
    want = jax.tree_util.tree_transpose(jax.tree_util.tree_structure([0, 0, 0]),
                                        jax.tree_util.tree_structure({"a": 0, "b": 0}), tree)
    assert tu.tree_transpose(outer, inner, tree) == want == {"a": [1, 3, 5], "b": [2, 4, 6]}
    assert tu.tree_transpose(outer, None, tree) == want


def test_treedef_helpers():
    treedef = tu.tree_structure((1, [2, 3]))
    assert not tu.treedef_is_leaf(treedef) and tu.treedef_is_leaf(tu.tree_structure(7))
    assert [c.num_leaves for c in tu.treedef_children(treedef)] == [1, 2]
    assert treedef.num_nodes == jax.tree_util.tree_structure((1, [2, 3])).num_nodes
    assert treedef.flatten_up_to(((1, 2), [3, {"x": 4}])) == [(1, 2), 3, {"x": 4}]
    assert tu.all_leaves([1, 2.0]) and not tu.all_leaves([1, (2,)])


def test_defaultdict_is_a_node():
    d = collections.defaultdict(list, {"b": 1, "a": 2})
    leaves, treedef = tu.tree_flatten(d)
    assert leaves == jax.tree_util.tree_leaves(d) == [2, 1]
    back = tu.tree_unflatten(treedef, leaves)
    assert isinstance(back, collections.defaultdict) and back.default_factory is list


def test_structures_with_unhashable_aux_data_flatten_and_compare():
    # The hash is computed on first use, so aux data only has to be hashable for hashing.
    class Box:
        def __init__(self, v, meta):
            self.v, self.meta = v, meta

    tu.register_pytree_node(Box, lambda b: ((b.v,), b.meta), lambda meta, c: Box(c[0], meta))
    leaves, a = tu.tree_flatten(Box(1, ["unhashable"]))
    _, b = tu.tree_flatten(Box(2, ["unhashable"]))
    _, c = tu.tree_flatten(Box(2, ["other"]))
    assert leaves == [1] and a == b and a != c
    with pytest.raises(TypeError):
        hash(a)


def test_equal_structures_hash_equal_and_different_ones_compare_unequal_after_hashing():
    a, b = tu.tree_structure(((1, 2), {"k": 3})), tu.tree_structure(((4, 5), {"k": 6}))
    c = tu.tree_structure(((1, 2), {"j": 3}))
    assert hash(a) == hash(b) and a == b
    hash(c)
    assert a != c and c != a  # the cached hashes differ, and so does the structure


def test_array_and_ndarray_leaves_flatten_as_leaves():
    import numpy as np

    import numlir.numpy as jnp

    tree = (jnp.ones(2), np.zeros(3), 1.5, "s")
    leaves, treedef = tu.tree_flatten(tree)
    assert len(leaves) == 4 and leaves[0] is tree[0] and treedef.num_leaves == 4


def test_leaf_types_cannot_become_nodes():
    import numpy as np

    from numlir._src import tree_util as impl

    with pytest.raises(ValueError, match="leaf type"):
        tu.register_pytree_node(np.ndarray, lambda x: ((), None), lambda _, c: None)
    with pytest.raises(ValueError, match="pytree node type"):
        impl.register_leaf_type(dict)
