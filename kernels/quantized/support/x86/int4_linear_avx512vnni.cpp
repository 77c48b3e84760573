// AVX-512 VNNI inner loop of linear_8da4w (vpdpbusd on 256-bit vectors,
// compiled with -mavx512vnni -mavx512vl; entered only when quant_isa()
// reports kAvx512Vnni). Tested on an Ice Lake class Xeon with AVX-512 VNNI
// (quantized_kernels_test's default run); AVX2 hosts run int4_linear_avx2.cpp.
// (The tied-accumulator vpdpbusd of int8_conv_avx512vnni.cpp measured no
// better here: quantized_linear_bench g32 0.59-0.74 -> 0.93-1.07 ms.)
#include <immintrin.h>

#include "kernels/quantized/support/int4_linear.h"

namespace torchedge {
namespace quantized {
namespace {

#include "kernels/quantized/support/x86/simd_sums_x86.h"

// vpdpbusd: acc += sum of 4 u8 * s8 products per int32 lane, no saturation.
struct Dot {
  static __m256i dot(__m256i acc, __m256i u, __m256i s) { return _mm256_dpbusd_epi32(acc, u, s); }
};

#include "kernels/quantized/support/x86/int8_int4_tile_x86.h"

}  // namespace

void int8_int4_linear_avx512vnni(const Int8Rows& x, const Int4Weight& w, const float* bias,
                                 float* out, int64_t n_begin, int64_t n_end) {
  int8_int4_columns(x, w, bias, out, n_begin, n_end);
}

}  // namespace quantized
}  // namespace torchedge
