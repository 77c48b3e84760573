#include "kernels/portable/support/fft.h"

#include <cmath>

namespace torchedge {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr int64_t kMaxRadix = 7;

// The smallest prime factor of n (> 1) when it is at most kMaxRadix, else 0.
int64_t small_factor(int64_t n) {
  for (int64_t p = 2; p <= kMaxRadix; ++p) {
    if (n % p == 0) return p;
  }
  return 0;
}

bool is_smooth(int64_t n) {
  while (n > 1) {
    const int64_t p = small_factor(n);
    if (p == 0) return false;
    n /= p;
  }
  return true;
}

ComplexAccumulator twiddle(int sign, int64_t k, int64_t n) {
  // k * n fits: transform lengths are tensor sizes (< 2^31); reduce k first
  // so the angle stays small and accurate.
  return std::polar(1.0, sign * kTwoPi * static_cast<double>(k % n) / static_cast<double>(n));
}

// Decimation in time: out[0..n) = DFT of in[0], in[stride], ... (n values).
// `in` and `out` must not overlap.
void mixed_radix(const ComplexAccumulator* in, int64_t stride, ComplexAccumulator* out, int64_t n,
                 int sign) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t p = small_factor(n), m = n / p;
  for (int64_t q = 0; q < p; ++q) mixed_radix(in + q * stride, stride * p, out + q * m, m, sign);
  ComplexAccumulator t[kMaxRadix];
  for (int64_t k = 0; k < m; ++k) {
    for (int64_t q = 0; q < p; ++q) t[q] = out[q * m + k] * twiddle(sign, q * k, n);
    for (int64_t s = 0; s < p; ++s) {
      ComplexAccumulator sum = t[0];
      for (int64_t q = 1; q < p; ++q) sum += t[q] * twiddle(sign, q * s, p);
      out[k + s * m] = sum;
    }
  }
}

int64_t bluestein_length(int64_t n) {
  int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  return m;
}

// chirp(k) = exp(sign * i pi k^2 / n), with k^2 reduced mod 2n for accuracy.
ComplexAccumulator chirp(int sign, int64_t k, int64_t n) {
  const int64_t k2 = (k % (2 * n)) * (k % (2 * n)) % (2 * n);
  return std::polar(1.0, sign * kTwoPi * 0.5 * static_cast<double>(k2) / static_cast<double>(n));
}

// X[k] = chirp(k) * sum_j (x[j] chirp(j)) conj(chirp(k - j)): a circular
// convolution of length m done with three power-of-two transforms.
void bluestein(ComplexAccumulator* data, int64_t n, int sign, ComplexAccumulator* scratch) {
  const int64_t m = bluestein_length(n);
  ComplexAccumulator* a = scratch;
  ComplexAccumulator* b = scratch + m;
  ComplexAccumulator* t = scratch + 2 * m;
  for (int64_t j = 0; j < m; ++j) {
    a[j] = j < n ? data[j] * chirp(sign, j, n) : ComplexAccumulator(0.0, 0.0);
    b[j] = ComplexAccumulator(0.0, 0.0);
  }
  for (int64_t j = 0; j < n; ++j) {
    b[j] = chirp(-sign, j, n);
    if (j > 0) b[m - j] = b[j];
  }
  mixed_radix(a, 1, t, m, -1);
  mixed_radix(b, 1, a, m, -1);  // a now holds B
  for (int64_t j = 0; j < m; ++j) b[j] = t[j] * a[j];
  mixed_radix(b, 1, t, m, +1);
  const double scale = 1.0 / static_cast<double>(m);
  for (int64_t k = 0; k < n; ++k) data[k] = t[k] * scale * chirp(sign, k, n);
}

}  // namespace

size_t fft_scratch_elements(int64_t n) {
  return is_smooth(n) ? static_cast<size_t>(n) : 3 * static_cast<size_t>(bluestein_length(n));
}

void fft_1d(ComplexAccumulator* data, int64_t n, int sign, ComplexAccumulator* scratch) {
  if (n <= 1) return;
  if (!is_smooth(n)) {
    bluestein(data, n, sign, scratch);
    return;
  }
  for (int64_t j = 0; j < n; ++j) scratch[j] = data[j];
  mixed_radix(scratch, 1, data, n, sign);
}

void fft_along_dim(ComplexAccumulator* data, const int64_t* sizes, int rank, int dim, int sign,
                   ComplexAccumulator* line, ComplexAccumulator* scratch) {
  const int64_t n = sizes[dim];
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= sizes[d];
  for (int d = dim + 1; d < rank; ++d) inner *= sizes[d];
  if (n <= 1 || outer == 0 || inner == 0) return;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      ComplexAccumulator* base = data + o * n * inner + i;
      for (int64_t k = 0; k < n; ++k) line[k] = base[k * inner];
      fft_1d(line, n, sign, scratch);
      for (int64_t k = 0; k < n; ++k) base[k * inner] = line[k];
    }
  }
}

}  // namespace torchedge
