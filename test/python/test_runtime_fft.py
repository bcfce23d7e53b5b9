"""The runtime's FFT library (runtime/lib/services/fft/), which jax.lax.fft calls.

Its symbols are hidden inside libnlrt, so the tests build the sources themselves with the
system C compiler: runtime/test/fft_test.c (every length to 130 and some long and prime
ones, ranks 1-3, all four transform types, both precisions, threads, against a long
double DFT), and a shared object called through ctypes and compared with numpy.fft on
random and special inputs.
"""

from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import numpy as np
import pytest

from c_test_programs import CC, REPO

pytestmark = pytest.mark.skipif(CC is None, reason="needs a C compiler")

FFT = REPO / "runtime" / "lib" / "services" / "fft"
SOURCES = [*(str(FFT / name) for name in ("fft.c", "kernels.c", "plan.c")),
           str(FFT.parent / "parallel_ranges.c")]
FLAGS = [CC, "-std=c11", "-O2", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-pthread",
         "-I", str(FFT)]


def test_fft_c_program(tmp_path):
    program = tmp_path / "fft_test"
    subprocess.run([*FLAGS, str(REPO / "runtime" / "test" / "fft_test.c"), *SOURCES, "-o",
                    str(program), "-lm"], check=True)
    result = subprocess.run([str(program)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def nlrt_fft(tmp_path_factory):
    """nlrt_fft from a shared object of the sources, taking and returning numpy arrays."""
    library = tmp_path_factory.mktemp("fft") / "libfft.so"
    subprocess.run([*FLAGS, "-shared", "-fPIC", *SOURCES, "-o", str(library), "-lm"],
                   check=True)
    function = ctypes.CDLL(str(library)).nlrt_fft
    function.restype = ctypes.c_int
    function.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int,
                         ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p, ctypes.c_void_p]

    def call(fft_type: int, x: np.ndarray, lengths: tuple[int, ...]) -> np.ndarray:
        x = np.ascontiguousarray(x)
        double = x.dtype in (np.float64, np.complex128)
        real_dtype = np.float64 if double else np.float32
        complex_dtype = np.complex128 if double else np.complex64
        batch_shape = x.shape[:x.ndim - len(lengths)]
        out_shape = list(lengths)
        if fft_type == 2:
            out_shape[-1] = lengths[-1] // 2 + 1
        out = np.empty((*batch_shape, *out_shape), real_dtype if fft_type == 3 else complex_dtype)
        x.flags.writeable = False  # `in` may be read-only memory
        before = x.copy()
        status = function(fft_type, int(double), int(np.prod(batch_shape, dtype=np.int64)),
                          len(lengths), (ctypes.c_int64 * len(lengths))(*lengths),
                          x.ctypes.data, out.ctypes.data)
        assert status == 0
        np.testing.assert_array_equal(x, before)
        return out

    return call


def numpy_reference(fft_type: int, x: np.ndarray, lengths: tuple[int, ...]) -> np.ndarray:
    """numpy.fft's answer, computed in double precision."""
    axes = tuple(range(-len(lengths), 0))
    wide = x.astype(np.complex128 if fft_type != 2 else np.float64)
    if fft_type == 0:
        return np.fft.fftn(wide, axes=axes)
    if fft_type == 1:
        return np.fft.ifftn(wide, axes=axes)
    if fft_type == 2:
        return np.fft.rfftn(wide, axes=axes)
    return np.fft.irfftn(wide, s=lengths, axes=axes)


def random_input(fft_type, lengths, batch, double, rng):
    shape = list(lengths)
    if fft_type == 3:
        shape[-1] = lengths[-1] // 2 + 1
    real = fft_type == 2
    values = rng.uniform(-1, 1, (batch, *shape))
    if not real:
        values = values + 1j * rng.uniform(-1, 1, (batch, *shape))
    dtype = {(True, False): np.float32, (True, True): np.float64,
             (False, False): np.complex64, (False, True): np.complex128}[(real, double)]
    return values.astype(dtype)


def assert_close(got, want, double, n):
    """Close per batch item, relative to the item's largest magnitude."""
    tolerance = (2e-14 if double else 1e-5) * np.log2(n + 1)
    tiny = 1e-300 if double else 1e-43  # subnormal float results keep fewer digits
    for g, w in zip(got.reshape(len(got), -1), want.reshape(len(want), -1)):
        scale = np.abs(w).max()
        np.testing.assert_allclose(g, w, rtol=0, atol=tolerance * scale + tiny * n)


TYPES = [0, 1, 2, 3]
LENGTHS = [1, 2, 3, 17, 4093]


@pytest.mark.parametrize("double", [False, True], ids=["single", "double"])
@pytest.mark.parametrize("fft_type", TYPES, ids=["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("n", LENGTHS)
def test_matches_numpy_on_random_input(nlrt_fft, fft_type, double, n):
    rng = np.random.default_rng(n * 8 + fft_type * 2 + double)
    x = random_input(fft_type, (n,), 5, double, rng)
    assert_close(nlrt_fft(fft_type, x, (n,)), numpy_reference(fft_type, x, (n,)), double, n)


@pytest.mark.parametrize("double", [False, True], ids=["single", "double"])
@pytest.mark.parametrize("fft_type", TYPES, ids=["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("lengths", [(4, 6), (3, 17), (5, 1), (2, 3, 9), (8, 4, 10)])
def test_matches_numpy_in_several_dimensions(nlrt_fft, fft_type, double, lengths):
    rng = np.random.default_rng(len(lengths) * 100 + fft_type * 2 + double)
    x = random_input(fft_type, lengths, 3, double, rng)
    assert_close(nlrt_fft(fft_type, x, lengths), numpy_reference(fft_type, x, lengths), double,
                 int(np.prod(lengths)))


def special_rows(fft_type, n, double, rng):
    """Rows of zeros of both signs, tiny and huge magnitudes (finite results), and of
    inf and NaN (not): each row is its own batch item."""
    x = random_input(fft_type, (n,), 8, double, rng)
    tiny, huge = (1e-300, 1e300) if double else (1e-38, 1e38)
    x[0] = 0
    x[1] = -x[1] * 0  # negative zeros
    x[2] *= tiny
    x[3] = x[3] / n  # huge values that do not overflow when summed
    x[3][0] = huge
    x[4][0] = np.inf
    x[5][-1] = -np.inf
    x[6][0] = np.nan
    if fft_type not in (2, 3):
        x[7][0] = complex(np.nan, 0) if n > 1 else complex(0, np.nan)
    else:
        x[7][0] = np.nan
    return x


@pytest.mark.parametrize("double", [False, True], ids=["single", "double"])
@pytest.mark.parametrize("fft_type", TYPES, ids=["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("n", LENGTHS)
def test_special_values_follow_numpy(nlrt_fft, fft_type, double, n):
    rng = np.random.default_rng(1000 + n)
    x = special_rows(fft_type, n, double, rng)
    got = nlrt_fft(fft_type, x, (n,))
    with np.errstate(all="ignore"):
        want = numpy_reference(fft_type, x, (n,))
    finite = slice(0, 4)
    assert np.isfinite(got[finite]).all()
    assert_close(got[finite], want[finite], double, n)
    # Non-finite inputs: every output numpy leaves non-finite is non-finite here too,
    # and a NaN input makes its whole row NaN, in numpy and here. (Where an inf meets
    # a zero twiddle, numpy's inf or NaN depends on its butterflies' order.)
    assert not np.isfinite(got[4:][~np.isfinite(want[4:])]).any()
    nan_rows = slice(6, 8)
    nan_got = np.isnan(got[nan_rows].real) | np.isnan(got[nan_rows].imag)
    nan_want = np.isnan(want[nan_rows].real) | np.isnan(want[nan_rows].imag)
    np.testing.assert_array_equal(nan_got, nan_want)
    # The DC bin of an irfft input loses its imaginary part, NaN or not, as in numpy.
    if fft_type == 3:
        y = random_input(3, (n,), 1, double, rng)
        y[0][0] = complex(y[0][0].real, np.nan)
        if n % 2 == 0:
            y[0][-1] = complex(y[0][-1].real, np.inf)
        assert_close(nlrt_fft(3, y, (n,)), numpy_reference(3, y, (n,)), double, n)
