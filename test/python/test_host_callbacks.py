"""Host callbacks (numlir.debug.print, numlir.debug.callback, numlir.pure_callback) against
jax's behaviour: eagerly, under jit, vmap, grad, in control flow, with errors."""

import threading

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax

jax.config.update("jax_platforms", "cpu")


def printed_by_jax(fun, *args, capsys):
    fun(*args)
    jax.effects_barrier()
    return capsys.readouterr().out


def printed(fun, *args, capsys):
    fun(*args)
    return capsys.readouterr().out


# --- debug.print and debug.callback ---------------------------------------------------------


def _print_values(dbg):
    def f(x, y):
        dbg.print("x = {} and y = {y}", x, y=y)
        dbg.print("no placeholders")
        dbg.print("{x[1]:>3}|", x=np.array([3, 4]))
        return x * 2
    return f


def test_print_eagerly_and_under_jit_formats_like_jax(capsys):
    x, y = np.arange(3, dtype=np.float32), np.int32(7)
    expected = printed_by_jax(_print_values(jax.debug), x, y, capsys=capsys)
    assert expected.startswith("x = [0. 1. 2.] and y = 7\n")
    assert printed(_print_values(numlir.debug), x, y, capsys=capsys) == expected
    assert printed(numlir.jit(_print_values(numlir.debug)), x, y, capsys=capsys) == expected
    # jax's jit may reorder unordered prints; numlir keeps program order
    jitted = printed_by_jax(jax.jit(_print_values(jax.debug)), x, y, capsys=capsys)
    assert sorted(jitted.splitlines()) == sorted(expected.splitlines())


@pytest.mark.parametrize("call,match", [
    (lambda dbg, x: dbg.print("{}", x, x), "Unused positional arguments"),
    (lambda dbg, x: dbg.print("{}", x, y=x), "Unused keyword arguments"),
    (lambda dbg, x: dbg.print("{y}", x), "y"),
])
def test_print_checks_its_format_at_trace_time_as_jax(call, match):
    x = np.float32(1)
    with pytest.raises(Exception, match=match) as expected:
        jax.jit(lambda x: call(jax.debug, x))(x)
    with pytest.raises(type(expected.value), match=match):
        numlir.jit(lambda x: call(numlir.debug, x))(x)


def test_callback_gets_numpy_arrays_and_static_arguments():
    seen = []

    @numlir.jit
    def f(x):
        numlir.debug.callback(lambda a, tag, k: seen.append((type(a), a.copy(), tag, k)),
                              x, "tag", k=x[0])
        return x + 1

    out = f(np.arange(3, dtype=np.int32))
    np.testing.assert_array_equal(out, [1, 2, 3])
    (kind, value, tag, k), = seen
    assert kind is np.ndarray and tag == "tag" and int(k) == 0
    np.testing.assert_array_equal(value, [0, 1, 2])


def test_a_print_whose_value_is_unused_is_not_removed(capsys):
    @numlir.jit
    def f(x):
        numlir.debug.print("side effect {}", x * 3)
        return jnp.zeros(())

    f(np.float32(2))
    f(np.float32(5))
    assert capsys.readouterr().out == "side effect 6.0\nside effect 15.0\n"
    assert "hlo.host_callback" in f.lower(np.float32(2)).as_text()


def test_print_under_vmap_once_per_element_in_order(capsys):
    def f(dbg):
        def g(x, y):
            dbg.print("{} {}", x, y)
            return x + y
        return g

    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    expected = printed_by_jax(jax.vmap(f(jax.debug), in_axes=(0, None)), x, np.float32(1),
                              capsys=capsys)
    assert expected.count("\n") == 3
    got = printed(numlir.vmap(f(numlir.debug), in_axes=(0, None)), x, np.float32(1),
                  capsys=capsys)
    assert got == expected
    got = printed(numlir.jit(numlir.vmap(f(numlir.debug), in_axes=(0, None))), x,
                  np.float32(1), capsys=capsys)
    assert got == expected


@pytest.mark.parametrize("transform", ["grad", "jit_grad", "jvp", "value_and_grad"])
def test_print_under_differentiation_shows_forward_values_once(transform, capsys):
    def f(dbg):
        def g(x):
            y = x * 3
            dbg.print("y = {}", y)
            return jnp_ref.sin(y) if dbg is jax.debug else jnp.sin(y)
        return g

    def run(mod, dbg):
        g = f(dbg)
        if transform == "grad":
            return mod.grad(g)(np.float32(0.5))
        if transform == "jit_grad":
            return mod.jit(mod.grad(g))(np.float32(0.5))
        if transform == "jvp":
            return mod.jvp(g, (np.float32(0.5),), (np.float32(1.0),))
        return mod.value_and_grad(g)(np.float32(0.5))

    expected = printed_by_jax(lambda: run(jax, jax.debug), capsys=capsys)
    assert expected == "y = 1.5\n"
    assert printed(lambda: run(numlir, numlir.debug), capsys=capsys) == expected
    np.testing.assert_allclose(np.asarray(jax.tree_util.tree_leaves(run(numlir, numlir.debug))[0]),
                               np.asarray(jax.tree_util.tree_leaves(run(jax, jax.debug))[0]),
                               rtol=1e-6)
    capsys.readouterr()


def test_ordered_prints_keep_program_order(capsys):
    @numlir.jit
    def f(x):
        for i in range(5):
            numlir.debug.print("step {} {}", i, x + i, ordered=True)
        return x

    f(np.float32(1))
    assert capsys.readouterr().out == "".join(f"step {i} {1.0 + i}\n" for i in range(5))


def _loops(mod, dbg, lx):
    def f(x):
        lx.cond(x > 0, lambda: dbg.print("positive {}", x), lambda: dbg.print("not {}", x))

        def body(c):
            dbg.print("while {}", c)
            return c + 1
        lx.while_loop(lambda c: c < 3, body, np.int32(0))

        def step(c, v):
            dbg.print("scan {} {}", c, v)
            return c + v, c
        return lx.scan(step, x, np.arange(3, dtype=np.float32))
    return f


@pytest.mark.parametrize("jitted", [False, True])
def test_prints_inside_cond_while_loop_and_scan(jitted, capsys):
    expected = printed_by_jax(jax.jit(_loops(jax, jax.debug, jax.lax)), np.float32(2),
                              capsys=capsys)
    assert expected.count("while") == 3 and expected.count("scan") == 3
    f = _loops(numlir, numlir.debug, lax)
    got = printed(numlir.jit(f) if jitted else f, np.float32(2), capsys=capsys)
    assert got == expected


def test_an_exception_in_a_callback_is_raised_by_the_jitted_call():
    class Boom(Exception):
        pass

    def explode(x):
        if x > 1:
            raise Boom(f"too big: {x}")

    @numlir.jit
    def f(x):
        numlir.debug.callback(explode, x)
        return x * 2

    assert float(f(np.float32(1))) == 2
    with pytest.raises(Boom, match="too big: 5.0"):
        f(np.float32(5))
    assert float(f(np.float32(0.5))) == 1  # the executable stays usable
    with pytest.raises(Boom):
        numlir.debug.callback(explode, np.float32(3))  # eagerly too


def test_an_exception_inside_a_loop_stops_the_loop():
    calls = []

    def count(i):
        calls.append(int(i))
        if i == 2:
            raise ValueError("stop at 2")

    def body(i):
        numlir.debug.callback(count, i)
        return i + 1

    f = numlir.jit(lambda n: lax.while_loop(lambda i: i < n, body, np.int32(0)))
    with pytest.raises(ValueError, match="stop at 2"):
        f(np.int32(100))
    assert calls == [0, 1, 2]


def test_callbacks_may_run_numlir_code_and_other_threads():
    seen = []

    @numlir.jit
    def f(x):
        numlir.debug.callback(lambda v: seen.append(float(jnp.sum(jnp.asarray(v) * 2))), x)
        return x + 1

    f(np.ones(3, np.float32))
    results = []
    threads = [threading.Thread(target=lambda: results.append(f(np.ones(3, np.float32))))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [6.0] * 4 and len(results) == 3


# --- pure_callback -----------------------------------------------------------------------------


def test_pure_callback_values_pytrees_and_dtypes():
    def host(x, scale, *, offset):
        return {"s": np.sin(x) * scale, "n": np.array(x.size, np.int64).astype(np.int32),
                "b": x > 0.5}

    def f(mod, x):
        shapes = {"s": jax.ShapeDtypeStruct(x.shape, np.float32),
                  "n": jax.ShapeDtypeStruct((), np.int32),
                  "b": jax.ShapeDtypeStruct(x.shape, np.bool_)}
        return mod.pure_callback(host, shapes, x, np.float32(2), offset=1)

    x = np.linspace(0, 1, 5, dtype=np.float32)
    expected = f(jax, x)
    for got in (f(numlir, x), numlir.jit(lambda x: f(numlir, x))(x)):
        for k in ("s", "n", "b"):
            np.testing.assert_array_equal(np.asarray(got[k]), np.asarray(expected[k]))
            assert np.asarray(got[k]).dtype == np.asarray(expected[k]).dtype


@pytest.mark.parametrize("jitted", [False, True])
@pytest.mark.parametrize("result,match", [
    (np.zeros(3, np.float32), (r"Incorrect output shape for return value #0: Expected: \(2,\), "
                              r"Actual: \(3,\)")),
    (np.zeros(2, np.float64), ("Incorrect output dtype for return value #0: Expected: float32, "
                              "Actual: float64")),
])
def test_pure_callback_results_of_the_wrong_shape_or_dtype_raise(jitted, result, match):
    def f(x):
        return numlir.pure_callback(lambda x: result, numlir.ShapeDtypeStruct((2,), np.float32), x)

    with pytest.raises(RuntimeError, match=match):
        (numlir.jit(f) if jitted else f)(np.zeros(2, np.float32))


def test_pure_callback_with_the_wrong_number_of_results_raises():
    f = numlir.jit(lambda x: numlir.pure_callback(lambda x: (x, x), x, x))
    with pytest.raises(RuntimeError, match="Mismatched number of outputs from callback"):
        f(np.zeros(2, np.float32))


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all"])
def test_pure_callback_vmap_methods_as_jax(method):
    def run(mod, x, y):
        shapes = []

        def host(a, b):
            shapes.append((a.shape, b.shape))
            return a * 2 + b

        def f(a, b):
            return mod.pure_callback(host, jax.ShapeDtypeStruct(a.shape, a.dtype), a, b,
                                     vmap_method=method)

        out = mod.jit(mod.vmap(f, in_axes=(0, None)))(x, y)
        return np.asarray(out), shapes

    x, y = np.arange(6, dtype=np.float32).reshape(3, 2), np.ones(2, np.float32)
    expected, expected_shapes = run(jax, x, y)
    got, shapes = run(numlir, x, y)
    np.testing.assert_array_equal(got, expected)
    assert shapes == expected_shapes


def test_pure_callback_under_vmap_without_a_method_raises_as_jax():
    f = numlir.vmap(lambda x: numlir.pure_callback(np.sin, x, x))
    with pytest.raises(NotImplementedError, match="vmap_method"):
        f(np.ones((2, 3), np.float32))


def test_pure_callback_is_not_differentiable_but_custom_jvp_makes_it_so():
    f = lambda x: numlir.pure_callback(np.sin, x, x)
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        numlir.grad(f)(np.float32(1))

    @numlir.custom_jvp
    def sin(x):
        return numlir.pure_callback(np.sin, x, x)

    @sin.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return sin(x), numlir.pure_callback(np.cos, x, x) * t

    np.testing.assert_allclose(numlir.grad(sin)(np.float32(1)), np.cos(1), rtol=1e-6)
    np.testing.assert_allclose(numlir.jit(numlir.grad(sin))(np.float32(1)), np.cos(1), rtol=1e-6)


def test_an_unused_pure_callback_is_removed_like_jax():
    calls = []

    def host(x):
        calls.append(1)
        return x

    @numlir.jit
    def f(x):
        numlir.pure_callback(host, x, x)
        return x + 1

    f(np.float32(1))
    assert calls == []
    assert "hlo.host_callback" not in f.lower(np.float32(1)).as_text()


# --- caches ------------------------------------------------------------------------------------


def test_callback_modules_stay_out_of_the_persistent_cache_and_saved_executables(tmp_path,
                                                                                    capsys):
    from numlir._src import compilation_cache, config

    saved = {name: config.read(name) for name in (
        "enable_compilation_cache", "compilation_cache_dir",
        "persistent_cache_min_compile_time_secs", "persistent_cache_min_entry_size_bytes")}
    config.update("enable_compilation_cache", True)
    config.update("compilation_cache_dir", str(tmp_path / "cache"))
    config.update("persistent_cache_min_compile_time_secs", 0)
    config.update("persistent_cache_min_entry_size_bytes", 0)
    numlir.clear_caches()
    try:
        def f(x):
            numlir.debug.print("cached? {}", x)
            return x * 3

        numlir.jit(f)(np.float32(1))
        assert capsys.readouterr().out == "cached? 1.0\n"
        cache = tmp_path / "cache"
        assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))
        numlir.jit(lambda x: x * 3)(np.float32(1))  # a module without callbacks is stored
        assert any(p.is_file() for p in cache.rglob("*"))
        assert compilation_cache.enabled()
    finally:
        for name, value in saved.items():
            config.update(name, value)
        numlir.clear_caches()

    compiled = numlir.jit(f).lower(np.float32(1)).compile()
    assert float(compiled(np.float32(2))) == 6
    assert capsys.readouterr().out == "cached? 2.0\n"
    with pytest.raises(ValueError, match="calls host callbacks"):
        compiled.save(tmp_path / "f.nlexe")
