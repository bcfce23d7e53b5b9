"""Remembered cpu calls of jitted functions and eager ops (host_calls.py, CallCache.cpp):
what they return is what the general path returns, and every call they cannot decide goes
the general way.

``uses_general_path(f)`` counts the calls that reached ``JitFunction._call``; a remembered
call never does. Placement on several devices is compared with JAX in device_scenarios.py.
"""

import contextlib
import threading

import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir._src import config, core, dispatch
from numlir._src.array import Array


@contextlib.contextmanager
def uses_general_path(f):
    """Counts the calls of ``f`` that go the general way, in the yielded list's length."""
    calls = []
    general = f._call

    def counted(args, kwargs):
        calls.append(args)
        return general(args, kwargs)

    f._call = counted
    try:
        yield calls
    finally:
        del f._call


def general(f, *args):
    """What ``f(*args)`` gives the general way: its remembered calls are forgotten first."""
    f._host_calls.clear()
    return f(*args)


def slots(x: Array) -> tuple:
    value = x._value
    return (type(x), type(value), value.dtype, value.shape, value.flags.writeable,
            value.flags.c_contiguous, x.aval, x._device, x._committed, x._layout)


def same_outputs(got, want):
    got_leaves, got_tree = numlir.tree_util.tree_flatten(got)
    want_leaves, want_tree = numlir.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for a, b in zip(got_leaves, want_leaves):
        assert slots(a) == slots(b)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def vec(*values, dtype=np.float32):
    return jnp.asarray(np.array(values, dtype=dtype))


X, Y = vec(1, 2, 3, 4), vec(0.5, -1, 2, 8)


def test_a_repeated_call_is_remembered_and_gives_what_the_general_path_gives():
    f = numlir.jit(lambda a, b: a * b + 1.0)
    want = general(f, X, Y)
    with uses_general_path(f) as calls:
        got = [f(X, Y) for _ in range(3)]
    assert calls == [] and len(f._host_calls) == 1
    for out in got:
        same_outputs(out, want)
    assert got[0]._value is not got[1]._value  # fresh buffers every call


@pytest.mark.parametrize("fun", [
    lambda a: a.sum(),
    lambda a: (a * 2, a + 1),
    lambda a: [a, a * 2],
    lambda a: {"x": a, "y": (a.max(), [a - 1])},
    lambda a: (a,),
])
def test_every_output_structure_is_rebuilt(fun):
    f = numlir.jit(fun)
    want = general(f, X)
    with uses_general_path(f) as calls:
        got = f(X)
    assert calls == []
    same_outputs(got, want)


def test_arguments_that_are_not_arrays_go_the_general_way():
    f = numlir.jit(lambda a, b: a + b)
    f(X, Y)
    with uses_general_path(f) as calls:
        assert f(X, 2.0).dtype == np.float32  # a Python scalar
        np.testing.assert_array_equal(np.asarray(f(X, np.ones(4, np.float32))), [2, 3, 4, 5])
        np.testing.assert_array_equal(np.asarray(f(X, b=Y)), np.asarray(X) + np.asarray(Y))
        g = numlir.jit(lambda t: t[0] + t[1])
        g((X, Y))
        g((X, Y))  # a pytree argument
    assert len(calls) == 3


def test_a_call_under_a_trace_is_traced_even_on_concrete_arrays():
    inner = numlir.jit(lambda a: a * 3.0)
    inner(X)
    seen = []

    def outer(b):
        out = inner(X)  # a concrete array, under jit's trace
        seen.append(isinstance(out, core.Tracer))
        return out + b

    with uses_general_path(inner) as calls:
        np.testing.assert_array_equal(np.asarray(numlir.jit(outer)(Y)),
                                      np.asarray(X) * 3 + np.asarray(Y))
        np.testing.assert_allclose(np.asarray(numlir.grad(lambda a: inner(a).sum())(X)), 3.0)
        np.testing.assert_array_equal(np.asarray(numlir.vmap(inner)(X)), np.asarray(X) * 3)
    assert seen == [True] and len(calls) == 3


def test_weak_and_strong_arguments_are_different_calls():
    f = numlir.jit(lambda a: a + np.float16(1))
    strong = vec(1, 2)
    weak = Array(np.array([1, 2], np.float32), core.ShapedArray((2,), np.float32, True))
    for _ in range(2):
        assert f(strong).dtype == np.float32
        assert f(weak).dtype == np.float16
    assert len(f._host_calls) == 2 and f.cache_misses == 2


def test_committed_and_uncommitted_arguments_are_different_calls():
    f = numlir.jit(lambda a: a * 2.0)
    committed = numlir.device_put(np.ones(4, np.float32), numlir.devices()[0])
    for _ in range(2):
        assert not f(X).committed
        assert f(committed).committed
    assert len(f._host_calls) == 2
    g = numlir.jit(lambda a, b: a + b)
    for _ in range(2):
        assert g(X, committed).committed and not g(X, X).committed


def test_a_deleted_argument_raises_what_the_general_path_raises():
    f = numlir.jit(lambda a: a + 1.0)
    x = vec(1, 2, 3)
    f(x)
    f(x)
    x.delete()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=f32\[3\]"):
        f(x)
    y = vec(1, 2, 3)
    f(y)
    numlir.jit(lambda a: a * 2.0, donate_argnums=0)(y)
    assert y.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        f(y)


def test_a_donating_jit_is_not_remembered_and_deletes_each_donor():
    f = numlir.jit(lambda a: a * 2.0, donate_argnums=0)
    assert f._host_calls is None
    for _ in range(2):
        x = vec(1, 2, 3)
        np.testing.assert_array_equal(np.asarray(f(x)), [2, 4, 6])
        assert x.is_deleted()


def test_a_new_shape_compiles_and_both_shapes_stay_remembered():
    f = numlir.jit(lambda a: a - 1.0)
    small, large = vec(1, 2), vec(1, 2, 3, 4, 5)
    f(small)
    f(large)
    with uses_general_path(f) as calls:
        assert f(small).shape == (2,) and f(large).shape == (5,)
    assert calls == [] and f.cache_misses == 2


def test_x64_toggled_between_calls_changes_the_result_as_without_remembering():
    f = numlir.jit(lambda a: (a * 2, jnp.arange(3)))
    assert f(X)[1].dtype == np.int32
    with numlir.enable_x64():
        assert f(X)[1].dtype == np.int64
        assert f(X)[1].dtype == np.int64
    assert f(X)[1].dtype == np.int32


def test_any_flag_assignment_forgets_the_remembered_calls(monkeypatch):
    f = numlir.jit(lambda a: a * 2.0)
    f(X)
    with uses_general_path(f) as calls:
        numlir.config.update("jax_log_compiles", config.flags.log_compiles)
        f(X)
        monkeypatch.setattr(config.flags, "explain_cache_misses", False)
        f(X)
        f(X)
    assert len(calls) == 2


def test_debug_nans_raises_on_a_remembered_call():
    f = numlir.jit(lambda a: jnp.log(a))
    f(X)
    f(X)
    with numlir.debug_nans(True):
        with pytest.raises(FloatingPointError, match="nan"):
            f(-X)
        with pytest.raises(FloatingPointError, match="nan"):
            f(-X)


def test_disable_jit_runs_the_python_function_each_call():
    runs = []

    def fun(a):
        runs.append(type(a))
        return a + 1.0

    f = numlir.jit(fun)
    f(X)
    f(X)
    assert len(runs) == 1  # traced once
    with numlir.disable_jit():
        f(X)
        f(X)
    assert len(runs) == 3


def test_a_default_device_context_goes_the_general_way():
    f = numlir.jit(lambda a: a * 2.0)
    f(X)
    with uses_general_path(f) as calls:
        with numlir.default_device(numlir.devices()[-1]):
            assert f(X).device == numlir.devices()[-1]
        with numlir.default_device(None):
            f(X)  # None: the flag decides, as outside
    assert len(calls) == 1


def test_clear_caches_forgets_the_remembered_calls():
    f = numlir.jit(lambda a: a * 2.0)
    f(X)
    assert len(f._host_calls) == 1
    numlir.clear_caches()
    assert len(f._host_calls) == 0
    f(X)
    f.clear_cache()
    assert len(f._host_calls) == 0


def test_programs_with_host_callbacks_or_no_outputs_are_not_remembered(capsys):
    def show(a):
        numlir.debug.print("a = {}", a)
        return a * 2

    f, g = numlir.jit(show), numlir.jit(lambda a: ())
    for _ in range(2):
        f(X)
        assert g(X) == ()
    assert len(f._host_calls) == 0 and len(g._host_calls) == 0
    assert capsys.readouterr().out.count("a = ") == 2


def test_large_outputs_come_from_the_pooled_allocator():
    f = numlir.jit(lambda a: a * 2.0)
    x = jnp.asarray(np.arange(1 << 15, dtype=np.float32))  # 128 KiB
    want = general(f, x)
    with uses_general_path(f) as calls:
        same_outputs(f(x), want)
    assert calls == []


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float64, np.complex64, "bfloat16"])
def test_every_dtype_is_remembered(dtype):
    f = numlir.jit(lambda a: (a, a.reshape(2, 2)))
    x = jnp.asarray(np.array([1, 0, 1, 1]).astype(dtype))
    want = general(f, x)
    with uses_general_path(f) as calls:
        same_outputs(f(x), want)
    assert calls == []


def test_calls_from_another_thread_use_that_threads_state():
    f = numlir.jit(lambda a: a * 2.0)
    f(X)
    results = {}

    def run():
        results["plain"] = f(X)
        with numlir.default_device(numlir.devices()[-1]):
            results["context"] = f(X)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    np.testing.assert_array_equal(np.asarray(results["plain"]), np.asarray(X) * 2)
    assert results["context"].device == numlir.devices()[-1]



@contextlib.contextmanager
def eager_general_runs(monkeypatch):
    """Counts the eager ops that went the general way (dispatch.execute)."""
    runs = []
    execute = dispatch.execute

    def counted(*args, **kwargs):
        runs.append(args[0])
        return execute(*args, **kwargs)

    monkeypatch.setattr(dispatch, "execute", counted)
    yield runs


def test_a_repeated_eager_op_is_remembered(monkeypatch):
    a, b = vec(1, 2, 3), vec(4, 5, 6)
    dispatch.eager_calls.clear()
    want = numlir.lax.add(a, b)
    committed = numlir.device_put(np.ones(3, np.float32), numlir.devices()[0])
    want_committed = numlir.lax.add(committed, b)
    with eager_general_runs(monkeypatch) as runs:
        got = numlir.lax.add(a, b)
        got_committed = numlir.lax.add(committed, b)
    assert runs == []
    same_outputs(got, want)
    same_outputs(got_committed, want_committed)
    assert got_committed.committed and not got.committed


def test_an_eager_op_with_several_results_returns_them_as_the_general_path_does(monkeypatch):
    keys, values = vec(3, 1, 2), vec(30, 10, 20)
    want = numlir.lax.sort((keys, values), num_keys=1)
    with eager_general_runs(monkeypatch) as runs:
        got = numlir.lax.sort((keys, values), num_keys=1)
    assert runs == []
    same_outputs(got, want)


def test_eager_ops_check_nans_under_debug_nans():
    x = vec(-1, 2)
    jnp.log(x)
    jnp.log(x)
    with numlir.debug_nans(True):
        with pytest.raises(FloatingPointError, match="nan"):
            jnp.log(x)


def test_eager_plans_are_bounded_by_the_executable_cache_size(monkeypatch):
    monkeypatch.setattr(config.flags, "executable_cache_size", 3)
    dispatch.eager_calls.clear()
    for n in range(1, 9):
        np.testing.assert_allclose(np.asarray(jnp.sin(vec(*range(n)))), np.sin(np.arange(n)),
                                   rtol=1e-6)
        assert dispatch.eager_calls._remembered <= 3
        assert len(dispatch.eager_calls._caches) <= 3
