// torchedge/kernels/optimized/vec/attention_tile.h
//
// The block algorithm of attention.h, written once over a SIMD traits class
// and included (inside an anonymous namespace) by attention_scalar.cpp,
// attention_avx2.cpp and attention_avx512.cpp, each compiled for its ISA.
// The traits `S` provide:
//   kWidth                      floats per vector V
//   kScoreRows, kScoreVectors   register tile of the scores (rows x vectors)
//   kValueRows, kValueVectors   register tile of P . V (rows x vectors of D)
//   V zero(), load(p), set1(x), fmadd(a, b, c) = a * b + c, add, mul, sub, max
//   void store(p, v); V exp(v); float reduce_add(v), reduce_max(v)
//   void transpose(src, src_stride, valid_rows, dst, dst_stride):
//       dst row i (kWidth floats) = column i of the kWidth x kWidth block
//       at src (rows at src_stride; rows >= valid_rows read as zeros)
// Scratch layout (floats, each piece a multiple of 16): scaled queries
// [R][D], output rows [R][D], scores / probabilities [R][tile], the
// transposed key tile [D][tile], running max [R] and sum [R].

inline int64_t round_up16(int64_t n) { return (n + 15) / 16 * 16; }

// scores[r][0, tile) = q[r] . kt[:, j] for rows [r0, r0 + RB).
template <class S, int RB>
void score_rows(const float* qs, const float* kt, float* scores, int64_t r0, int64_t dim) {
  using V = typename S::V;
  constexpr int NV = S::kScoreVectors;
  constexpr int64_t kTile = kAttentionKeyTile;
  for (int64_t c = 0; c < kTile; c += NV * S::kWidth) {
    V acc[RB][NV];
    for (int i = 0; i < RB; ++i) {
      for (int n = 0; n < NV; ++n) acc[i][n] = S::zero();
    }
    for (int64_t d = 0; d < dim; ++d) {
      V key[NV];
      for (int n = 0; n < NV; ++n) key[n] = S::load(kt + d * kTile + c + n * S::kWidth);
      for (int i = 0; i < RB; ++i) {
        const V qv = S::set1(qs[(r0 + i) * dim + d]);
        for (int n = 0; n < NV; ++n) acc[i][n] = S::fmadd(qv, key[n], acc[i][n]);
      }
    }
    for (int i = 0; i < RB; ++i) {
      for (int n = 0; n < NV; ++n) S::store(scores + (r0 + i) * kTile + c + n * S::kWidth, acc[i][n]);
    }
  }
}

template <class S>
void score_tile(const float* qs, const float* kt, float* scores, int64_t rows, int64_t dim) {
  constexpr int RB = S::kScoreRows;
  int64_t r = 0;
  for (; r + RB <= rows; r += RB) score_rows<S, RB>(qs, kt, scores, r, dim);
  switch (rows - r) {
    case 3: score_rows<S, 3>(qs, kt, scores, r, dim); break;
    case 2: score_rows<S, 2>(qs, kt, scores, r, dim); break;
    case 1: score_rows<S, 1>(qs, kt, scores, r, dim); break;
    default: break;
  }
}

// out[r][c, c + DV * W) += sum_j p[r][j] * value_j[c, ...) for rows [r0, r0 + RB).
template <class S, int RB, int DV>
void value_rows(const float* probs, const float* values, int64_t value_stride, int64_t keys,
                float* out, int64_t r0, int64_t c, int64_t dim) {
  using V = typename S::V;
  constexpr int64_t kTile = kAttentionKeyTile;
  V acc[RB][DV];
  for (int i = 0; i < RB; ++i) {
    for (int n = 0; n < DV; ++n) acc[i][n] = S::load(out + (r0 + i) * dim + c + n * S::kWidth);
  }
  for (int64_t j = 0; j < keys; ++j) {
    V value[DV];
    for (int n = 0; n < DV; ++n) value[n] = S::load(values + j * value_stride + c + n * S::kWidth);
    for (int i = 0; i < RB; ++i) {
      const V pv = S::set1(probs[(r0 + i) * kTile + j]);
      for (int n = 0; n < DV; ++n) acc[i][n] = S::fmadd(pv, value[n], acc[i][n]);
    }
  }
  for (int i = 0; i < RB; ++i) {
    for (int n = 0; n < DV; ++n) S::store(out + (r0 + i) * dim + c + n * S::kWidth, acc[i][n]);
  }
}

template <class S, int RB>
void value_row_block(const float* probs, const float* values, int64_t value_stride, int64_t keys,
                     float* out, int64_t r0, int64_t dim) {
  constexpr int DV = S::kValueVectors;
  int64_t c = 0;
  for (; c + DV * S::kWidth <= dim; c += DV * S::kWidth) {
    value_rows<S, RB, DV>(probs, values, value_stride, keys, out, r0, c, dim);
  }
  for (; c < dim; c += S::kWidth) value_rows<S, RB, 1>(probs, values, value_stride, keys, out, r0, c, dim);
}

template <class S>
void value_tile(const float* probs, const float* values, int64_t value_stride, int64_t keys,
                float* out, int64_t rows, int64_t dim) {
  constexpr int RB = S::kValueRows;
  int64_t r = 0;
  for (; r + RB <= rows; r += RB) value_row_block<S, RB>(probs, values, value_stride, keys, out, r, dim);
  switch (rows - r) {
    case 3: value_row_block<S, 3>(probs, values, value_stride, keys, out, r, dim); break;
    case 2: value_row_block<S, 2>(probs, values, value_stride, keys, out, r, dim); break;
    case 1: value_row_block<S, 1>(probs, values, value_stride, keys, out, r, dim); break;
    default: break;
  }
}

// The online-softmax step of one row over a tile whose first `visible`
// scores count: probabilities in place, running max / sum updated, the
// row's output rescaled when the max grew.
template <class S>
void softmax_row_step(float* scores, int64_t visible, float* max, float* sum, float* out_row,
                      int64_t dim) {
  using V = typename S::V;
  constexpr int64_t kTile = kAttentionKeyTile;
  if (visible <= 0) {
    for (int64_t j = 0; j < kTile; ++j) scores[j] = 0.0f;
    return;
  }
  for (int64_t j = visible; j < kTile; ++j) scores[j] = -std::numeric_limits<float>::infinity();
  V vmax = S::load(scores);
  for (int64_t j = S::kWidth; j < kTile; j += S::kWidth) vmax = S::max(vmax, S::load(scores + j));
  const float tile_max = S::reduce_max(vmax);
  const float new_max = tile_max > *max ? tile_max : *max;
  const V shift = S::set1(new_max);
  V vsum = S::zero();
  for (int64_t j = 0; j < kTile; j += S::kWidth) {
    const V e = S::exp(S::sub(S::load(scores + j), shift));
    S::store(scores + j, e);
    vsum = S::add(vsum, e);
  }
  if (new_max > *max) {
    // exp(-inf) = 0 for the first tile: the zero output and sum stay zero.
    const float correction = std::exp(*max - new_max);
    *sum *= correction;
    const V cv = S::set1(correction);
    for (int64_t c = 0; c < dim; c += S::kWidth) S::store(out_row + c, S::mul(S::load(out_row + c), cv));
    *max = new_max;
  }
  *sum += S::reduce_add(vsum);
}

template <class S>
void attention_block_impl(const AttentionProblem& p, int64_t b, int64_t h0, int64_t h1, int64_t t0,
                          int64_t t1, int64_t j_begin, int64_t j_end, float* scratch,
                          const AttentionPartial* partial) {
  constexpr int64_t kTile = kAttentionKeyTile;
  const int64_t groups = p.q_heads / p.kv_heads, dim = p.head_dim;
  const int64_t head_rows = (t1 - t0) * groups, rows = (h1 - h0) * head_rows;
  float* qs = scratch;
  float* out = qs + round_up16(rows * dim);
  float* probs = out + round_up16(rows * dim);
  float* kt = probs + head_rows * kTile;
  float* row_max = kt + round_up16(dim) * kTile;
  float* row_sum = row_max + round_up16(rows);
  // Row r = (h - h0) * head_rows + (t - t0) * groups + g: the groups query
  // heads of kv head h and token t are adjacent in q.
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t t = t0; t < t1; ++t) {
      const float* src = p.q + ((b * p.tokens + t) * p.q_heads + h * groups) * dim;
      float* dst = qs + ((h - h0) * head_rows + (t - t0) * groups) * dim;
      for (int64_t i = 0; i < groups * dim; ++i) dst[i] = src[i] * p.scale;
    }
  }
  for (int64_t i = 0; i < rows * dim; ++i) out[i] = 0.0f;
  for (int64_t r = 0; r < rows; ++r) {
    row_max[r] = -std::numeric_limits<float>::infinity();
    row_sum[r] = 0.0f;
  }
  const int64_t stride = p.kv_heads * dim;  // between cache positions
  const int64_t last = p.start + t1;       // keys [0, last) are visible to some row
  const int64_t end = j_end < last ? j_end : last;
  for (int64_t j0 = j_begin; j0 < end; j0 += kTile) {
    const int64_t count = end - j0 < kTile ? end - j0 : kTile;
    // The heads of one key tile in turn: together they read the tile's rows
    // [j0, j0 + count) of the caches front to back (decode groups every kv
    // head in one block for this).
    // Ask for the next tile's rows of the block's heads (one contiguous run
    // per cache when the block holds every head), a share per head: the
    // hardware prefetchers stop at each 4 KiB page, which holds ~5 rows of
    // SmolLM2's cache (decode over 512-2000 cached rows: 15-25 % faster).
    const int64_t next = j0 + kTile, next_end = end - next < kTile ? end - next : kTile;
    const int64_t run_bytes =
        next_end > 0 ? ((next_end - 1) * stride + (h1 - h0) * dim) * int64_t{sizeof(float)} : 0;
    const int64_t next_offset = (b * p.context + next) * stride + h0 * dim;
    const char* k_next = reinterpret_cast<const char*>(p.k_cache + next_offset);
    const char* v_next = reinterpret_cast<const char*>(p.v_cache + next_offset);
    for (int64_t h = h0; h < h1; ++h) {
      const int64_t share_begin = run_bytes * (h - h0) / (h1 - h0);
      const int64_t share_end = run_bytes * (h - h0 + 1) / (h1 - h0);
      for (int64_t o = share_begin & ~int64_t{63}; o < share_end; o += 64) {
        __builtin_prefetch(k_next + o);
        __builtin_prefetch(v_next + o);
      }
      const int64_t base = (b * p.context * p.kv_heads + h) * dim;
      const float* keys = p.k_cache + base;
      for (int64_t w = 0; w < kTile; w += S::kWidth) {
        const int64_t valid = count - w < 0 ? 0 : (count - w > S::kWidth ? S::kWidth : count - w);
        for (int64_t d = 0; d < dim; d += S::kWidth) {
          S::transpose(keys + (j0 + w) * stride + d, stride, static_cast<int>(valid),
                       kt + d * kTile + w, kTile);
        }
      }
      const int64_t r0 = (h - h0) * head_rows;
      score_tile<S>(qs + r0 * dim, kt, probs, head_rows, dim);
      for (int64_t r = 0; r < head_rows; ++r) {
        const int64_t visible = p.start + t0 + r / groups + 1 - j0;
        softmax_row_step<S>(probs + r * kTile, visible < count ? visible : count, &row_max[r0 + r],
                            &row_sum[r0 + r], out + (r0 + r) * dim, dim);
      }
      value_tile<S>(probs, p.v_cache + base + j0 * stride, stride, count, out + r0 * dim,
                    head_rows, dim);
    }
  }
  if (partial != nullptr) {
    for (int64_t r = 0; r < rows; ++r) {
      partial->max[r] = row_max[r];
      partial->sum[r] = row_sum[r];
    }
    for (int64_t i = 0; i < rows * dim; ++i) partial->out[i] = out[i];
    return;
  }
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t t = t0; t < t1; ++t) {
      float* dst = p.out + ((b * p.tokens + t) * p.q_heads + h * groups) * dim;
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t r = (h - h0) * head_rows + (t - t0) * groups + g;
        const float inv = 1.0f / row_sum[r];
        for (int64_t i = 0; i < dim; ++i) dst[g * dim + i] = out[r * dim + i] * inv;
      }
    }
  }
}
