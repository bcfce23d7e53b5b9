/*===- fft_routine.h - numlir.fft through the runtime's FFT library -------===*/

#ifndef NLRT_SERVICES_LIBRARY_FFT_ROUTINE_H
#define NLRT_SERVICES_LIBRARY_FFT_ROUTINE_H

#include "library_calls.h"

/* numlir.fft: jax.lax.fft of operand 0 over its trailing 1 to 3 axes;
 * config [fft_type (0 FFT, 1 IFFT, 2 RFFT, 3 IRFFT), lengths...]. */
nlrt_status nlrt_fft_routine(const nlrt_library_call *call);

#endif /* NLRT_SERVICES_LIBRARY_FFT_ROUTINE_H */
