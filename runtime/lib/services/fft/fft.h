/*===- fft.h - the runtime's FFT library, for jax.lax.fft ------------------===*
 *
 * numlir carries its own FFT because no permissively licensed FFT library
 * ships as a C-callable binary on Debian 12 or PyPI: FFTW and ducc0 are GPL,
 * pocketfft lives only inside numpy's and scipy's extension modules, and
 * kissfft is float-only and quadratic on prime lengths. This one is mixed
 * radix (2, 3, 4, 5, 8 and a generic odd radix) Stockham with Bluestein for
 * lengths with large prime factors, vectorized across several transforms of
 * the batch at once, and threaded over the batch for large calls.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NLRT_SERVICES_FFT_H
#define NLRT_SERVICES_FFT_H

#include <stdint.h>

/* fft_type values are jax.lax.FftType's: 0 FFT (forward complex->complex), 1 IFFT (inverse
 * complex->complex, scaled by 1/prod(lengths)), 2 RFFT (real->half spectrum), 3 IRFFT (half
 * spectrum->real, scaled by 1/prod(lengths)).
 *
 * Data are dense row-major, (batch, n_0, ..., n_{rank-1}) with rank 1..3,
 * transformed over the trailing `rank` axes; complex data interleave (re, im)
 * pairs of float, or of double when double_precision is nonzero. RFFT's
 * output and IRFFT's input have n_{rank-1}/2+1 entries along the last axis
 * (numpy.fft.rfftn/irfftn with s=lengths; IRFFT ignores the imaginary parts
 * of the DC and, for even n, Nyquist bins). `in` is never written; in and
 * out must not overlap. A zero length or batch writes nothing. Returns 0, or
 * nonzero if memory ran out. Safe to call from several threads at once.
 *
 * Threads: calls with more than 2^17 points use NUMLIR_NUM_THREADS threads
 * (a positive integer) or else as many as the process may run on. */
int nlrt_fft(int fft_type, int double_precision, int64_t batch, int rank,
             const int64_t *lengths, const void *in, void *out);

#endif /* NLRT_SERVICES_FFT_H */
