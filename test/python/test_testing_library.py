"""numlir.testing accepts and rejects what chex does, and its variants run tests both ways."""

import os
import subprocess
import sys

import chex
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
import numlir.testing as nt

X = np.zeros((2, 3), np.float32)
Y = np.zeros((4,), np.int32)
S = np.float32(1.0)

SHAPE_CASES = [
    (X, (2, 3)), (X, (2, None)), (X, (2, {1, 3})), (X, (2, ...)), (X, (..., 3)), (X, (...,)),
    (X, (2, 3, ...)), (X, (3, 2)), (X, (2,)), (X, (2, {1, 4})), (X, (..., 4)),
    (S, ()), (S, (1,)), ([X, X], (2, 3)), ([X, Y], [(2, 3), (4,)]), ([X, Y], [(2, 3), (5,)]),
    ([X, Y], [(2, 3)]), (X, 5),
]


def _verdict(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
        return "ok"
    except AssertionError:
        return "AssertionError"
    except ValueError:
        return "ValueError"


@pytest.mark.parametrize("inputs,expected", SHAPE_CASES, ids=[str(i) for i in range(len(SHAPE_CASES))])
def test_assert_shape_agrees_with_chex(inputs, expected):
    assert _verdict(nt.assert_shape, inputs, expected) == _verdict(chex.assert_shape, inputs, expected)


RANK_CASES = [(X, 2), (X, {0, 2}), (X, 1), (S, 0), ([X, Y], [2, 1]), ([X, Y], 2), ([X, Y], {1, 2}),
              (X, np.array(2)), (X, "2"), ([X], [[2]])]


@pytest.mark.parametrize("inputs,expected", RANK_CASES, ids=[str(i) for i in range(len(RANK_CASES))])
def test_assert_rank_agrees_with_chex(inputs, expected):
    assert _verdict(nt.assert_rank, inputs, expected) == _verdict(chex.assert_rank, inputs, expected)


TYPE_CASES = [(7, int), (7.1, float), (False, bool), ([7, 8], int), ([7, 7.1], [int, float]),
              (X, float), (X, np.float32), (X, np.float64), (X, int), (Y, np.integer),
              (Y, np.int32), (Y, float), ([X, Y], [float, int]), ([X, Y], [float])]


@pytest.mark.parametrize("inputs,expected", TYPE_CASES, ids=[str(i) for i in range(len(TYPE_CASES))])
def test_assert_type_agrees_with_chex(inputs, expected):
    assert _verdict(nt.assert_type, inputs, expected) == _verdict(chex.assert_type, inputs, expected)


def test_assert_type_on_bfloat16_and_numlir_arrays():
    nt.assert_type(jnp.ones(2, jnp.bfloat16), jnp.bfloat16)
    nt.assert_type(jnp.ones(2, jnp.bfloat16), float)
    with pytest.raises(AssertionError, match="input 0 has type"):
        nt.assert_type(jnp.ones(2, jnp.int8), float)


EQUAL_SHAPE_CASES = [([X, X], None), ([X, np.zeros((2, 4))], None), ([X, np.zeros((2, 4))], 0),
                     ([X, np.zeros((2, 4))], (0, 1)), ([X, np.zeros((2,))], 3)]


@pytest.mark.parametrize("inputs,dims", EQUAL_SHAPE_CASES, ids=[str(i) for i in range(len(EQUAL_SHAPE_CASES))])
def test_assert_equal_shape_agrees_with_chex(inputs, dims):
    assert (_verdict(nt.assert_equal_shape, inputs, dims=dims)
            == _verdict(chex.assert_equal_shape, inputs, dims=dims))


def test_shape_assertions_work_on_traced_values():
    @numlir.jit
    def f(x):
        nt.assert_shape(x, (2, None))
        nt.assert_rank(x, 2)
        nt.assert_type(x, float)
        return x * 2

    f(X)
    with pytest.raises(AssertionError, match="input 0 has shape"):
        f(np.zeros((3, 3), np.float32))


TREES = {"a": np.arange(1.0, 4.0), "b": (np.ones(2), np.float32(2.0))}


def test_assert_trees_all_close_and_finite_agree_with_chex():
    close = {"a": np.arange(1.0, 4.0) + 1e-9, "b": (np.ones(2), np.float32(2.0))}
    far = {"a": np.arange(1.0, 4.0) + 1e-3, "b": (np.ones(2), np.float32(2.0))}
    for fn_n, fn_c in ((nt.assert_trees_all_close, chex.assert_trees_all_close),):
        assert _verdict(fn_n, TREES, close) == _verdict(fn_c, TREES, close) == "ok"
        assert _verdict(fn_n, TREES, far) == _verdict(fn_c, TREES, far) == "AssertionError"
        assert _verdict(fn_n, TREES, far, atol=1e-2) == _verdict(fn_c, TREES, far, atol=1e-2)
        assert _verdict(fn_n, TREES, {"a": 1.0}) == "AssertionError"
    bad = {"a": np.array([1.0, np.nan]), "b": np.ones(2)}
    assert _verdict(nt.assert_tree_all_finite, bad) == _verdict(chex.assert_tree_all_finite, bad)
    assert _verdict(nt.assert_tree_all_finite, TREES) == _verdict(chex.assert_tree_all_finite, TREES)
    with pytest.raises(AssertionError, match=r"\['a'\]"):
        nt.assert_trees_all_close(TREES, far)
    with pytest.raises(AssertionError, match="Nonfinite"):
        nt.assert_tree_all_finite(bad)
    nt.assert_trees_all_close(jnp.asarray(np.arange(3.0, dtype=np.float32)), jjnp.arange(3.0))


STRICT_CASES = [  # (tree a, tree b): scalars broadcast and dtypes promote unless strict
    (np.ones(3, np.float32), np.float32(1.0)), (np.ones(3, np.float32), np.ones(3, np.float64)),
    (np.ones(3), np.ones((1, 3))), ({"a": np.ones(2), "b": 2.0}, {"a": 1.0, "b": np.float64(2.0)}),
    (np.arange(3), np.arange(3)), (np.ones(3), np.zeros(3)),
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("a,b", STRICT_CASES, ids=[str(i) for i in range(len(STRICT_CASES))])
def test_strict_tree_comparisons_agree_with_chex(a, b, strict):
    for ours, theirs in ((nt.assert_trees_all_close, chex.assert_trees_all_close),
                         (nt.assert_trees_all_equal, chex.assert_trees_all_equal)):
        assert _verdict(ours, a, b, strict=strict) == _verdict(theirs, a, b, strict=strict)
    # numlir Arrays compare as their values (jax's would too)
    assert (_verdict(nt.assert_trees_all_close, jnp.asarray(np.ones(3, np.float32)), np.ones(3),
                     strict=strict)
            == _verdict(chex.assert_trees_all_close, jjnp.ones(3, np.float32), np.ones(3),
                        strict=strict))


def test_tree_comparisons_need_two_trees_and_take_chex_keywords():
    for ours, theirs in ((nt.assert_trees_all_close, chex.assert_trees_all_close),
                         (nt.assert_trees_all_equal, chex.assert_trees_all_equal)):
        assert _verdict(ours, TREES) == _verdict(theirs, TREES) == "ValueError"
    bad = {"a": np.array([1.0, np.inf])}
    assert (_verdict(nt.assert_tree_all_finite, tree_like=bad)
            == _verdict(chex.assert_tree_all_finite, tree_like=bad) == "AssertionError")


def test_assert_max_traces_counts_traces_under_jit():
    nt.clear_trace_counter()

    @numlir.jit
    @nt.assert_max_traces(n=1)
    def f(x):
        return x + 1

    f(np.ones(3, np.float32))
    f(np.zeros(3, np.float32))  # same signature: no new trace
    with pytest.raises(AssertionError, match="traced > 1 times"):
        f(np.ones(4, np.float32))
    nt.clear_trace_counter()
    f.clear_cache()
    f(np.ones(5, np.float32))  # counting starts again


def test_assert_max_traces_refuses_a_jitted_function():
    with pytest.raises(ValueError, match="must not wrap a jitted function"):
        nt.assert_max_traces(numlir.jit(lambda x: x), 1)


class VariantsTest(nt.TestCase):
    seen: list = []

    @nt.variants(with_jit=True, without_jit=True)
    def test_square(self):
        f = self.variant(lambda x: x * x)
        np.testing.assert_allclose(np.asarray(f(np.arange(3.0, dtype=np.float32))), [0, 1, 4])
        VariantsTest.seen.append(isinstance(f, type(numlir.jit(lambda x: x))))

    @nt.variants(with_device=True, without_device=True)
    def test_device(self):
        f = self.variant(lambda x: type(x))
        VariantsTest.seen.append(f(np.ones(2)).__name__)


def test_variants_expand_into_one_test_per_variant():
    names = sorted(n for n in dir(VariantsTest) if n.startswith("test_"))
    assert names == ["test_device_with_device", "test_device_without_device",
                     "test_square_with_jit", "test_square_without_jit"]
    VariantsTest.seen.clear()
    for name in names:
        result = VariantsTest(name).run()
        assert result.wasSuccessful(), (name, result.failures, result.errors)
    assert sorted(map(str, VariantsTest.seen)) == ["Array", "False", "True", "ndarray"]


class AllVariantsTest(nt.TestCase):
    ran: list = []

    @nt.all_variants
    def test_every(self):
        AllVariantsTest.ran.append(self.variant(lambda x: x + 1)(1))

    @nt.all_variants(with_pmap=False, with_device=False)
    def test_some(self):
        AllVariantsTest.ran.append(self.variant(lambda x: x * 2)(1))

    @nt.variants(with_jit=True)
    @nt.variants(with_pmap=True)  # stacked decorators add up, as in chex
    def test_stacked(self):
        AllVariantsTest.ran.append(self.variant(lambda x: x - 1)(1))

    def test_direct(self):
        AllVariantsTest.ran.append(self.variant(lambda x: x)(0))

    test_direct = nt.variants(test_direct, without_jit=True)  # called, not used as decorator


def test_all_variants_and_the_pmap_variant_is_skipped_as_chex_does_on_one_device():
    names = sorted(n for n in dir(AllVariantsTest) if n.startswith("test_"))
    variants = ["with_device", "with_jit", "with_pmap", "without_device", "without_jit"]
    assert names == sorted(["test_direct_without_jit"] + [f"test_every_{v}" for v in variants]
                           + ["test_some_with_jit", "test_some_without_device",
                              "test_some_without_jit", "test_stacked_with_jit",
                              "test_stacked_with_pmap"])
    if numlir.device_count() > 1:
        pytest.skip("runs on one device (the pmap variant runs on more: the test below)")
    AllVariantsTest.ran.clear()
    skipped = []
    for name in names:
        result = AllVariantsTest(name).run()
        assert result.wasSuccessful(), (name, result.failures, result.errors)
        skipped += [(test.id().split(".")[-1], why) for test, why in result.skipped]
    assert [name for name, _ in skipped] == ["test_every_with_pmap", "test_stacked_with_pmap"]
    assert all("Only 1 device is available" in why for _, why in skipped)
    # direct and stacked give 0, every (four variants run) and some (three) give 2
    assert sorted(map(int, AllVariantsTest.ran)) == [0, 0] + [2] * 7

    class ChexTest(chex.TestCase):  # chex, on this one-device machine, skips it too
        @chex.all_variants
        def test_every(self):
            self.variant(lambda x: x)(1)

    result = ChexTest("test_every__with_pmap").run()
    assert result.wasSuccessful() and len(result.skipped) == 1


_PMAP_VARIANT_SCRIPT = """
import numpy as np
import numlir, numlir.testing as nt
from numlir import lax

class PmapTest(nt.TestCase):
    @nt.variants(with_pmap=True)
    def test_collective(self):
        # each of the 2 devices gets a copy; psum over them; the first device's output
        out = self.variant(lambda x, y: {"s": x + lax.psum(1, "i"), "y": y * 2})(
            np.arange(3.0, dtype=np.float32), 5)
        np.testing.assert_array_equal(np.asarray(out["s"]), [2.0, 3.0, 4.0])
        assert int(out["y"]) == 10 and out["s"].shape == (3,)

    @nt.variants(with_pmap=True)
    def test_options(self):
        f = self.variant(lambda x: lax.axis_index("d") + x, axis_name="d",
                         broadcast_args_to_devices=False, reduce_fn=None)
        np.testing.assert_array_equal(np.asarray(f(np.array([10, 20], np.int32))), [10, 21])
        with self.assertRaisesRegex(ValueError, "broadcast_args_to_devices"):
            self.variant(lambda x: x, in_axes=1)
        with self.assertRaisesRegex(ValueError, "less than required"):
            self.variant(lambda x: x, n_devices=3)(np.ones(2))

for name in ("test_collective_with_pmap", "test_options_with_pmap"):
    result = PmapTest(name).run()
    assert result.wasSuccessful() and not result.skipped, (name, result.failures,
                                                           result.errors, result.skipped)
print("ran")
"""


def test_the_pmap_variant_runs_as_chexs_on_several_devices():
    env = dict(os.environ, NUMLIR_NUM_CPU_DEVICES="2", JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", _PMAP_VARIANT_SCRIPT], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ran", done.stdout + done.stderr


def test_variant_outside_variants_and_no_variant_selected_are_errors():
    with pytest.raises(ValueError, match="No variants selected"):
        nt.variants(lambda self: None)
    with pytest.raises(RuntimeError, match="self.variant is not defined"):
        nt.TestCase().variant(lambda x: x)
