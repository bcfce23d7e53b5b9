"""Large ops split into chunks that run on OpenMP threads (cpu-parallelize-loops) give the
same bits as the whole op: a chunk is the op on a slice of its parallel loop, so every
element is computed by the same arithmetic in the same order. Splitting is forced here
(min-iterations 1) with 2 and 3 chunks, so that the small shapes below split, with
ragged last chunks where 3 does not divide a loop."""

import os
import subprocess
import sys
import types

import ml_dtypes
import numpy as np
import pytest
import scipy.special

import numlir
import numlir.numpy as jnp
from numlir import lax
from numlir._src import config
from numlir._src.backends import cpu

R = np.random.default_rng(5)
F = R.standard_normal((6, 35, 12)).astype(np.float32)
M = R.standard_normal((64, 96)).astype(np.float32)
N = R.standard_normal((96, 64)).astype(np.float32)
I = R.integers(-40, 40, (30, 16)).astype(np.int32)
B = R.standard_normal((24, 10)).astype(ml_dtypes.bfloat16)
D = R.standard_normal((18, 14))
IMAGES = R.standard_normal((4, 9, 9, 3)).astype(np.float32)
KERNEL = R.standard_normal((3, 3, 3, 8)).astype(np.float32)

PROGRAMS = {
    "elementwise": (lambda x: jnp.tanh(x * 1.5 + 0.1) * 0.5 + x, (F,)),
    "row_and_column_sums": (lambda x: (x.sum(axis=2), x.sum(axis=0), x.max(axis=1)), (F,)),
    "softmax": (lambda x: numlir.nn.softmax(x, axis=-1), (F,)),
    "matmul": (lambda a, b: (a @ b, b @ a), (M, N)),
    "batched_dot": (lambda x: jnp.einsum("bij,bkj->bik", x, x), (F,)),
    "matmul_with_bias_relu": (lambda a, b: jnp.maximum(a @ b + 0.25, 0.0), (M, N)),
    # The product's buffer has view users besides the chunks (slices, a reshape), which
    # must not stop its register tiles from keeping their accumulators in registers.
    "matmul_whose_output_is_sliced": (lambda a, b: (lambda c: (
        c[:, 5:40], c.reshape(-1)[::3], jnp.concatenate([c, a[:, :7]], axis=1)))(a @ b),
        (M, N)),
    "convolution": (lambda x, k: lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")), (IMAGES, KERNEL)),
    "iota_and_index_arithmetic": (lambda x: x + jnp.arange(12, dtype=np.float32) * jnp.arange(35)[:, None], (F,)),
    "transpose_broadcast_concatenate": (lambda x: jnp.concatenate(
        [jnp.transpose(x, (2, 1, 0)), jnp.broadcast_to(x[:1].T, (12, 35, 6))], axis=2), (F,)),
    "pad_slice_reverse": (lambda x: (jnp.pad(x, ((1, 2), (0, 3), (2, 0)))[::-1, 2:30], x[:, ::2]), (F,)),
    "cumulative_and_sort": (lambda x: (jnp.cumsum(x, axis=1), jnp.sort(x, axis=2), jnp.argmax(x, axis=1)), (F,)),
    "gather_scatter": (lambda x: (x[:, np.array([3, 0, 7, 7])], jnp.zeros((6, 12)).at[:, np.array([1, 1, 5])].add(x[:, 0, :3])), (F,)),
    "reduce_window": (lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 3, 2), (1, 2, 1), "SAME"), (F,)),
    # In-suite fuzzer finding (seed 8, program 328): a window over one loop is a
    # reduction whose input is read at d0 + d1, which partial reductions cannot reshape.
    "window_over_one_loop_is_not_split_into_partials": (lambda x: (
        lax.reduce_window(x, -np.inf, lax.max, (2,), (1,), "SAME"),
        lax.reduce_window(x, 0.0, lax.add, (7,), (1,), "VALID")), (F[0, 0, :10],)),
    "integers": (lambda i: (i // 3, i % 7, i >> 2, i * i - 5, i.sum(axis=0)), (I,)),
    "bfloat16": (lambda b: (b * b + 1.0, b.astype(np.float32) @ b.astype(np.float32).T), (B,)),
    "float64": (lambda d: (jnp.sqrt(jnp.abs(d)), d @ d.T, d.sum(axis=0)), (D,)),
    "while_loop": (lambda x: lax.fori_loop(0, 3, lambda i, v: jnp.sin(v) * 1.1 + i, x), (F,)),
}


def _compute(fn, args, monkeypatch, chunks, min_iterations):
    """The program's outputs, and whether its executable forks onto OpenMP threads."""
    numlir.clear_caches()
    # The chunks one device's team splits into, whatever the device count.
    monkeypatch.setattr(cpu.CpuBackend, "_compile_threads", lambda self: chunks)
    monkeypatch.setattr(config.flags, "cpu_parallel_min_iterations", min_iterations)
    real_link, forks = cpu._link, []

    def recording_link(obj, options):
        forks.append(b"__kmpc_fork_call" in obj)
        return real_link(obj, options)

    monkeypatch.setattr(cpu, "_link", recording_link)
    out = numlir.jit(fn)(*args)
    monkeypatch.setattr(cpu, "_link", real_link)
    numlir.clear_caches()
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))], any(forks)


@pytest.mark.parametrize("chunks", [2, 3])
@pytest.mark.parametrize("name", PROGRAMS)
def test_split_ops_give_the_same_bits_as_whole_ops(name, chunks, monkeypatch, x64):
    want, whole_forks = _compute(*PROGRAMS[name], monkeypatch, 1, 1)
    got, split_forks = _compute(*PROGRAMS[name], monkeypatch, chunks, 1)
    assert split_forks and not whole_forks  # the comparison is of split against whole
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))


LONG = R.standard_normal(1 << 18).astype(np.float32)
LONG_WITH_NAN = LONG.copy()
LONG_WITH_NAN[200_003] = np.nan
LONG_INTS = R.integers(-1000, 1000, 1 << 18).astype(np.int32)

#: name -> (the program as a function of a numpy and an nn module, its inputs), so that
#: one text runs on numlir and on jax.
REDUCTIONS = {
    "sum_of_squares": (lambda np_, nn: lambda x: np_.sum(x * x), (LONG,)),
    "mean_max_min": (lambda np_, nn: lambda x: (np_.mean(x), np_.max(x), np_.min(x)), (LONG,)),
    "max_propagates_nan": (lambda np_, nn: lambda x: (np_.max(x), np_.sum(x)), (LONG_WITH_NAN,)),
    "two_long_rows": (lambda np_, nn: lambda x: x.reshape(2, -1).sum(axis=1), (LONG,)),
    "integer_sum_and_max": (lambda np_, nn: lambda i: (np_.sum(i), np_.max(i), np_.sum(i * i)),
                            (LONG_INTS,)),
    "softmax_of_one_long_row": (lambda np_, nn: lambda x: nn.softmax(x), (LONG,)),
}


@pytest.mark.parametrize("name", REDUCTIONS)
def test_long_reductions_split_into_partials_give_the_same_bits_for_any_thread_count(
        name, monkeypatch):
    factory, args = REDUCTIONS[name]
    fn = factory(jnp, numlir.nn)
    one, one_forks = _compute(fn, args, monkeypatch, 1, 131072)
    # The partials do not depend on the threads: 2 and 3 threads agree with 1 bit for bit.
    for chunks in (2, 3):
        got, forks = _compute(fn, args, monkeypatch, chunks, 131072)
        assert forks and not one_forks
        for g, w in zip(got, one):
            np.testing.assert_array_equal(np.atleast_1d(g).view(np.uint8), np.atleast_1d(w).view(np.uint8))
    # Right, too: against NumPy in float64 (jax 0.10.2's XLA:CPU drops the NaN from a
    # long max, docs/design-decisions.md), exactly for integers.
    wide = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in args]
    want = factory(np, types.SimpleNamespace(softmax=scipy.special.softmax))(*wide)
    for g, w in zip(one, want if isinstance(want, tuple) else (want,)):
        if np.issubdtype(g.dtype, np.integer):
            np.testing.assert_array_equal(g, np.asarray(w).astype(g.dtype))
        else:
            np.testing.assert_allclose(g, np.asarray(w), rtol=2e-5, atol=1e-6)


SPLIT_LHS = R.standard_normal((96, 200)).astype(np.float32)
SPLIT_RHS = R.standard_normal((200, 320)).astype(np.float32)


@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_split_contractions_with_viewed_outputs_agree_with_float64_numpy(chunks, monkeypatch):
    """At the default threshold, so the chunks and register tiles are the real ones; the
    accumulators are hoisted out of the reduction loops whatever views the output has."""
    def program(a, b):
        c = a @ b
        return c, c[3:50, 17:300], (a @ b.T[:64].T)[:, ::2]

    got, forks = _compute(program, (SPLIT_LHS, SPLIT_RHS), monkeypatch, chunks, 131072)
    assert forks == (chunks > 1)
    a, b = SPLIT_LHS.astype(np.float64), SPLIT_RHS.astype(np.float64)
    want = (a @ b, (a @ b)[3:50, 17:300], (a @ b[:, :64])[:, ::2])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def _linked_shared_object(tmp_path, chunks, monkeypatch, shape=(512, 512)):
    numlir.clear_caches()
    # The chunks one device's team splits into, whatever the device count.
    monkeypatch.setattr(cpu.CpuBackend, "_compile_threads", lambda self: chunks)
    monkeypatch.setattr(config.flags, "dump_dir", str(tmp_path))
    x = np.ones(shape, np.float32)
    np.testing.assert_allclose(np.asarray(numlir.jit(jnp.tanh)(x)), np.tanh(x), rtol=1e-6)
    numlir.clear_caches()
    objects = sorted(tmp_path.rglob("*.so"))
    assert objects, list(tmp_path.rglob("*"))
    return objects[-1].read_bytes()


def test_a_large_op_forks_onto_openmp_threads_and_a_small_one_does_not(tmp_path, monkeypatch):
    assert b"__kmpc_fork_call" in _linked_shared_object(tmp_path / "large", 2, monkeypatch)
    assert b"__kmpc_fork_call" not in _linked_shared_object(tmp_path / "small", 2, monkeypatch, (16, 16))


def test_one_thread_splits_nothing(tmp_path, monkeypatch):
    assert b"__kmpc_fork_call" not in _linked_shared_object(tmp_path, 1, monkeypatch)


def _run_python(code, **env):
    environment = {**os.environ, "NUMLIR_ENABLE_COMPILATION_CACHE": "0", **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=environment)


_OPENMP_SETTINGS = """
import ctypes, numpy as np, numlir, numlir.numpy as jnp
x = np.ones((1024, 1024), np.float32)
np.testing.assert_allclose(np.asarray(numlir.jit(lambda x: jnp.tanh(x) * 2.0)(x)), np.tanh(x) * 2.0, rtol=1e-6)
omp = ctypes.CDLL("libomp.so.5")  # the copy the executable runs on
print(omp.omp_get_max_threads(), omp.kmp_get_blocktime())
"""


def test_numlir_num_threads_sets_the_openmp_threads_and_idle_threads_sleep_soon():
    three = _run_python(_OPENMP_SETTINGS, NUMLIR_NUM_THREADS="3")
    assert three.returncode == 0, three.stderr
    assert three.stdout.split() == ["3", "1"], three.stdout
    default = _run_python(_OPENMP_SETTINGS, NUMLIR_NUM_THREADS="")
    assert default.returncode == 0, default.stderr
    assert default.stdout.split() == [str(len(os.sched_getaffinity(0))), "1"], default.stdout
    # A user's own KMP_BLOCKTIME wins over the runtime's default.
    spinning = _run_python(_OPENMP_SETTINGS, KMP_BLOCKTIME="50")
    assert spinning.stdout.split()[1:] == ["50"], spinning.stdout + spinning.stderr


def test_a_bad_numlir_num_threads_is_a_clear_error():
    result = _run_python("import numlir, numlir.numpy as jnp; print(numlir.jit(jnp.sin)(1.0))",
                         NUMLIR_NUM_THREADS="many")
    assert result.returncode != 0
    assert "NUMLIR_NUM_THREADS must be a positive thread count, got 'many'" in result.stderr


def test_a_dump_replays_the_pipeline_with_the_thread_settings(tmp_path, monkeypatch):
    _linked_shared_object(tmp_path, 3, monkeypatch)
    (llvm_stage,) = tmp_path.rglob("*.llvm.mlir")
    header = llvm_stage.read_text().splitlines()[0]
    assert "hlo-opt --hlo-cpu-to-llvm='threads=3 min-iterations=131072 " in header, header
