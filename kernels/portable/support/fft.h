// torchedge/kernels/portable/support/fft.h
//
// Discrete Fourier transforms written here (no FFT library): a 1-d complex
// transform of any length in double precision, and transforms along one dim
// of a dense row-major complex buffer, which the _fft_r2c / _fft_c2r /
// _fft_c2c kernels compose over their dims.
//
// Lengths whose prime factors are all 2, 3, 5 or 7 use a recursive
// mixed-radix Cooley-Tukey transform (O(n log n)); any other length uses
// Bluestein's chirp-z algorithm, which turns the DFT into a circular
// convolution of power-of-two length M >= 2n - 1 done with the radix-2 path.
// Twiddle factors are computed with std::polar per use (no table), so the
// transforms need only the caller's scratch and never allocate.
//
//   sign -1: X[k] = sum_j x[j] exp(-2 pi i jk / n)   (forward)
//   sign +1: X[k] = sum_j x[j] exp(+2 pi i jk / n)   (backward, unscaled)
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/portable/support/complex.h"

namespace torchedge {

/// Complex<double> scratch elements fft_1d needs for length `n` (> 0).
size_t fft_scratch_elements(int64_t n);

/// Transforms `data` (n elements) in place. `scratch` holds
/// fft_scratch_elements(n) elements and must not overlap `data`.
void fft_1d(ComplexAccumulator* data, int64_t n, int sign, ComplexAccumulator* scratch);

/// Transforms every line along dim `dim` of the dense row-major buffer
/// `data` with `sizes` (rank dims). `line` holds sizes[dim] elements and
/// `scratch` fft_scratch_elements(sizes[dim]); neither overlaps `data`.
void fft_along_dim(ComplexAccumulator* data, const int64_t* sizes, int rank, int dim, int sign,
                   ComplexAccumulator* line, ComplexAccumulator* scratch);

}  // namespace torchedge
