"""The rest of jax.tree_util: Partial, register_dataclass/register_static, one-level
flattening, tree_broadcast, tree_reduce_associative and treedef_tuple, against jax."""

import collections
import dataclasses

import jax
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import tree_util as tu

Point = collections.namedtuple("Point", ["x", "y"])
NODES = [{"b": 1, "a": (2, 3)}, [1, [2]], (1,), None, Point(1, 2),
         collections.OrderedDict([("z", 1), ("a", 2)])]


@pytest.mark.parametrize("tree", NODES, ids=repr)
def test_flatten_one_level_matches_jax(tree):
    (children, aux), (want_children, want_aux) = (tu.flatten_one_level(tree),
                                                  jax.tree_util.flatten_one_level(tree))
    assert list(children) == list(want_children)
    if not isinstance(tree, Point):  # jax's node data of a namedtuple is its class
        assert aux == want_aux
    got = tu.flatten_one_level_with_keys(tree)
    want = jax.tree_util.flatten_one_level_with_keys(tree)
    assert [c for _, c in got[0]] == [c for _, c in want[0]]
    if isinstance(tree, Point):
        # jax 0.10.2 names both fields `.x` here; its key paths say `.x`, `.y`.
        want = ([(path[0], c) for path, c in jax.tree_util.tree_flatten_with_path(tree)[0]], aux)
    assert [str(k) for k, _ in got[0]] == [str(k) for k, _ in want[0]] and got[1] == want[1]


def test_flatten_one_level_of_a_leaf_is_an_error():
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        tu.flatten_one_level(1.0)


@pytest.mark.parametrize("typ", [type(None), int, float, list, dict, tuple, Point, np.ndarray])
def test_is_tree_node_matches_jax(typ):
    assert tu.is_tree_node(typ) == jax.tree_util.is_tree_node(typ)


@pytest.mark.parametrize("prefix,full", [
    ([1, {"a": 2}], [(3, 4), {"a": [5, 6]}]),
    (1, {"x": (1, 2), "y": [3]}),
    ((1, 2), (3, 4)),
    ({"a": None, "b": 7}, {"a": None, "b": [1, 2]}),
])
def test_tree_broadcast_matches_jax(prefix, full):
    assert tu.tree_broadcast(prefix, full) == jax.tree_util.tree_broadcast(prefix, full)


def test_tree_broadcast_rejects_a_tree_that_is_not_a_refinement():
    with pytest.raises(ValueError, match="pytree structure error"):
        tu.tree_broadcast([1, 2], [1, 2, 3])


@pytest.mark.parametrize("n", [1, 2, 5, 8, 11])
def test_tree_reduce_associative_pairs_like_jax(n):
    tree = {"a": list(range(n // 2)), "b": tuple(range(n // 2, n))}
    op = lambda a, b: f"({a}+{b})"  # noqa: E731 - the grouping shows in the string
    assert tu.tree_reduce_associative(op, tree) == jax.tree_util.tree_reduce_associative(op, tree)


def test_tree_reduce_associative_of_no_leaves_needs_an_identity():
    assert tu.tree_reduce_associative(lambda a, b: a + b, [], identity=0) == 0
    with pytest.raises(TypeError, match="identity"):
        tu.tree_reduce_associative(lambda a, b: a + b, [None])


def test_treedef_tuple_matches_jax():
    parts = [1, [1, 2], {"a": None}]
    got = tu.treedef_tuple([tu.tree_structure(p) for p in parts])
    want = jax.tree_util.treedef_tuple([jax.tree_util.tree_structure(p) for p in parts])
    assert got == tu.tree_structure(tuple(parts)) and str(got) == str(want)
    assert tu.tree_unflatten(got, [1, 2, 3]) == (1, [2, 3], {"a": None})


def test_partial_is_a_pytree_whose_function_is_static():
    add = tu.Partial(lambda a, b, c=0: a + b + c, 1.0, c=np.float32(3.0))
    leaves, treedef = tu.tree_flatten(add)
    assert leaves == [1.0, 3.0] and len(jax.tree_util.tree_leaves(jax.tree_util.Partial(add.func, 1.0, c=3.0))) == 2
    rebuilt = tu.tree_unflatten(treedef, [10.0, 20.0])
    assert isinstance(rebuilt, tu.Partial) and rebuilt(1.0) == 31.0
    out = numlir.jit(lambda f, x: f(x))(add, jnp.float32(2.0))
    assert float(out) == 6.0
    # Returned from jit: the arguments come back as arrays, the function as it was.
    made = numlir.jit(lambda x: tu.Partial(add.func, x * 2))(jnp.float32(1.0))
    assert isinstance(made, tu.Partial) and float(made(1.0)) == 3.0


def test_nested_partials_keep_the_inner_one_static_as_jax_does():
    inner = tu.Partial(lambda a, b: a - b, 5.0)
    outer = tu.Partial(inner, 2.0)
    assert tu.tree_leaves(outer) == [2.0] and outer() == 3.0
    assert jax.tree_util.tree_leaves(jax.tree_util.Partial(jax.tree_util.Partial(lambda a, b: a - b, 5.0), 2.0)) == [2.0]


@dataclasses.dataclass
class Params:
    w: object
    b: object
    name: str = dataclasses.field(default="layer", metadata={"static": True})


tu.register_dataclass(Params)


def test_a_registered_dataclass_flattens_its_data_fields_and_keeps_meta_fields_static():
    p = Params(w=np.ones(2, np.float32), b=np.float32(0.5), name="dense")
    leaves, treedef = tu.tree_flatten(p)
    assert [np.asarray(x).tolist() for x in leaves] == [[1.0, 1.0], 0.5]
    assert tu.tree_unflatten(treedef, [1, 2]) == Params(1, 2, "dense")
    assert [tu.keystr(path) for path, _ in tu.tree_flatten_with_path(p)[0]] == [".w", ".b"]
    out = numlir.jit(lambda q: Params(q.w * 2, q.b + 1, q.name + "!"))(p)
    assert out.name == "dense!" and np.asarray(out.w).tolist() == [2.0, 2.0]
    assert tu.tree_structure(p) != tu.tree_structure(Params(1, 2, "other"))


def test_register_dataclass_with_explicit_fields_checks_them():
    @dataclasses.dataclass
    class Box:
        lo: float
        hi: float
        label: str

    with pytest.raises(ValueError, match="missing \\['label'\\]"):
        tu.register_dataclass(Box, data_fields=["lo", "hi"], meta_fields=[])
    with pytest.raises(TypeError, match="both"):
        tu.register_dataclass(Box, data_fields=["lo", "hi"])
    assert tu.register_dataclass(Box, data_fields=["hi", "lo"], meta_fields=["label"]) is Box
    assert tu.tree_leaves(Box(1.0, 2.0, "x")) == [2.0, 1.0]


def test_register_static_makes_instances_node_data():
    @tu.register_static
    @dataclasses.dataclass(frozen=True)
    class Config:
        depth: int

    tree = {"cfg": Config(3), "x": 1.0}
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == [1.0] and tu.tree_unflatten(treedef, [2.0]) == {"cfg": Config(3), "x": 2.0}
    assert tu.tree_structure({"cfg": Config(4), "x": 1.0}) != treedef
    assert numlir.jit(lambda t: t["x"] * t["cfg"].depth)(tree) == 3.0


def test_keypath_is_a_tuple_type():
    path, _ = tu.tree_flatten_with_path({"a": [1]})[0][0]
    assert isinstance(path, tu.KeyPath)
