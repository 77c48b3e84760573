// torchedge/kernels/optimized/vec/flash_attention_tile.h
//
// The block algorithm of flash_attention.h, written once over the SIMD
// traits class of attention_tile.h (which must be included first: this
// reuses its value_tile for P . V) and included inside the same anonymous
// namespace by attention_scalar.cpp, attention_avx2.cpp and
// attention_avx512.cpp.
// Scratch layout (floats): scores / probabilities [kFlashQueryBlock][tile],
// output rows [kFlashQueryBlock][E], the zero-padded last key tile [D][tile],
// running max and sum [kFlashQueryBlock] each.

// scores[r][0, tile) = q[r] . k_t[:, tile] for rows [r0, r0 + RB); k_t rows
// are kt_stride apart.
template <class S, int RB>
void flash_score_rows(const float* q, int64_t dim, const float* kt, int64_t kt_stride,
                      float* scores, int64_t r0) {
  using V = typename S::V;
  constexpr int NV = S::kScoreVectors;
  constexpr int64_t kTile = kAttentionKeyTile;
  for (int64_t c = 0; c < kTile; c += NV * S::kWidth) {
    V acc[RB][NV];
    for (int i = 0; i < RB; ++i) {
      for (int n = 0; n < NV; ++n) acc[i][n] = S::zero();
    }
    const float* key_column = kt + c;
    for (int64_t d = 0; d < dim; ++d, key_column += kt_stride) {
      V key[NV];
      for (int n = 0; n < NV; ++n) key[n] = S::load(key_column + n * S::kWidth);
      for (int i = 0; i < RB; ++i) {
        const V qv = S::set1(q[(r0 + i) * dim + d]);
        for (int n = 0; n < NV; ++n) acc[i][n] = S::fmadd(qv, key[n], acc[i][n]);
      }
    }
    for (int i = 0; i < RB; ++i) {
      for (int n = 0; n < NV; ++n) S::store(scores + (r0 + i) * kTile + c + n * S::kWidth, acc[i][n]);
    }
  }
}

template <class S>
void flash_score_tile(const float* q, int64_t dim, const float* kt, int64_t kt_stride,
                      float* scores, int64_t rows) {
  constexpr int RB = S::kScoreRows;
  int64_t r = 0;
  for (; r + RB <= rows; r += RB) flash_score_rows<S, RB>(q, dim, kt, kt_stride, scores, r);
  switch (rows - r) {
    case 3: flash_score_rows<S, 3>(q, dim, kt, kt_stride, scores, r); break;
    case 2: flash_score_rows<S, 2>(q, dim, kt, kt_stride, scores, r); break;
    case 1: flash_score_rows<S, 1>(q, dim, kt, kt_stride, scores, r); break;
    default: break;
  }
}

// The online-softmax step of one row over a tile of `count` valid scores:
// probabilities in place (zero past count), running max / sum updated, the
// row's output rescaled when the max grew. A tile of only -inf scores adds
// nothing (a row that never sees a finite score keeps sum 0: zeros, as the
// safe softmax); a NaN score makes the row's sum NaN, as eager's softmax.
template <class S>
void flash_softmax_step(float* scores, int64_t count, float* max, float* sum, float* out_row,
                        int64_t dim) {
  using V = typename S::V;
  constexpr int64_t kTile = kAttentionKeyTile;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t j = count; j < kTile; ++j) scores[j] = kNegInf;
  V vmax = S::load(scores);
  for (int64_t j = S::kWidth; j < kTile; j += S::kWidth) vmax = S::max(vmax, S::load(scores + j));
  const float tile_max = S::reduce_max(vmax);
  if (tile_max == kNegInf) {
    for (int64_t j = 0; j < kTile; ++j) scores[j] = 0.0f;
    return;
  }
  const float new_max = tile_max > *max ? tile_max : *max;
  const V shift = S::set1(new_max);
  V vsum = S::zero();
  for (int64_t j = 0; j < kTile; j += S::kWidth) {
    const V e = S::exp(S::sub(S::load(scores + j), shift));
    S::store(scores + j, e);
    vsum = S::add(vsum, e);
  }
  if (new_max > *max) {
    // exp(-inf) = 0 for the first finite tile: the zero output and sum stay zero.
    const float correction = std::exp(*max - new_max);
    *sum *= correction;
    const V cv = S::set1(correction);
    for (int64_t c = 0; c < dim; c += S::kWidth) S::store(out_row + c, S::mul(S::load(out_row + c), cv));
    *max = new_max;
  }
  *sum += S::reduce_add(vsum);
}

template <class S>
void flash_attention_block_impl(const FlashAttentionProblem& p, int64_t b, int64_t q0, int64_t q1,
                                float* scratch) {
  constexpr int64_t kTile = kAttentionKeyTile;
  const int64_t rows = q1 - q0, dim = p.head_dim, vdim = p.value_dim, keys = p.keys;
  float* probs = scratch;
  float* out = probs + kFlashQueryBlock * kTile;
  float* padded = out + round_up16(kFlashQueryBlock * vdim);
  float* row_max = padded + dim * kTile;
  float* row_sum = row_max + kFlashQueryBlock;
  const float* q = p.q + (b * p.queries + q0) * dim;
  const float* kt = p.k_t + b * dim * keys;
  const float* v = p.v + b * keys * vdim;
  for (int64_t i = 0; i < rows * vdim; ++i) out[i] = 0.0f;
  for (int64_t r = 0; r < rows; ++r) {
    row_max[r] = -std::numeric_limits<float>::infinity();
    row_sum[r] = 0.0f;
  }
  for (int64_t j0 = 0; j0 < keys; j0 += kTile) {
    const int64_t count = keys - j0 < kTile ? keys - j0 : kTile;
    // Whole tiles are read in place; the last, short one is copied with
    // zeros after its keys so the vector loads stay inside the tensor.
    const float* tile = kt + j0;
    int64_t tile_stride = keys;
    if (count < kTile) {
      for (int64_t d = 0; d < dim; ++d) {
        for (int64_t j = 0; j < kTile; ++j) padded[d * kTile + j] = j < count ? kt[d * keys + j0 + j] : 0.0f;
      }
      tile = padded;
      tile_stride = kTile;
    }
    flash_score_tile<S>(q, dim, tile, tile_stride, probs, rows);
    for (int64_t r = 0; r < rows; ++r) {
      flash_softmax_step<S>(probs + r * kTile, count, &row_max[r], &row_sum[r], out + r * vdim, vdim);
    }
    value_tile<S>(probs, v + j0 * vdim, vdim, count, out, rows, vdim);
  }
  float* dst = p.out + (b * p.queries + q0) * vdim;
  for (int64_t r = 0; r < rows; ++r) {
    const float inv = row_sum[r] == 0.0f ? 0.0f : 1.0f / row_sum[r];
    for (int64_t i = 0; i < vdim; ++i) dst[r * vdim + i] = out[r * vdim + i] * inv;
  }
}

// The two block functions of one ISA's translation unit (attention.h,
// flash_attention.h's detail::*_<isa>) over its traits, written once: after
// the anonymous namespace, TORCHEDGE_ATTENTION_BLOCKS(avx2, Avx2).
#define TORCHEDGE_ATTENTION_BLOCKS(isa, Traits)                                                \
  namespace detail {                                                                          \
  void attention_block_##isa(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1,     \
                             int64_t t0, int64_t t1, int64_t j_begin, int64_t j_end,           \
                             float* scratch, const AttentionPartial* partial) {                \
    attention_block_impl<Traits>(p, b, h0, h1, t0, t1, j_begin, j_end, scratch, partial);      \
  }                                                                                           \
  void flash_attention_block_##isa(const FlashAttentionProblem& p, int64_t b, int64_t q0,      \
                                   int64_t q1, float* scratch) {                               \
    flash_attention_block_impl<Traits>(p, b, q0, q1, scratch);                                 \
  }                                                                                           \
  }
