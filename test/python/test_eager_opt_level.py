"""Small eager ops at another LLVM optimization level (cpu_small_eager_opt_level) give the
same bits as at -O3: numlir emits no fast-math flags but one, so LLVM may not reorder or
contract float arithmetic at any level. The one is `reassoc` on the combiners of float
sums and products of hlo.reduce, whose order jax leaves open: those may round a few ulps
apart between levels (LLVM's unroller, off by default since session 15, was what kept
-O3's order equal to -O0's). The option applies only to small ops without sub-graphs and
never to contractions or convolutions."""

import ml_dtypes
import numpy as np
import pytest

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src import config
from numlir._src.backends import cpu

R = np.random.default_rng(11)
# numlir arrays, so that every op below runs as a numlir eager op (NumPy's would not)
F = jnp.asarray(R.standard_normal((3, 5, 4)).astype(np.float32))
I = jnp.asarray(R.integers(-40, 40, (4, 6)).astype(np.int32))
B = jnp.asarray(R.standard_normal((5, 6)).astype(ml_dtypes.bfloat16))
D64 = R.standard_normal((6, 7))

OPS = {
    "sin": lambda: jnp.sin(F),
    "exp_log": lambda: jnp.log(jnp.exp(F) + 1.0),
    "tanh_logistic": lambda: jnp.tanh(F) * lax.logistic(F),
    "erf_lgamma_digamma": lambda: (lax.erf(F), lax.lgamma(jnp.abs(F) + 0.5), lax.digamma(jnp.abs(F) + 0.5)),
    "broadcast_arithmetic": lambda: (F / (F[:, :1] + 3.0)) ** 2 - F,
    "pow_and_rem": lambda: (jnp.power(jnp.abs(F), F), jnp.remainder(F, 0.7)),
    "reductions": lambda: (F.sum(axis=1), F.prod(axis=(0, 2)), F.max(axis=0), F.mean(), F.var(axis=1)),
    "cumulative": lambda: (jnp.cumsum(F, axis=1), jnp.cumprod(F, axis=0), lax.cummax(F, axis=2)),
    "sort_and_argmax": lambda: (jnp.sort(F, axis=1), jnp.argsort(F, axis=0), jnp.argmax(F, axis=1)),
    "gather_scatter": lambda: (F[np.array([2, 0]), :, np.array([1, 3])], jnp.zeros(8).at[np.array([1, 1, 5])].add(3.5)),
    "windows_and_pads": lambda: (lax.reduce_window(F, -np.inf, lax.max, (1, 2, 2), (1, 1, 2), "SAME"),
                                 jnp.pad(F, ((1, 2), (0, 3), (0, 0)), mode="reflect")),
    "integers": lambda: (I // 3, I % 7, I >> 2, I * I - 5),
    "bfloat16": lambda: (B * B + 1.0, B.astype(np.float32) / 3.0, (B.astype(np.float32) * 7.1).astype(ml_dtypes.bfloat16)),
    "float64": lambda: (lambda d: (jnp.sqrt(jnp.abs(d)), jnp.exp2(d), d @ d.T, d.sum(axis=0)))(jnp.asarray(D64)),
}

#: Families with float sums or products of hlo.reduce: compared to a few ulps, not bits.
REASSOCIABLE = {"reductions", "float64"}


def _assert_same(got, want, name, level):
    if name in REASSOCIABLE and np.issubdtype(want.dtype, np.floating):
        np.testing.assert_allclose(got, want, rtol=8 * np.finfo(want.dtype).eps, atol=0,
                                   err_msg=f"-O{level}")
    else:
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), err_msg=f"-O{level}")


def _run(name, level, monkeypatch, seen):
    numlir.clear_caches()
    monkeypatch.setattr(config.flags, "cpu_small_eager_opt_level", level)
    real = cpu.CpuBackend.compile

    def recording(self, text, *, options=None, name="module", **rest):
        seen.append((name, None if options is None else options.opt_level))
        return real(self, text, options=options, name=name, **rest)

    monkeypatch.setattr(cpu.CpuBackend, "compile", recording)
    out = OPS[name]()
    monkeypatch.setattr(cpu.CpuBackend, "compile", real)
    return [np.atleast_1d(np.asarray(o)) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("name", OPS)
def test_small_eager_ops_give_the_same_bits_at_every_level(name, monkeypatch, x64):
    seen_default, seen_o0, seen_o1 = [], [], []
    want = _run(name, -1, monkeypatch, seen_default)
    for level, seen in ((0, seen_o0), (1, seen_o1)):
        got = _run(name, level, monkeypatch, seen)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            _assert_same(g, w, name, level)
        assert any(opt == level for _, opt in seen), seen  # the option was used
        assert all(opt is None for op, opt in seen if op in ("dot_general", "conv_general_dilated"))
    assert all(opt is None for _, opt in seen_default)
    numlir.clear_caches()


def test_large_ops_keep_the_usual_level(monkeypatch):
    seen = []
    monkeypatch.setattr(config.flags, "cpu_small_eager_bytes", 64)
    numlir.clear_caches()
    monkeypatch.setattr(config.flags, "cpu_small_eager_opt_level", 0)
    real = cpu.CpuBackend.compile

    def recording(self, text, *, options=None, name="module", **rest):
        seen.append((name, None if options is None else options.opt_level))
        return real(self, text, options=options, name=name, **rest)

    monkeypatch.setattr(cpu.CpuBackend, "compile", recording)
    jnp.sin(np.ones(16, np.float32))  # 64 bytes: small
    jnp.sin(np.ones(17, np.float32))  # 68 bytes: not
    assert seen == [("sin", 0), ("sin", None)]
    numlir.clear_caches()
