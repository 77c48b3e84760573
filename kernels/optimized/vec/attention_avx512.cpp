// AVX-512 traits of the attention block (attention_tile.h): 16 floats per
// vector, 4 x 4 score and value register tiles (16 accumulators), 16 x 16
// transposes of the key tile. Compiled with -mavx512f/dq/bw/vl; entered only
// when best_isa() is kAvx512.
// GCC 12's AVX-512 headers build masked intrinsics on _mm512_undefined_ps(),
// which -Wmaybe-uninitialized reports (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "kernels/optimized/vec/attention.h"
#include "kernels/optimized/vec/flash_attention.h"
#include "kernels/optimized/vec/vec_math_avx512.h"

namespace torchedge {
namespace optimized {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr int kWidth = 16;
  static constexpr int kScoreRows = 4, kScoreVectors = 4;
  static constexpr int kValueRows = 4, kValueVectors = 4;
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V exp(V v) { return vec_avx512::exp(v); }
  static float reduce_add(V v) { return _mm512_reduce_add_ps(v); }
  static float reduce_max(V v) { return _mm512_reduce_max_ps(v); }

  static void transpose(const float* src, int64_t src_stride, int valid, float* dst,
                        int64_t dst_stride) {
    __m512 r[16];
    for (int i = 0; i < 16; ++i) r[i] = i < valid ? _mm512_loadu_ps(src + i * src_stride) : zero();
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
      t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    // u[4q + c]: rows 4q .. 4q + 3 of columns {c, c + 4, c + 8, c + 12} (one per 128-bit lane).
    for (int q = 0; q < 16; q += 4) {
      u[q + 0] = _mm512_shuffle_ps(t[q], t[q + 2], 0x44);
      u[q + 1] = _mm512_shuffle_ps(t[q], t[q + 2], 0xEE);
      u[q + 2] = _mm512_shuffle_ps(t[q + 1], t[q + 3], 0x44);
      u[q + 3] = _mm512_shuffle_ps(t[q + 1], t[q + 3], 0xEE);
    }
    for (int c = 0; c < 4; ++c) {
      const __m512 a = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);   // lanes 0, 2 of rows 0-7
      const __m512 b = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);   // lanes 1, 3
      const __m512 e = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
      const __m512 f = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
      _mm512_storeu_ps(dst + (c + 0) * dst_stride, _mm512_shuffle_f32x4(a, e, 0x88));
      _mm512_storeu_ps(dst + (c + 8) * dst_stride, _mm512_shuffle_f32x4(a, e, 0xDD));
      _mm512_storeu_ps(dst + (c + 4) * dst_stride, _mm512_shuffle_f32x4(b, f, 0x88));
      _mm512_storeu_ps(dst + (c + 12) * dst_stride, _mm512_shuffle_f32x4(b, f, 0xDD));
    }
  }
};

#include "kernels/optimized/vec/attention_tile.h"
#include "kernels/optimized/vec/flash_attention_tile.h"

}  // namespace

TORCHEDGE_ATTENTION_BLOCKS(avx512, Avx512)

}  // namespace optimized
}  // namespace torchedge
