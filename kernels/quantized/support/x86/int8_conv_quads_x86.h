// torchedge/kernels/quantized/support/x86/int8_conv_quads_x86.h
//
// How the u8 x s8 int8 convolution paths pack a strip's im2col rows: four
// rows k .. k + 3 interleaved bytewise into [16 px][4 k] quads of u8
// (x + 128, i.e. x xor 0x80), 64 bytes per quad, the operand layout of
// one vpdpbusd (AVX-512 VNNI, int8_conv_avx512vnni.cpp) or one vpmaddubsw +
// vpmaddwd pair (AVX2 with 7-bit weights, int8_conv_u8_avx2.cpp). Included
// inside each unit's anonymous namespace after int8_conv_strips_x86.h, like
// that header (one copy per ISA). SSE / AVX2 code only. Also the worker
// scratch both paths carve: packed strips, im2col row pointers, int32 sums.
// Needs kStrip and kRows.

constexpr int64_t kQuadBytes = 4 * kRows;  // one quad of a panel: 6 rows x 4 k

// Rows k .. k + 3 of a strip (16 int8 each) into one quad of b: 16 pixels x
// 4 k, shifted to u8 (x + 128).
inline void store_quad(__m128i r0, __m128i r1, __m128i r2, __m128i r3, uint8_t* b) {
  const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
  const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i lo = _mm256_set_m128i(_mm_unpackhi_epi16(lo01, lo23), _mm_unpacklo_epi16(lo01, lo23));
  const __m256i hi = _mm256_set_m128i(_mm_unpackhi_epi16(hi01, hi23), _mm_unpacklo_epi16(hi01, hi23));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b), _mm256_xor_si256(lo, flip));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + 32), _mm256_xor_si256(hi, flip));
}

// The strip's quads [q0, q0 + block) into b ([quad][16][4] u8). rows[k -
// 4 q0]: the base of row k (row_bases). Rows k >= K meet zero weights: any
// value will do.
void pack_block(const Int8ConvProblem& p, const StripPlan& sp, const int8_t* const* rows,
                int64_t q0, int64_t block, uint8_t* b) {
  const int64_t rows_left = p.k() - 4 * q0;
  const int64_t full = std::min(block, rows_left / 4);
  int64_t q = 0;
  if (sp.mode == RowMode::kStride1 && sp.nseg == 1) {
    const int64_t off = sp.seg_offset[0];
    for (; q < full; ++q) {
      const int8_t* const* r = rows + 4 * q;
      store_quad(load128(r[0] + off), load128(r[1] + off), load128(r[2] + off),
                 load128(r[3] + off), b + q * 64);
    }
  } else {
    for (; q < full; ++q) {
      const int8_t* const* r = rows + 4 * q;
      store_quad(strip_row(sp, r[0]), strip_row(sp, r[1]), strip_row(sp, r[2]),
                 strip_row(sp, r[3]), b + q * 64);
    }
  }
  for (; q < block; ++q) {  // the last quad, when K % 4 != 0
    __m128i r[4];
    for (int64_t i = 0; i < 4; ++i) {
      r[i] = 4 * q + i < rows_left ? strip_row(sp, rows[4 * q + i]) : _mm_setzero_si128();
    }
    store_quad(r[0], r[1], r[2], r[3], b + q * 64);
  }
}

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

// One worker's scratch for chunks of `chunk_strips` strips: K blocks of up
// to 192 quads (12 KiB of packed strip each), the row pointers of a block,
// the int32 sums [strip][Cout_g rounded to 6][16].
struct WorkerLayout {
  int64_t block, mpad;
  size_t b_bytes, rows_bytes, c_bytes;
};

WorkerLayout layout_of(const Int8ConvProblem& p, int64_t chunk_strips) {
  WorkerLayout l;
  l.block = std::min(kInt8ConvBlockPairs, p.k_quads());  // 192 quads: 12 KiB per strip
  l.mpad = p.panels() * kRows;
  l.b_bytes = round_up_64(static_cast<size_t>(chunk_strips * l.block * 64));
  l.rows_bytes = round_up_64(static_cast<size_t>(l.block * 4) * sizeof(const int8_t*));
  l.c_bytes = static_cast<size_t>(chunk_strips * l.mpad * kStrip) * sizeof(int32_t);
  return l;
}

size_t worker_bytes_of(const Int8ConvProblem& p, int64_t chunk_strips) {
  const WorkerLayout l = layout_of(p, chunk_strips);
  return l.b_bytes + l.rows_bytes + l.c_bytes;
}

// A worker's chunk (strips [strip_begin, strip_end) of group g): its
// scratch carved per layout_of, the group's panels, row sums (or nullptr)
// and input planes, and the strips' plans.
struct QuadChunk {
  WorkerLayout l;
  uint8_t* b;           // the strips' packed blocks, b_stride apart
  const int8_t** rows;  // the im2col row bases of one K block
  int32_t* c;           // int32 sums [strip][mpad][16], c_stride apart
  const int8_t* group_quads;
  const int32_t* group_sums;
  const int8_t* group_planes;
  int32_t shift;  // zx + 128
  int64_t strip_begin, strip_end, b_stride, c_stride;
  StripPlan plans[kInt8ConvMaxChunkStrips];

  QuadChunk(const Int8ConvProblem& p, const Int8ConvSource& src, const int32_t* row_sums,
            int64_t g, int64_t strip_begin_, int64_t strip_end_, void* worker_scratch)
      : l(layout_of(p, strip_end_ - strip_begin_)), strip_begin(strip_begin_),
        strip_end(strip_end_) {
    char* scratch = static_cast<char*>(worker_scratch);
    b = reinterpret_cast<uint8_t*>(scratch);
    rows = reinterpret_cast<const int8_t**>(scratch + l.b_bytes);
    c = reinterpret_cast<int32_t*>(scratch + l.b_bytes + l.rows_bytes);
    group_quads = p.weight + g * p.panels() * p.panel_bytes();
    group_sums = row_sums != nullptr ? row_sums + g * p.panels() * kRows : nullptr;
    group_planes = src.planes + g * p.cin_g() * src.plane_stride;
    shift = p.in_zero_point + 128;
    b_stride = l.block * 64;
    c_stride = l.mpad * kStrip;
  }

  // K block [q0, q0 + block): the im2col row bases of its quads, then each
  // strip's packed block (the plans are made with the first block).
  void pack(const Int8ConvProblem& p, const Int8ConvSource& src, int64_t q0, int64_t block) {
    row_bases(p, src, group_planes, 4 * q0, std::min(4 * (q0 + block), p.k()), rows);
    for (int64_t s = strip_begin; s < strip_end; ++s) {
      StripPlan& sp = plans[s - strip_begin];
      if (q0 == 0) plan_strip(p, src, s, &sp);
      pack_block(p, sp, rows, q0, block, b + (s - strip_begin) * b_stride);
    }
  }

  // Panel pn's accumulator start per row: -(zx + 128) * (the row's weight
  // sum) for the u8 operand x + 128, or 0 without sums.
  void panel_init(int64_t pn, int32_t* init) const {
    for (int64_t r = 0; r < kRows; ++r) {
      init[r] = group_sums != nullptr ? -shift * group_sums[pn * kRows + r] : 0;
    }
  }
};
