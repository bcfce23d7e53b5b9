"""Array methods that forward to numlir.numpy (as jax.Array's do) work on Arrays and on
tracers alike, with jax's results: x.swapaxes, x.argmax, x.std, x.cumsum, ..."""

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp

X = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32)

CASES = [
    ("argmax", (1,), {}), ("argmin", (), {"axis": 2}), ("std", (), {"axis": 1, "ddof": 1}),
    ("var", (0,), {}), ("ptp", (), {"axis": 1}), ("argsort", (), {"axis": -1}), ("sort", (0,), {}),
    ("clip", (-0.5, 0.5), {}), ("round", (1,), {}), ("cumsum", (1,), {}),
    ("cumprod", (), {"axis": 2}), ("diagonal", (), {"axis1": 1, "axis2": 2}), ("trace", (), {}),
    ("repeat", (2,), {"axis": 1}), ("take", (np.array([0, 2]),), {"axis": 1}),
    ("swapaxes", (0, 2), {}),
    ("view", (np.uint8,), {}), ("view", (np.int16,), {}), ("view", (np.int32,), {}),
    ("view", (bool,), {}), ("byteswap", (), {}),
    ("nonzero", (), {"size": 70}), ("compress", (np.array([True, False, True]),), {"axis": 0, "size": 2}),
]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name,args,kwargs", CASES,
                         ids=[f"{c[0]}-{c[1][0].__name__}" if c[0] == "view" else c[0] for c in CASES])
def test_forwarded_methods_match_jax(name, args, kwargs, jit):
    def f(v):
        return getattr(v, name)(*args, **kwargs)

    got = np.asarray((numlir.jit(f) if jit else f)(jnp.asarray(X)))
    want = np.asarray(jax.jit(f)(jjnp.asarray(X)))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_mT_and_itemsize():
    assert jnp.ones((2, 3, 4)).mT.shape == (2, 4, 3)
    assert numlir.jit(lambda v: v.mT)(np.ones((2, 3), np.float32)).shape == (3, 2)
    assert jnp.ones(2, jnp.bfloat16).itemsize == 2


def test_methods_under_grad():
    g = numlir.grad(lambda v: v.swapaxes(0, 1).cumsum(0).std())(X)
    want = jax.grad(lambda v: v.swapaxes(0, 1).cumsum(0).std())(X)
    np.testing.assert_allclose(np.asarray(g), np.asarray(want), rtol=1e-4, atol=1e-6)


def test_real_imag_and_conj_of_real_arrays_match_jax():
    import jax.numpy as jjnp

    x = np.arange(-2.0, 3.0, dtype=np.float32)
    for name in ("real", "imag"):
        got = getattr(numlir.numpy.asarray(x), name)
        want = getattr(jjnp.asarray(x), name)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(np.asarray(numlir.jit(lambda a: a.conj() + a.conjugate())(x)), 2 * x)


# --- bit views: Array.view and Array.byteswap, over lax.bitcast_convert_type of any width --

BITS = {
    "float32": (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.25),
    "int16": (np.arange(24, dtype=np.int16).reshape(2, 3, 4) * 1337 - 9000),
    "uint8": np.arange(24, dtype=np.uint8).reshape(2, 3, 4) * 11,
    "bool": (np.arange(24).reshape(2, 3, 4) % 3 == 0),
}
VIEWS = [(src, dst) for src in BITS for dst in ("float32", "int32", "uint16", "int16", "float16",
                                                "bfloat16", "uint8", "bool")]


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("src,dst", VIEWS, ids=[f"{a}-{b}" for a, b in VIEWS])
def test_view_reads_the_bits_as_jax(src, dst, jit):
    x = BITS[src]
    dtype = jjnp.dtype(dst)
    want = jjnp.asarray(x).view(dtype)
    fn = (numlir.jit(lambda v: v.view(dtype)) if jit else (lambda v: v.view(dtype)))
    got = fn(jnp.asarray(x))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8))


def test_view_of_a_scalar_and_the_errors_jax_gives():
    assert int(jnp.asarray(np.float32(3.0)).view(np.int32)) == 0x40400000
    with pytest.raises(ValueError, match="0d array"):
        jnp.asarray(np.float32(3.0)).view(np.uint8)
    with pytest.raises(ValueError, match="divisor"):
        jnp.arange(3, dtype=jnp.uint8).view(jnp.int16)
    with pytest.raises(NotImplementedError, match="type"):
        jnp.arange(3.0).view(jnp.int32, type=np.ndarray)


@pytest.mark.parametrize("src", ["float32", "int16", "uint8", "bool"])
def test_byteswap_matches_numpy_and_round_trips(src):
    x = BITS[src]
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x).byteswap()), x.byteswap())
    np.testing.assert_array_equal(np.asarray(numlir.jit(lambda v: v.byteswap().byteswap())(x)), x)


@pytest.mark.parametrize("src,dst", [("float32", "uint8"), ("int16", "uint8"),
                                     ("float32", "float16"), ("uint8", "int32")])
def test_bitcast_convert_type_of_another_width_batches_as_jax(src, dst):
    from numlir import lax

    x = BITS[src]
    if dst == "int32":  # uint8 -> int32 joins a last axis of 4
        x = x.reshape(2, 3, 4)
    want = jax.vmap(lambda v: jax.lax.bitcast_convert_type(v, dst))(x)
    got = numlir.vmap(lambda v: lax.bitcast_convert_type(v, dst))(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    with pytest.raises(Exception, match="last dimension of 4"):
        lax.bitcast_convert_type(np.zeros((2, 3), np.uint8), np.int32)


def test_device_methods_and_flat():
    x = jnp.arange(3.0)
    assert x.device == numlir.devices()[0]
    np.testing.assert_array_equal(np.asarray(x.to_device(x.device)), [0.0, 1.0, 2.0])
    assert x.copy_to_host_async() is None  # the data is in host memory already
    with pytest.raises(NotImplementedError, match="flatten"):
        x.flat
    np.testing.assert_array_equal(
        np.asarray(jnp.asarray([0, 1, 0]).choose([np.arange(3), np.arange(3) * 10])), [0, 10, 2])


def test_iterating_a_1d_array_gives_0d_arrays_like_jax():
    # for v in x over a 1-d Array raised (its rows are NumPy scalars, which cannot be made
    # read-only), so zip(graphs, offsets) and list(x) failed where JAX gives 0-d arrays.
    for x in (np.arange(3, dtype=np.int32), np.array([1.5, -2.0], np.float32)):
        got, want = list(jnp.asarray(x)), list(jjnp.asarray(x))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert isinstance(g, numlir.Array) and (g.shape, g.dtype) == (w.shape, w.dtype)
            assert float(g) == float(w)
    assert [g.weak_type for g in jnp.asarray(2.0)[None]] == [True]


def test_builtin_divmod_on_arrays_matches_jax():
    # divmod(a, b) on arrays raised TypeError: Array had no __divmod__/__rdivmod__.
    a = np.array([[7, -7, 5, 0], [-1, 9, -9, 3]], np.int32)
    b = np.array([2, 3, -2, -4], np.int32)
    f = np.array([7.5, -2.0, 0.0, -0.0], np.float32)
    cases = [
        lambda m: divmod(m.asarray(a), m.asarray(b)), lambda m: divmod(m.asarray(a), 3),
        lambda m: divmod(3, m.asarray(b)), lambda m: divmod(m.asarray(a), np.int32(-2)),
        lambda m: divmod(b, m.asarray(a[1])), lambda m: divmod(m.asarray(f), 2.0),
        lambda m: divmod(-1.5, m.asarray(f[:2])), lambda m: divmod(m.asarray(a), m.asarray(f)),
    ]
    for case in cases:
        got, want = case(jnp), case(jjnp)
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, want):
            assert isinstance(g, numlir.Array)
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    got = numlir.jit(lambda x, y: divmod(x, y))(a, b)
    for g, w in zip(got, divmod(jjnp.asarray(a), jjnp.asarray(b))):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    for lib in (jnp, jjnp):
        with pytest.raises(TypeError, match="divmod"):
            divmod(lib.asarray(a), "3")


def test_array_clone_is_ready_tobytes_match_jax():
    # jax.Array's clone, is_ready and tobytes(order) were missing on numlir.Array.
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ours, theirs = jnp.asarray(x), jjnp.asarray(x)
    for order in ("C", "F", "A", "K"):
        assert ours.tobytes(order) == theirs.tobytes(order) == x.tobytes(order)
        assert ours[:, 1].tobytes(order=order) == theirs[:, 1].tobytes(order=order)
    assert ours.tobytes() == theirs.tobytes()
    assert jnp.asarray(2.5).tobytes() == jjnp.asarray(2.5).tobytes()
    for lib in (jnp, jjnp):
        with pytest.raises(ValueError, match="order must be one of"):
            lib.asarray(x).tobytes("X")
    assert ours.is_ready() is True and theirs.is_ready() is True
    clone = ours.clone()
    assert clone is not ours and isinstance(clone, numlir.Array)
    for g, w in ((clone, theirs.clone()), (jnp.asarray(1.0).clone(), jjnp.asarray(1.0).clone())):
        assert (g.shape, g.dtype, g.weak_type) == (w.shape, w.dtype, w.weak_type)
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    # No copy, as in JAX (which aliases the buffer): the clone reads the same memory.
    assert np.shares_memory(np.asarray(clone), np.asarray(ours))
    # Traced values have no bytes, and no clone or is_ready, in JAX and numlir alike.
    for jit, error in ((numlir.jit, numlir.ConcretizationTypeError),
                       (jax.jit, jax.errors.ConcretizationTypeError)):
        with pytest.raises(error):
            jit(lambda v: v.tobytes())(x)
        for name in ("clone", "is_ready"):
            with pytest.raises(AttributeError):
                jit(lambda v, name=name: getattr(v, name)())(x)
    deleted = jnp.asarray(x)
    deleted.delete()
    for name in ("clone", "is_ready", "tobytes"):
        with pytest.raises(RuntimeError, match="deleted"):
            getattr(deleted, name)()
