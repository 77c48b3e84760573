// Winograd F(2x2, 3x3) for the int8 convolution, bit-exact (contract:
// support/int8_conv.h, int8_winograd_*). In integers, with 2G in place of
// the filter transform's G:
//
//   U'[xi] = ((2G) g (2G)^T)[xi]   |U'| <= 9 * 128     int16   once per call
//   V[xi]  = (B^T d B)[xi]         |V|  <= 4 * 255     int16   d = x - zx
//   M[xi]  = U'[xi] V[xi]          int32, exact (Cin * 1152 * 1020 < 2^31)
//   acc    = (A^T M A) / 4         exactly the direct sums (the transforms
//                                  are an identity over the rationals, and
//                                  2G makes A^T M A four times acc)
//
// then the unchanged requantization (int8_conv_requantize_run_for), so the output
// is bit for bit the im2col path's and the scalar reference's. The 16
// GEMMs run on the exact 6x16 vpmaddwd tile (x86/int8_tile_avx2.h) with
// U' in its panel layout ([pair][6] int32 pairs) and V in its strip layout
// ([pair][16] int32 pairs), written so by the transforms. Per strip of 16
// tiles a worker runs the input transform (V of every input channel, L2),
// then per weight panel the 16 GEMMs into that panel's M (6 KiB, L1) and
// the output transform from there: no phase waits on memory another wrote
// far away (a first version ran each phase over bands of 256 tiles, its M
// of 1 MiB in L3, and was 1.0-1.1x the im2col path; this one 1.7-1.8x).
// The input transform reads the zero-point-padded image copy a strip at a
// time in int16 lanes (per row and 8-tile vector two 16-byte loads, and a
// blended one more per extra tile row the vector runs into; even/odd bytes
// by pshufb); the output transform hands the exact sums of a panel's
// channels to the requantizer 16 pixels of a row at a time.
// Compiled with -mavx2 -mfma.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/optimized/conv/winograd.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/support/x86/int8_tile_avx2.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr int64_t kPoints = 16;
constexpr int64_t kRows = kInt8ConvPanelRows;  // 6
constexpr int64_t kStrip = kInt8ConvStrip;     // 16
// 4 * acc, the output transform's value before the division, must fit
// int32: |acc| <= Cin * 9 * 255 * 128 (the sums wrap harmlessly before,
// all being additions, as long as the final value fits).
constexpr int64_t kMaxWinogradCin = 1024;
// The filter transform runs per call (16 int16 points per 9 weights: too
// big to store in the file) and grows with Cin * Cout, the GEMMs with the
// tiles too: at 256 @ 14x14 (49 tiles) it is a large part of the call,
// and the whole takes 0.82-0.89x the direct u8 path's time
// (int8_winograd_bench, 1 thread, three runs); past that it would lose.
constexpr int64_t kMaxWinogradCinCout = 256 * 256;

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

// Tiles are numbered t = ty * tiles_w + tx over the whole output (tile
// (ty, tx) covers output rows 2 ty, 2 ty + 1 and columns 2 tx, 2 tx + 1);
// strip s holds tiles [16 s, 16 s + 16), as two 8-tile vectors, each made
// of runs of tiles within one tile row (Runs). A worker takes a strip at a
// time: the input transform writes the strip's V (all input channels, in
// L2), then per weight panel the 16 GEMMs write that panel's M ([16
// points][6 rows][16 tiles], 6 KiB: L1) and the output transform
// requantizes its 6 channels from there.
//
// Small maps on several threads (by_panels): a 14x14 map has 4 strips, which
// split badly over 2 workers (32 tiles vs 17), and each strip streams all of
// U' (2.1 MiB at 256 x 256 channels) that the filter transform left in
// another core's caches (at 2 threads such layers ran slower than at 1).
// There each worker takes a range of panels for every strip instead: it
// transforms only its own panels' filters, pads the image into its own copy
// and makes every strip's V itself (the input transform, duplicated, is
// small on such maps), with no wait in between.
struct Layout {
  int64_t tiles_h, tiles_w, tiles;
  int64_t strips, workers;
  bool by_panels;
  int64_t pairs, panels, wp;
  // int32 between two points' blocks of V ([pairs][16]): one cache line
  // more than the block, as 16 blocks 2 or 4 KiB apart would share L1 sets
  // and evict each other under the input transform's stores.
  int64_t v_point;
  // int32 per block of U' ([pair][6], one per panel and point): 2 more
  // than its pairs * 6, so the filter transform may store 32 bytes per
  // 24-byte pair (the next pair overwrites the excess).
  int64_t u_block;
  size_t padded, u;
  size_t worker;  // bytes of one worker's V and M
  size_t slot;    // a worker's scratch: V and M, and by_panels its padded copy
  size_t shared;  // before the slots: U', and unless by_panels the padded copy
};

// by_panels where a map has at most this many strips (on 2 threads or
// more). int8_winograd_bench at 2 threads, fastest of 30 calls, strips
// split / by_panels over four alternations: 256 @ 14 (4 strips) 1.07-1.26
// -> 0.77-0.96 ms, 128 @ 28 (13 strips) 0.92-0.98 -> 0.70-0.84 ms; in
// ResNet-18 at 2 threads (`--profile`, two runs each) its two later 256 @
// 14 layers 2.12-2.22 -> 0.94-1.03 ms and the 128 @ 28 ones 1.04-1.16 ->
// 0.84-0.96 ms. 64 @ 56 (49 strips) splits well by strips and would
// transform its input twice.
constexpr int64_t kByPanelsMaxStrips = 16;

// A worker's M: [16 points][up to 12 rows][16 tiles] int32 (a narrow
// strip's GEMMs take two panels at a time).
constexpr int64_t kMaxMRows = 2 * kRows;
constexpr int64_t kWorkerM = kPoints * kMaxMRows * kStrip;

Layout layout_of(const Int8ConvProblem& p) {
  Layout l;
  l.tiles_h = (p.out_height + 1) / 2;
  l.tiles_w = (p.out_width + 1) / 2;
  // No padding tiles: rows of 28, 14 or 7 tiles padded to whole vectors
  // had the GEMMs compute 1/7 more.
  l.tiles = l.tiles_h * l.tiles_w;
  l.strips = (l.tiles + kStrip - 1) / kStrip;
  l.pairs = (p.in_channels + 1) / 2;
  l.panels = (p.out_channels + kRows - 1) / kRows;
  const int64_t threads = static_cast<int64_t>(num_threads());
  l.by_panels = threads > 1 && l.strips <= kByPanelsMaxStrips;
  l.workers = std::max<int64_t>(1, std::min(l.by_panels ? l.panels : l.strips, threads));
  l.wp = p.width + 2 * p.pad_w;
  l.v_point = (l.pairs + 1) * kStrip;
  // The input transform of the last tile row may read one row and 18
  // bytes past the padded planes (and a last partial vector's lanes past
  // the last tile, up to 16 bytes more): a zeroed tail.
  l.padded = round_up_64(int8_conv_padded_bytes(p) + static_cast<size_t>(l.wp) + 64);
  l.u_block = l.pairs * kRows + 2;
  l.u = round_up_64(sizeof(int32_t) * kPoints * l.panels * l.u_block);
  l.worker = round_up_64(sizeof(int32_t) * (kPoints * l.v_point + kWorkerM));
  l.slot = l.worker + (l.by_panels ? l.padded : 0);
  l.shared = l.u + (l.by_panels ? 0 : l.padded);
  return l;
}

// pshufb masks by k % 4: rows 0-3 of a quad's 16-byte load into bytes
// 0-3, rows 4-5 of its 8-byte tail into bytes 4-5 (from a table: built
// with _mm_setr_epi8 of a run-time k % 4 they compiled to chains of byte
// inserts that made the filter transform cost as much as the GEMMs of a
// 256-channel layer).
alignas(16) constexpr int8_t kPickRows03[4][16] = {
    {0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {1, 5, 9, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {2, 6, 10, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {3, 7, 11, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}};
alignas(16) constexpr int8_t kPickRows45[4][16] = {
    {-1, -1, -1, -1, 0, 4, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {-1, -1, -1, -1, 1, 5, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {-1, -1, -1, -1, 2, 6, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1},
    {-1, -1, -1, -1, 3, 7, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}};

// taps[i] = the 6 rows' weight k0 + i of a panel (the panel layout of
// support/int8_conv.h: [quad][6 rows][4 k]) as int16 lanes 0-5 (lanes
// 6-7: 0), for i < 9: one input channel's 3x3 taps. Each quad is loaded
// once (16 bytes: rows 0-3, 8 bytes: rows 4-5, both inside its 24).
void channel_taps(const int8_t* panel, int64_t k0, __m128i* taps) {
  for (int64_t i = 0; i < 9;) {
    const int8_t* quad = panel + ((k0 + i) & ~int64_t{3}) * kRows;
    const __m128i rows03 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(quad));
    const __m128i rows45 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(quad + 16));
    for (int64_t j = (k0 + i) & 3; j < 4 && i < 9; ++j, ++i) {
      const __m128i pick03 = _mm_load_si128(reinterpret_cast<const __m128i*>(kPickRows03[j]));
      const __m128i pick45 = _mm_load_si128(reinterpret_cast<const __m128i*>(kPickRows45[j]));
      taps[i] = _mm_cvtepi8_epi16(
          _mm_or_si128(_mm_shuffle_epi8(rows03, pick03), _mm_shuffle_epi8(rows45, pick45)));
    }
  }
}

// U'[panel][xi][pair][6] for panels [panel_begin, panel_end): panel-major,
// the order run_strip reads it in. Per pair, both channels' taps in one
// int16 vector (channel 2 pair in lanes 0-7: rows 0-5, then 2 zeros;
// channel 2 pair + 1 in lanes 8-15), (2G) g (2G)^T with 2G = [2 0 0; 1 1
// 1; 1 -1 1; 0 0 2] on both at once (|U'| <= 9 * 128 fits int16), then
// each point's rows interleaved into the tile's (c, c + 1) int16 pairs.
void transform_filters(const Int8ConvProblem& p, const Layout& l, int64_t panel_begin,
                       int64_t panel_end, int32_t* u) {
  // Lane 0 of permute4x64(v, 0xD8) holds rows 0-3 of channel c then of
  // c + 1, lane 1 rows 4-7 of both: this interleaves each lane's halves.
  const __m256i interleave = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                              0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    const int8_t* weights = p.weight + panel * p.panel_bytes();
    for (int64_t pair = 0; pair < l.pairs; ++pair) {
      __m128i even[9], odd[9];
      channel_taps(weights, 18 * pair, even);
      // Past Cin (odd Cin): zero, and no reads (its k would pass the panel).
      if (2 * pair + 1 < p.in_channels) {
        channel_taps(weights, 18 * pair + 9, odd);
      } else {
        for (int t = 0; t < 9; ++t) odd[t] = _mm_setzero_si128();
      }
      __m256i g[9];
      for (int t = 0; t < 9; ++t) {
        g[t] = _mm256_inserti128_si256(_mm256_castsi128_si256(even[t]), odd[t], 1);
      }
      __m256i gg[4][3];  // (2G) g
      for (int j = 0; j < 3; ++j) {
        gg[0][j] = _mm256_slli_epi16(g[j], 1);
        gg[1][j] = _mm256_add_epi16(_mm256_add_epi16(g[j], g[3 + j]), g[6 + j]);
        gg[2][j] = _mm256_add_epi16(_mm256_sub_epi16(g[j], g[3 + j]), g[6 + j]);
        gg[3][j] = _mm256_slli_epi16(g[6 + j], 1);
      }
      for (int i = 0; i < 4; ++i) {
        const __m256i a = gg[i][0], b = gg[i][1], c = gg[i][2];
        const __m256i points[4] = {
            _mm256_slli_epi16(a, 1), _mm256_add_epi16(_mm256_add_epi16(a, b), c),
            _mm256_add_epi16(_mm256_sub_epi16(a, b), c), _mm256_slli_epi16(c, 1)};
        for (int j = 0; j < 4; ++j) {
          const __m256i v =
              _mm256_shuffle_epi8(_mm256_permute4x64_epi64(points[j], 0xD8), interleave);
          int32_t* dst = u + (panel * kPoints + i * 4 + j) * l.u_block + pair * kRows;
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), v);  // 24 bytes + 8 of slack
        }
      }
    }
  }
}

// The tiles [t, t + 8) of a vector (clipped at the last tile) as runs
// along tile rows: run i is tiles (ty, tx + j) in lanes lane + j, j <
// count. Three runs at most, as rows hold 4 tiles or more (out_width >= 8).
// Made once per strip; like the im2col packer's StripPlan
// (int8_conv_strips_x86.h), each run keeps where its loads start and, past
// the first, the byte mask of the lanes it blends in.
struct Runs {
  struct Run {
    int64_t ty, tx, lane, count;
    int64_t offset;  // of window row 0, column 0 of lane 0's tile in a padded plane
    __m128i mask;    // bytes >= 2 lane (runs past the first)
  };
  Run run[3];
  int n = 0;
};

Runs runs_of(const Layout& l, int64_t t) {
  Runs r;
  const int64_t end = std::min(l.tiles, t + 8);
  const __m128i bytes = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int64_t lane = 0; t < end && r.n < 3; ++r.n) {
    const int64_t ty = t / l.tiles_w, tx = t % l.tiles_w;
    const int64_t count = std::min(end - t, l.tiles_w - tx);
    const __m128i mask = _mm_cmpgt_epi8(bytes, _mm_set1_epi8(static_cast<char>(2 * lane - 1)));
    r.run[r.n] = {ty, tx, lane, count, 2 * ty * l.wp + 2 * (tx - lane), mask};
    t += count;
    lane += count;
  }
  return r;
}

// A strip's tiles: its first vector, and its second (the first again for a
// strip of 8 tiles or fewer: `vectors` 1, lanes 8-15 then computed and
// never read).
struct StripTiles {
  int64_t vectors;
  Runs vector[2];
};

StripTiles strip_tiles(const Layout& l, int64_t s) {
  StripTiles st;
  const int64_t t = s * kStrip;
  st.vectors = l.tiles - t > 8 ? 2 : 1;
  st.vector[0] = runs_of(l, t);
  st.vector[1] = st.vectors == 2 ? runs_of(l, t + 8) : st.vector[0];
  return st;
}

// Bytes [2j, 2j + 2) = columns 2c, 2c + 1 of tile j of the vector, from
// row r of its tiles' 4-row input windows. One load for a single run;
// each later run's tiles are blended in from a load placed so that its
// first tile lands on its lane (reading up to 14 bytes before its row,
// inside the padded copy: a later run's row is never the first).
inline __m128i window_row(const Layout& l, const int8_t* plane, const Runs& runs, int64_t r,
                          int64_t c) {
  const int8_t* at = plane + r * l.wp + 2 * c;
  __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + runs.run[0].offset));
  for (int i = 1; i < runs.n; ++i) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + runs.run[i].offset));
    v = _mm_blendv_epi8(v, w, runs.run[i].mask);
  }
  return v;
}

// d columns 0-3 (minus zx) of a strip's 16 tiles as int16, in tile order
// (128-bit lane 0: the first 8-tile vector, lane 1: the second), from one
// row of their windows: a_* holds columns 0-1 of each tile, b_* columns
// 2-3 (window_row of each vector).
inline void strip_columns(__m128i a_first, __m128i a_second, __m128i b_first, __m128i b_second,
                          __m256i zx, __m256i* d) {
  // Per lane: the even bytes (column 0 or 2 of each tile), then the odd.
  const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                                         0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  const __m256i a = _mm256_shuffle_epi8(
      _mm256_inserti128_si256(_mm256_castsi128_si256(a_first), a_second, 1), split);
  const __m256i b = _mm256_shuffle_epi8(
      _mm256_inserti128_si256(_mm256_castsi128_si256(b_first), b_second, 1), split);
  // Sign-extend by interleaving each byte with its sign.
  const __m256i sign_a = _mm256_cmpgt_epi8(_mm256_setzero_si256(), a);
  const __m256i sign_b = _mm256_cmpgt_epi8(_mm256_setzero_si256(), b);
  d[0] = _mm256_sub_epi16(_mm256_unpacklo_epi8(a, sign_a), zx);
  d[1] = _mm256_sub_epi16(_mm256_unpackhi_epi8(a, sign_a), zx);
  d[2] = _mm256_sub_epi16(_mm256_unpacklo_epi8(b, sign_b), zx);
  d[3] = _mm256_sub_epi16(_mm256_unpackhi_epi8(b, sign_b), zx);
}

// The 16 points of B^T d B (int16: |V| <= 4 * 255) for a strip's 16 tiles
// of padded plane `plane` (zero everywhere for a missing plane).
void input_points(const Layout& l, const int8_t* plane, const StripTiles& st, __m256i zx,
                  __m256i* out) {
  if (plane == nullptr) {
    for (int i = 0; i < 16; ++i) out[i] = _mm256_setzero_si256();
    return;
  }
  __m256i d[4][4];
  for (int r = 0; r < 4; ++r) {
    const Runs &first = st.vector[0], &second = st.vector[1];
    strip_columns(window_row(l, plane, first, r, 0), window_row(l, plane, second, r, 0),
                  window_row(l, plane, first, r, 1), window_row(l, plane, second, r, 1), zx, d[r]);
  }
  __m256i t[4][4];
  for (int c = 0; c < 4; ++c) {
    t[0][c] = _mm256_sub_epi16(d[0][c], d[2][c]);
    t[1][c] = _mm256_add_epi16(d[1][c], d[2][c]);
    t[2][c] = _mm256_sub_epi16(d[2][c], d[1][c]);
    t[3][c] = _mm256_sub_epi16(d[1][c], d[3][c]);
  }
  for (int i = 0; i < 4; ++i) {
    out[i * 4 + 0] = _mm256_sub_epi16(t[i][0], t[i][2]);
    out[i * 4 + 1] = _mm256_add_epi16(t[i][1], t[i][2]);
    out[i * 4 + 2] = _mm256_sub_epi16(t[i][2], t[i][1]);
    out[i * 4 + 3] = _mm256_sub_epi16(t[i][1], t[i][3]);
  }
}

// V for input channels 2 pair, 2 pair + 1 of a strip (lanes past the
// last tile hold whatever the loads read; their sums are never used):
// point xi's block at v + xi * v_point, [pair][16 tiles] (c, c + 1) int16
// pairs.
void transform_input(const Int8ConvProblem& p, const Layout& l, const Int8ConvSource& src,
                     int64_t pair, const StripTiles& st, int32_t* v) {
  const __m256i zx = _mm256_set1_epi16(static_cast<int16_t>(p.in_zero_point));
  const int8_t* plane0 = src.planes + 2 * pair * src.plane_stride;
  const int8_t* plane1 = 2 * pair + 1 < p.in_channels ? plane0 + src.plane_stride : nullptr;
  __m256i a[16], b[16];
  input_points(l, plane0, st, zx, a);
  input_points(l, plane1, st, zx, b);
  int32_t* dst = v + pair * kStrip;
  for (int xi = 0; xi < 16; ++xi) {
    // Per lane: tiles 0-3 (8-11) and 4-7 (12-15) as pairs.
    const __m256i lo = _mm256_unpacklo_epi16(a[xi], b[xi]);
    const __m256i hi = _mm256_unpackhi_epi16(a[xi], b[xi]);
    int8_tile::store256(dst + xi * l.v_point, _mm256_permute2x128_si256(lo, hi, 0x20));
    int8_tile::store256(dst + xi * l.v_point + 8, _mm256_permute2x128_si256(lo, hi, 0x31));
  }
}

// Output channels [co, co + count) (count <= m_rows <= 12: one panel's,
// or two for a narrow strip; their M in m, [16 points][m_rows][16 tiles])
// of image n for the strip's tiles: the exact sums
// (A^T M A) / 4 with A^T = [1 1 1 0; 0 1 -1 -1], requantized 16 pixels of
// a row at a time, all `count` channels in one call (the requantizer sets
// up its constants per call: per channel pair, they cost as much as the
// rest of this transform).
void transform_output(const Int8ConvProblem& p, const int32_t* m, int64_t m_rows, int64_t co,
                      int64_t count, int64_t n, const StripTiles& st,
                      Int8RequantizeRun requantize) {
  // [output row][channel][16 pixels], and slack for the requantizer's
  // 16-lane reads of a run that starts at lane j (from rows + 2j).
  alignas(32) int32_t rows[2 * kMaxMRows * kStrip + kStrip];
  for (int64_t vec = 0; vec < st.vectors; ++vec) {
    for (int64_t ch = 0; ch < count; ++ch) {
      const int32_t* point0 = m + ch * kStrip + 8 * vec;
      __m256i q[16];
      for (int xi = 0; xi < 16; ++xi) {
        q[xi] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(point0 + xi * m_rows * kStrip));
      }
      __m256i r[2][4];
      for (int j = 0; j < 4; ++j) {
        r[0][j] = _mm256_add_epi32(_mm256_add_epi32(q[j], q[4 + j]), q[8 + j]);
        r[1][j] = _mm256_sub_epi32(_mm256_sub_epi32(q[4 + j], q[8 + j]), q[12 + j]);
      }
      for (int i = 0; i < 2; ++i) {
        const __m256i left = _mm256_srai_epi32(
            _mm256_add_epi32(_mm256_add_epi32(r[i][0], r[i][1]), r[i][2]), 2);
        const __m256i right = _mm256_srai_epi32(
            _mm256_sub_epi32(_mm256_sub_epi32(r[i][1], r[i][2]), r[i][3]), 2);
        const __m256i lo = _mm256_unpacklo_epi32(left, right);
        const __m256i hi = _mm256_unpackhi_epi32(left, right);
        int32_t* row = rows + (i * count + ch) * kStrip;
        int8_tile::store256(row, _mm256_permute2x128_si256(lo, hi, 0x20));
        int8_tile::store256(row + 8, _mm256_permute2x128_si256(lo, hi, 0x31));
      }
    }
    const Runs& runs = st.vector[vec];
    for (int k = 0; k < runs.n; ++k) {
      const Runs::Run& run = runs.run[k];
      const int64_t cols = std::min(2 * run.count, p.out_width - 2 * run.tx);
      for (int64_t i = 0; i < 2 && 2 * run.ty + i < p.out_height; ++i) {
        requantize(p, rows + i * count * kStrip + 2 * run.lane, co, count, n,
                   (2 * run.ty + i) * p.out_width + 2 * run.tx, cols);
      }
    }
  }
}

// Strip s of image n: V, then per panel its M and its outputs. `v` and
// `m` are the worker's (Layout::worker bytes). A narrow strip (8 tiles or
// fewer: the last of a 14x14 output holds 1 of its 49) runs the
// half-width tile on two panels at a time, half the multiplies of the
// 16-lane one.
void run_strip(const Int8ConvProblem& p, const Layout& l, const Int8ConvSource& src,
               const int32_t* u, int64_t n, int64_t s, int64_t panel_begin, int64_t panel_end,
               int32_t* v, int32_t* m, Int8RequantizeRun requantize) {
  const StripTiles st = strip_tiles(l, s);
  for (int64_t pair = 0; pair < l.pairs; ++pair) transform_input(p, l, src, pair, st, v);
  if (st.vectors == 1) {
    for (int64_t panel = panel_begin; panel < panel_end; panel += 2) {
      const bool two = panel + 1 < panel_end;
      const int64_t co = panel * kRows;
      const int64_t count = std::min((two ? 2 : 1) * kRows, p.out_channels - co);
      const int64_t second_panel = two ? panel + 1 : panel;
      for (int64_t xi = 0; xi < kPoints; ++xi) {
        int8_tile::tile_half(u + (panel * kPoints + xi) * l.u_block,
                             u + (second_panel * kPoints + xi) * l.u_block,
                             reinterpret_cast<const int16_t*>(v + xi * l.v_point), l.pairs, count,
                             m + xi * count * kStrip, false);
      }
      transform_output(p, m, count, co, count, n, st, requantize);
    }
    return;
  }
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    for (int64_t xi = 0; xi < kPoints; ++xi) {
      int8_tile::tile(u + (panel * kPoints + xi) * l.u_block,
                      reinterpret_cast<const int16_t*>(v + xi * l.v_point), l.pairs,
                      m + xi * kRows * kStrip, false);
    }
    const int64_t co = panel * kRows;
    transform_output(p, m, kRows, co, std::min(kRows, p.out_channels - co), n, st, requantize);
  }
}

}  // namespace

bool int8_winograd_applies(const Int8ConvProblem& p) {
  // Not on AVX-512 VNNI: there the direct vpdpbusd convolution is 2.5-3x
  // faster than this int16 Winograd (int8_winograd_bench: 64 @ 56, 128 @
  // 28, 256 @ 14 on 1 thread). On AVX2 it beats both direct paths, 7-bit
  // weights' u8 one included: its vpmaddwd products run at 0.8-0.9x the rate
  // of the u8 path's vpmaddubsw + vpmaddwd on Zen 3 (build/int8_mac_peak:
  // 1.57-1.65x vs 1.82-1.97x the float FMA rate), and it needs 2.25x fewer
  // (int8_winograd_bench, three runs, 1 thread:
  // 64 @ 56 0.66-0.72x the u8 path's time, 128 @ 28 0.68-0.72x, 256 @ 14
  // 0.82-0.89x).
  return quant_isa() == QuantIsa::kAvx2 && p.kernel_h == 3 && p.kernel_w == 3 &&
         p.stride_h == 1 && p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1 &&
         p.groups == 1 && p.in_channels >= 8 && p.in_channels <= kMaxWinogradCin &&
         p.out_channels >= 8 && p.out_height >= 8 && p.out_width >= 8 &&
         p.in_channels * p.out_channels <= kMaxWinogradCinCout &&
         optimized::detail::winograd_enabled();
}

size_t int8_winograd_scratch_bytes(const Int8ConvProblem& p) {
  const Layout l = layout_of(p);
  return l.shared + static_cast<size_t>(l.workers) * l.slot;
}

// by_panels (Layout): worker w owns panels [P w / W, P (w + 1) / W) for
// every image and strip, its slot its V, M and padded copy.
void run_by_panels(const Int8ConvProblem& p, const Layout& l, void* scratch,
                   Int8RequantizeRun requantize) {
  int32_t* u = static_cast<int32_t*>(scratch);
  char* slots = static_cast<char*>(scratch) + l.shared;
  const size_t copy_bytes = int8_conv_padded_bytes(p);
  parallel_for(0, l.workers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w) {
      char* slot = slots + static_cast<size_t>(w) * l.slot;
      int32_t* v = reinterpret_cast<int32_t*>(slot);
      int32_t* m = v + kPoints * l.v_point;
      int8_t* padded = reinterpret_cast<int8_t*>(slot + l.worker);
      std::memset(padded + copy_bytes, 0, l.padded - copy_bytes);
      const int64_t pb = l.panels * w / l.workers, pe = l.panels * (w + 1) / l.workers;
      transform_filters(p, l, pb, pe, u);
      const Int8ConvSource src = int8_conv_padded_source(p, padded);
      for (int64_t n = 0; n < p.batch; ++n) {
        int8_conv_pad_image(p, n, 0, p.in_channels, padded);
        for (int64_t s = 0; s < l.strips; ++s) {
          run_strip(p, l, src, u, n, s, pb, pe, v, m, requantize);
        }
      }
    }
  });
}

void run_int8_winograd(const Int8ConvProblem& p, void* scratch) {
  const Layout l = layout_of(p);
  if (l.by_panels) return run_by_panels(p, l, scratch, int8_conv_requantize_run_for(p));
  char* base = static_cast<char*>(scratch);
  int8_t* padded = reinterpret_cast<int8_t*>(base);
  int32_t* u = reinterpret_cast<int32_t*>(base + l.padded);
  char* slots = base + l.shared;
  const Int8RequantizeRun requantize = int8_conv_requantize_run_for(p);
  const size_t copy_bytes = int8_conv_padded_bytes(p);
  std::memset(padded + copy_bytes, 0, l.padded - copy_bytes);
  const Int8ConvSource src = int8_conv_padded_source(p, padded);
  for (int64_t n = 0; n < p.batch; ++n) {
    // The filters (first image) and this image's padded copy, one region.
    const int64_t filter_items = n == 0 ? l.panels : 0;
    parallel_for(0, filter_items + p.in_channels, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if (i < filter_items) {
          transform_filters(p, l, i, i + 1, u);
        } else {
          int8_conv_pad_image(p, n, i - filter_items, i - filter_items + 1, padded);
        }
      }
    });
    // The strips split once over the workers, each with its own V and M.
    parallel_for(0, l.workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t w = begin; w < end; ++w) {
        char* slot = slots + static_cast<size_t>(w) * l.slot;
        int32_t* v = reinterpret_cast<int32_t*>(slot);
        int32_t* m = v + kPoints * l.v_point;
        for (int64_t s = l.strips * w / l.workers; s < l.strips * (w + 1) / l.workers; ++s) {
          run_strip(p, l, src, u, n, s, 0, l.panels, v, m, requantize);
        }
      }
    });
  }
}

}  // namespace quantized
}  // namespace torchedge
