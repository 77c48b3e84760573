// torchedge/kernels/quantized/support/x86/int8_conv_strips_x86.h
//
// How the x86 int8 convolutions read one 16-pixel output strip's im2col
// rows from the source planes (support/int8_conv.h's Int8ConvSource), shared
// by the AVX2 (int8_conv_avx2.cpp) and the AVX-512 VNNI
// (int8_conv_avx512vnni.cpp) paths. Each translation unit includes this
// inside its anonymous namespace, so each gets its own copy compiled for
// its ISA (one shared inline definition could be linked from the AVX-512
// unit into an AVX2-only machine's path). SSE4.1 / AVX2 code only.
//
//   plan_strip: where the strip's 16 lanes read relative to a row's base;
//   row_bases:  the base (plane c, tap kh, kw) of each im2col row k;
//   strip_row:  row k of the strip, 16 int8 (one load per output row the
//               strip touches when the stride is 1 or 2, else a gather).
// Needs kStrip (= kInt8ConvStrip) and <immintrin.h>, <algorithm>.

inline __m128i load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

enum class RowMode { kStride1, kStride2, kGather };

// Where the 16 lanes of one strip read, relative to the (c, kh, kw) base
// of a k row: lane j of segment s (the pixels in one output row) reads
// base[seg_offset[s] + j * stride_w].
struct StripPlan {
  RowMode mode;
  int nseg;
  int64_t seg_offset[kStrip];
  __m128i seg_mask[kStrip];   // lanes >= segment s's first lane (s >= 1)
  int64_t lane_offset[kStrip];  // kGather: per lane
};

// Fills `out` in place (a StripPlan is ~0.5 KiB: no copies per strip).
inline void plan_strip(const Int8ConvProblem& p, const Int8ConvSource& src, int64_t s, StripPlan* out) {
  StripPlan& sp = *out;
  const int64_t p0 = s * kStrip, cols = std::min(kStrip, p.pixels() - p0);
  if (src.flat) {
    // The plane is the B matrix; a partial last strip gathers (a full load
    // could run past the input tensor).
    sp.nseg = 1;
    sp.seg_offset[0] = p0;
    sp.mode = cols == kStrip ? RowMode::kStride1 : RowMode::kGather;
    for (int64_t j = 0; j < kStrip; ++j) sp.lane_offset[j] = p0 + std::min(j, cols - 1);
    return;
  }
  sp.mode = p.stride_w == 1 ? RowMode::kStride1
                            : (p.stride_w == 2 ? RowMode::kStride2 : RowMode::kGather);
  sp.nseg = 0;
  int64_t j = 0;
  while (j < cols) {
    const int64_t pix = p0 + j, oh = pix / p.out_width, ow = pix % p.out_width;
    const int64_t run = std::min(cols - j, p.out_width - ow);
    const int64_t offset = oh * p.stride_h * src.row_stride + (ow - j) * p.stride_w;
    if (sp.nseg > 0) {
      alignas(16) int8_t mask[kStrip];
      for (int64_t l = 0; l < kStrip; ++l) mask[l] = l >= j ? -1 : 0;
      sp.seg_mask[sp.nseg] = _mm_load_si128(reinterpret_cast<const __m128i*>(mask));
    }
    sp.seg_offset[sp.nseg++] = offset;
    for (int64_t l = j; l < j + run; ++l) sp.lane_offset[l] = offset + l * p.stride_w;
    j += run;
  }
  for (int64_t l = cols; l < kStrip; ++l) sp.lane_offset[l] = sp.lane_offset[cols - 1];
}

// Row k of the strip (16 int8) from base = plane c + kh * dh * row_stride + kw * dw.
inline __m128i strip_row(const StripPlan& sp, const int8_t* base) {
  switch (sp.mode) {
    case RowMode::kStride1: {
      __m128i v = load128(base + sp.seg_offset[0]);
      for (int s = 1; s < sp.nseg; ++s) {
        v = _mm_blendv_epi8(v, load128(base + sp.seg_offset[s]), sp.seg_mask[s]);
      }
      return v;
    }
    case RowMode::kStride2: {
      const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1);
      __m128i v = _mm_setzero_si128();
      for (int s = 0; s < sp.nseg; ++s) {
        const int8_t* q = base + sp.seg_offset[s];
        const __m128i w = _mm_unpacklo_epi64(_mm_shuffle_epi8(load128(q), even),
                                             _mm_shuffle_epi8(load128(q + 16), even));
        v = s == 0 ? w : _mm_blendv_epi8(v, w, sp.seg_mask[s]);
      }
      return v;
    }
    case RowMode::kGather:
    default: {
      alignas(16) int8_t row[kStrip];
      for (int64_t j = 0; j < kStrip; ++j) row[j] = base[sp.lane_offset[j]];
      return _mm_load_si128(reinterpret_cast<const __m128i*>(row));
    }
  }
}

// The base of each row k in [k_begin, k_end) of a group (group_planes: its
// first input plane): plane c + kh * dh * row_stride + kw * dw, the same for
// every strip; rows[k - k_begin].
inline void row_bases(const Int8ConvProblem& p, const Int8ConvSource& src,
                      const int8_t* group_planes, int64_t k_begin, int64_t k_end,
                      const int8_t** rows) {
  const int64_t taps = p.kernel_h * p.kernel_w;
  int64_t k = k_begin;
  int64_t c = k / taps, kh = (k % taps) / p.kernel_w, kw = k % p.kernel_w;
  for (; k < k_end; ++k) {
    rows[k - k_begin] = group_planes + c * src.plane_stride +
                        kh * p.dilation_h * src.row_stride + kw * p.dilation_w;
    if (++kw == p.kernel_w) {
      kw = 0;
      if (++kh == p.kernel_h) {
        kh = 0;
        ++c;
      }
    }
  }
}
