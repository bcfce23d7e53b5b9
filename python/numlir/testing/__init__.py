"""numlir.testing: assertions and test variants for numlir code, like Chex.

``import numlir.testing as chex`` runs Chex-style tests: shape, rank and dtype checks
that also work on traced values, tree comparisons, ``assert_max_traces`` to catch
retracing, and ``variants`` to run one test with and without jit.
"""

from numlir.testing._shapes import assert_equal_shape, assert_rank, assert_shape, assert_type
from numlir.testing._traces import assert_max_traces, clear_trace_counter
from numlir.testing._values import (assert_tree_all_finite, assert_trees_all_close,
                                    assert_trees_all_equal)
from numlir.testing._variants import TestCase, all_variants, variants

__all__ = [name for name in dir() if not name.startswith("_")]
