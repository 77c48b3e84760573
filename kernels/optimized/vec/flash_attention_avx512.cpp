// The AVX-512 flash attention block (flash_attention.h): register-blocked
// micro-kernels over keys packed once per batch item. Compiled with
// -mavx512f/dq/bw/vl; entered only when best_isa() is kAvx512 and the value
// dim is a multiple of 16.
//
// Per batch item the keys k_t [D][S] are packed into tiles of 64 keys
// [S/64][D][64] (the last tile zero-padded): a tile is 16 KiB read front to
// back, where the rows of k_t are S floats apart. Per query block
// (kFlashQueryBlockAvx512 rows, their queries copied times log2(e) so the
// scores come out in base 2) and key tile, each group of up to kRows rows:
//   scores   kRows x 64 in 24 zmm accumulators (per d: 4 key vectors, one
//            broadcast per row, 24 FMAs), stored to a 1.5 KiB buffer;
//   softmax  per row the tile's lane-wise max is compared with the running
//            max: only when a score exceeds it (a few tiles per row, mostly
//            the first) is it reduced across lanes and the row's output and
//            sum rescaled; then p = 2^(s - max) (exp2_nonpositive) and the
//            row's sum accumulates lane-wise, reduced once at the end;
//   P . V    kRows x 64 output columns in 24 accumulators (per key: 4 value
//            vectors, one broadcast per row), loaded from and stored to the
//            block's output rows once per tile.
// The key and value tiles (16 KiB each) stay in L1 across the block's row
// groups; the block's queries and outputs (48 rows: 12 KiB each) beside them.
//
// GCC 12's AVX-512 headers build masked intrinsics on _mm512_undefined_ps(),
// which -W(maybe-)uninitialized reports (a known false positive of the headers).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cmath>
#include <limits>

#include "kernels/optimized/vec/flash_attention.h"
#include "kernels/optimized/vec/vec_math_avx512.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int64_t kTile = 64;  // keys per tile: 4 zmm per score row
constexpr int kRows = 6;       // query rows per register block (24 accumulators)
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

int64_t round_up16(int64_t n) { return (n + 15) / 16 * 16; }

// scores[i][0, 64) = qs[i] . tile[:, 0, 64) for rows i < R (qs rows `dim`
// apart, the tile [dim][64]).
template <int R>
void score_rows(const float* qs, int64_t dim, const float* tile, float* scores) {
  __m512 acc[R][4];
  for (int i = 0; i < R; ++i) {
    for (int n = 0; n < 4; ++n) acc[i][n] = _mm512_setzero_ps();
  }
  for (int64_t d = 0; d < dim; ++d) {
    const float* k = tile + d * kTile;
    const __m512 k0 = _mm512_load_ps(k), k1 = _mm512_load_ps(k + 16),
                 k2 = _mm512_load_ps(k + 32), k3 = _mm512_load_ps(k + 48);
    for (int i = 0; i < R; ++i) {
      const __m512 q = _mm512_set1_ps(qs[i * dim + d]);
      acc[i][0] = _mm512_fmadd_ps(q, k0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(q, k1, acc[i][1]);
      acc[i][2] = _mm512_fmadd_ps(q, k2, acc[i][2]);
      acc[i][3] = _mm512_fmadd_ps(q, k3, acc[i][3]);
    }
  }
  for (int i = 0; i < R; ++i) {
    for (int n = 0; n < 4; ++n) _mm512_store_ps(scores + i * kTile + n * 16, acc[i][n]);
  }
}

// The online-softmax step of rows i < R over one tile whose first `count`
// keys exist: scores (base 2) become probabilities in place (exact zeros
// past count), the running max and lane-wise sum of each row are updated
// and its output row (`vdim` floats at out + i * vdim) rescaled when the
// max grows. A row that has seen only -inf keeps max -inf and sum 0
// (zeros, as the safe softmax); a NaN score makes the row's max NaN, so its
// output is NaN, as eager's softmax.
// kPartial: the tile may be short (count < 64); whole tiles skip the masks.
template <int R, bool kPartial>
void softmax_rows(float* scores, int64_t count, float* row_max, float* row_sum, float* out,
                  int64_t vdim) {
  __mmask16 valid[4] = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};
  if (kPartial) {
    for (int n = 0; n < 4; ++n) {
      const int64_t left = count - 16 * n;
      valid[n] = vec_avx512::tail_mask(left < 0 ? 0 : left > 16 ? 16 : left);
    }
  }
  const __m512 neg_inf = _mm512_set1_ps(kNegInf);
  for (int i = 0; i < R; ++i) {
    float* s = scores + i * kTile;
    __m512 x[4];
    for (int n = 0; n < 4; ++n) {
      x[n] = kPartial ? _mm512_mask_load_ps(neg_inf, valid[n], s + n * 16) : _mm512_load_ps(s + n * 16);
    }
    const __m512 vmax = _mm512_max_ps(_mm512_max_ps(x[0], x[1]), _mm512_max_ps(x[2], x[3]));
    float m = row_max[i];
    // NLE_UQ: a NaN lane (score or running max) takes the slow path too.
    if (_mm512_cmp_ps_mask(vmax, _mm512_set1_ps(m), _CMP_NLE_UQ) != 0) {
      __mmask16 nan = 0;
      for (int n = 0; n < 4; ++n) nan |= _mm512_cmp_ps_mask(x[n], x[n], _CMP_UNORD_Q);
      const float tile_max = nan != 0 ? std::numeric_limits<float>::quiet_NaN()
                                      : _mm512_reduce_max_ps(vmax);
      if (m != kNegInf && !std::isnan(m)) {
        // 2^(old - new) in (0, 1): the row's output and sum so far, in the new scale.
        const __m512 c = _mm512_set1_ps(std::exp2(m - tile_max));
        float* o = out + i * vdim;
        for (int64_t e = 0; e < vdim; e += 16) _mm512_store_ps(o + e, _mm512_mul_ps(_mm512_load_ps(o + e), c));
        _mm512_store_ps(row_sum + i * 16, _mm512_mul_ps(_mm512_load_ps(row_sum + i * 16), c));
      }
      m = row_max[i] = std::isnan(m) ? m : tile_max;
    }
    if (m == kNegInf) {  // only -inf so far: nothing to add
      for (int n = 0; n < 4; ++n) _mm512_store_ps(s + n * 16, _mm512_setzero_ps());
      continue;
    }
    const __m512 mv = _mm512_set1_ps(m);
    __m512 sum = _mm512_load_ps(row_sum + i * 16);
    for (int n = 0; n < 4; ++n) {
      __m512 p = vec_avx512::exp2_nonpositive(_mm512_sub_ps(x[n], mv));
      if (kPartial) p = _mm512_maskz_mov_ps(valid[n], p);
      _mm512_store_ps(s + n * 16, p);
      sum = _mm512_add_ps(sum, p);
    }
    _mm512_store_ps(row_sum + i * 16, sum);
  }
}

// out[i][c, c + 16 NV) += sum_{j < count} p[i][j] * values[j][c, ...) for
// rows i < R (out rows and values rows `vdim` apart).
template <int R, int NV>
void value_columns(const float* probs, const float* values, int64_t vdim, int64_t count,
                   float* out, int64_t c) {
  __m512 acc[R][NV];
  for (int i = 0; i < R; ++i) {
    for (int n = 0; n < NV; ++n) acc[i][n] = _mm512_load_ps(out + i * vdim + c + n * 16);
  }
  const float* v = values + c;
  for (int64_t j = 0; j < count; ++j, v += vdim) {
    __m512 value[NV];
    for (int n = 0; n < NV; ++n) value[n] = _mm512_loadu_ps(v + n * 16);
    for (int i = 0; i < R; ++i) {
      const __m512 p = _mm512_set1_ps(probs[i * kTile + j]);
      for (int n = 0; n < NV; ++n) acc[i][n] = _mm512_fmadd_ps(p, value[n], acc[i][n]);
    }
  }
  for (int i = 0; i < R; ++i) {
    for (int n = 0; n < NV; ++n) _mm512_store_ps(out + i * vdim + c + n * 16, acc[i][n]);
  }
}

template <int R>
void value_rows(const float* probs, const float* values, int64_t vdim, int64_t count, float* out) {
  int64_t c = 0;
  for (; c + 64 <= vdim; c += 64) value_columns<R, 4>(probs, values, vdim, count, out, c);
  switch ((vdim - c) / 16) {
    case 3: value_columns<R, 3>(probs, values, vdim, count, out, c); break;
    case 2: value_columns<R, 2>(probs, values, vdim, count, out, c); break;
    case 1: value_columns<R, 1>(probs, values, vdim, count, out, c); break;
    default: break;
  }
}

// One register block of R rows over one key tile: scores, softmax, P . V.
template <int R>
void row_group(const float* qs, int64_t dim, const float* key_tile, const float* value_tile,
               int64_t vdim, int64_t count, float* scores, float* row_max, float* row_sum,
               float* out) {
  score_rows<R>(qs, dim, key_tile, scores);
  if (count < kTile) {
    softmax_rows<R, true>(scores, count, row_max, row_sum, out, vdim);
  } else {
    softmax_rows<R, false>(scores, count, row_max, row_sum, out, vdim);
  }
  value_rows<R>(scores, value_tile, vdim, count, out);
}

using RowGroupFn = void (*)(const float*, int64_t, const float*, const float*, int64_t, int64_t,
                            float*, float*, float*, float*);
constexpr RowGroupFn kRowGroups[kRows + 1] = {nullptr,       row_group<1>, row_group<2>,
                                              row_group<3>,  row_group<4>, row_group<5>,
                                              row_group<6>};

struct SlotLayout {
  float *keys, *queries, *out, *scores, *row_max, *row_sum;
};

SlotLayout slot_layout(float* slot, int64_t keys, int64_t dim, int64_t vdim) {
  SlotLayout l;
  l.keys = slot;
  l.queries = l.keys + (keys + kTile - 1) / kTile * dim * kTile;
  l.out = l.queries + round_up16(kFlashQueryBlockAvx512 * dim);
  l.scores = l.out + kFlashQueryBlockAvx512 * vdim;
  l.row_max = l.scores + kRows * kTile;
  l.row_sum = l.row_max + round_up16(kFlashQueryBlockAvx512);
  return l;
}

}  // namespace

namespace detail {

size_t flash_attention_slot_floats_avx512(int64_t keys, int64_t dim, int64_t vdim) {
  return static_cast<size_t>((keys + kTile - 1) / kTile * dim * kTile +
                             round_up16(kFlashQueryBlockAvx512 * dim) +
                             kFlashQueryBlockAvx512 * vdim + kRows * kTile +
                             round_up16(kFlashQueryBlockAvx512) + kFlashQueryBlockAvx512 * 16);
}

void flash_attention_pack_keys_avx512(const FlashAttentionProblem& p, int64_t b, float* slot) {
  const int64_t keys = p.keys, dim = p.head_dim;
  const float* kt = p.k_t + b * dim * keys;
  float* dst = slot_layout(slot, keys, dim, p.value_dim).keys;
  for (int64_t j0 = 0; j0 < keys; j0 += kTile, dst += dim * kTile) {
    const int64_t count = keys - j0 < kTile ? keys - j0 : kTile;
    for (int64_t d = 0; d < dim; ++d) {
      const float* src = kt + d * keys + j0;
      float* row = dst + d * kTile;
      for (int n = 0; n < 4; ++n) {
        const int64_t left = count - 16 * n;
        const __mmask16 m = vec_avx512::tail_mask(left < 0 ? 0 : left > 16 ? 16 : left);
        _mm512_store_ps(row + n * 16, _mm512_maskz_loadu_ps(m, src + n * 16));
      }
    }
  }
}

void flash_attention_block_avx512(const FlashAttentionProblem& p, int64_t b, int64_t q0,
                                  int64_t q1, float* slot) {
  const int64_t rows = q1 - q0, dim = p.head_dim, vdim = p.value_dim, keys = p.keys;
  const SlotLayout l = slot_layout(slot, keys, dim, vdim);
  const float* q = p.q + (b * p.queries + q0) * dim;
  const float* v = p.v + b * keys * vdim;
  // Queries times log2(e): the scores come out in base 2 for exp2.
  const float log2e = vec_math::kLog2e;
  for (int64_t i = 0; i < rows * dim; ++i) l.queries[i] = q[i] * log2e;
  for (int64_t i = 0; i < rows * vdim; ++i) l.out[i] = 0.0f;
  for (int64_t r = 0; r < rows; ++r) {
    l.row_max[r] = kNegInf;
    _mm512_store_ps(l.row_sum + r * 16, _mm512_setzero_ps());
  }
  for (int64_t j0 = 0; j0 < keys; j0 += kTile) {
    const int64_t count = keys - j0 < kTile ? keys - j0 : kTile;
    const float* key_tile = l.keys + j0 * dim;  // tile j0 / 64 of dim * 64 floats
    const float* value_tile = v + j0 * vdim;
    for (int64_t r = 0; r < rows; r += kRows) {
      const int64_t n = rows - r < kRows ? rows - r : kRows;
      kRowGroups[n](l.queries + r * dim, dim, key_tile, value_tile, vdim, count, l.scores,
                    l.row_max + r, l.row_sum + r * 16, l.out + r * vdim);
    }
  }
  float* dst = p.out + (b * p.queries + q0) * vdim;
  for (int64_t r = 0; r < rows; ++r) {
    const float sum = _mm512_reduce_add_ps(_mm512_load_ps(l.row_sum + r * 16));
    // sum 0: every score -inf (zeros, as the safe softmax); NaN stays NaN.
    const __m512 inv = _mm512_set1_ps(sum == 0.0f ? 0.0f : 1.0f / sum);
    for (int64_t e = 0; e < vdim; e += 16) {
      _mm512_storeu_ps(dst + r * vdim + e, _mm512_mul_ps(_mm512_load_ps(l.out + r * vdim + e), inv));
    }
  }
}

void flash_exp2_avx512(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = vec_avx512::tail_mask(n - i < 16 ? n - i : 16);
    _mm512_mask_storeu_ps(y + i, m, vec_avx512::exp2_nonpositive(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
