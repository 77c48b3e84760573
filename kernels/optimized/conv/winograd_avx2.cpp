// F(2x2, 3x3) Winograd convolution, AVX2 build (contract: conv/winograd.h).
// The input and output transforms run 8 tiles at a time, one tile per
// lane: 8 neighbouring tiles of a tile row read 18 consecutive input
// columns per input row, split into the tiles' 4 columns by even/odd
// deinterleaves; the output transform interleaves the tiles' two output
// columns back into 16 consecutive pixels. On AVX-512 CPUs maps at least
// kWinogradAvx512MinTiles tiles wide take both transforms 16 tiles at a
// time instead (winograd_avx512.cpp). Compiled with -mavx2 -mfma.
#include <immintrin.h>

#include <atomic>
#include <cstring>

#include "kernels/optimized/conv/winograd.h"
#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
namespace detail {
namespace {

constexpr int64_t kPoints = 16;  // the 4x4 transform
// Tiles per band: the GEMMs' N. Larger bands amortize the per-GEMM packing
// of U; smaller ones keep V and M in L2/L3 (ResNet-50's 56x56 layers: 7 of
// 28 tile rows, 196 tiles, V and M 0.8 MB each).
constexpr int64_t kBandTiles = 256;
// Scratch for V and M together, beyond which bands get shorter.
constexpr int64_t kBandBytes = int64_t{4} << 20;

// All-ones lanes where v is an infinity or NaN (v - v is NaN there, 0 else).
inline __m256 nonfinite_lanes(__m256 v) {
  return _mm256_cmp_ps(_mm256_sub_ps(v, v), _mm256_setzero_ps(), _CMP_NEQ_UQ);
}

// Lanes [0, n) set.
inline __m256i first_lanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

struct Geometry {
  const Conv2dShape* s;
  int64_t tiles_h, tiles_w;
};

// U[xi][co][ci] = (G g G^T)[xi] for the filters of output channels
// [co0, co1) (U[xi] `plane` floats apart), with
// G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]; 8 input
// channels per vector (their 72 taps are contiguous: a gather per tap), so
// each U row is written 8 floats at a time. Returns false when a filter
// holds an infinity or NaN.
bool transform_filters(const Conv2dShape& s, const float* w, int64_t co0, int64_t co1,
                       int64_t plane, float* u) {
  const int64_t cin = s.in_channels;
  __m256 nonfinite = _mm256_setzero_ps();
  const __m256i taps9 = _mm256_setr_epi32(0, 9, 18, 27, 36, 45, 54, 63);
  const __m256 half = _mm256_set1_ps(0.5f);
  for (int64_t co = co0; co < co1; ++co) {
    for (int64_t ci = 0; ci < cin; ci += 8) {
      const int64_t lanes = cin - ci < 8 ? cin - ci : 8;
      const float* g = w + (co * cin + ci) * 9;
      __m256 k[9];
      if (lanes == 8) {
        // The gathers stall on memory without this: the next blocks' 288
        // bytes, a few blocks ahead.
        for (int line = 0; line < 5; ++line) {
          _mm_prefetch(reinterpret_cast<const char*>(g + 4 * 72 + line * 16), _MM_HINT_T0);
        }
        for (int t = 0; t < 9; ++t) k[t] = _mm256_i32gather_ps(g + t, taps9, 4);
      } else {
        alignas(32) float part[9][8] = {};
        for (int64_t l = 0; l < lanes; ++l) {
          for (int t = 0; t < 9; ++t) part[t][l] = g[l * 9 + t];
        }
        for (int t = 0; t < 9; ++t) k[t] = _mm256_load_ps(part[t]);
      }
      for (int t = 0; t < 9; ++t) nonfinite = _mm256_or_ps(nonfinite, nonfinite_lanes(k[t]));
      __m256 gg[4][3];  // G g
      for (int j = 0; j < 3; ++j) {
        gg[0][j] = k[j];
        gg[1][j] = _mm256_mul_ps(half, _mm256_add_ps(_mm256_add_ps(k[j], k[3 + j]), k[6 + j]));
        gg[2][j] = _mm256_mul_ps(half, _mm256_add_ps(_mm256_sub_ps(k[j], k[3 + j]), k[6 + j]));
        gg[3][j] = k[6 + j];
      }
      const __m256i mask = first_lanes(lanes);
      float* out = u + co * cin + ci;
      for (int i = 0; i < 4; ++i) {  // (G g) G^T, row i
        const __m256 a = gg[i][0], b = gg[i][1], c = gg[i][2];
        const __m256 row[4] = {a, _mm256_mul_ps(half, _mm256_add_ps(_mm256_add_ps(a, b), c)),
                               _mm256_mul_ps(half, _mm256_add_ps(_mm256_sub_ps(a, b), c)), c};
        for (int j = 0; j < 4; ++j) {
          float* dst = out + (i * 4 + j) * plane;
          if (lanes == 8) {
            _mm256_storeu_ps(dst, row[j]);
          } else {
            _mm256_maskstore_ps(dst, mask, row[j]);  // slow on AMD: only a ragged Cin's last 8
          }
        }
      }
    }
  }
  return _mm256_testz_ps(nonfinite, nonfinite) != 0;
}

// The 16 floats at p + 2 (x2 .. x17) from the 24 at p: lo = x0..x7,
// mid = x8..x15, hi = x16..x23 (within-lane byte shifts of the pairs).
inline void shift2(__m256 lo, __m256 mid, __m256 hi, __m256* a, __m256* b) {
  const __m256 lo_mid = _mm256_permute2f128_ps(lo, mid, 0x21);  // x4..x11
  const __m256 mid_hi = _mm256_permute2f128_ps(mid, hi, 0x21);  // x12..x19
  *a = _mm256_castsi256_ps(
      _mm256_alignr_epi8(_mm256_castps_si256(lo_mid), _mm256_castps_si256(lo), 8));
  *b = _mm256_castsi256_ps(
      _mm256_alignr_epi8(_mm256_castps_si256(mid_hi), _mm256_castps_si256(mid), 8));
}

// Even / odd elements of the 16 floats lo, hi.
inline __m256 evens(__m256 lo, __m256 hi) {
  const __m256 e = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0)));
}
inline __m256 odds(__m256 lo, __m256 hi) {
  const __m256 o = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0)));
}

// V[xi][c][t] = (B^T d B)[xi] for the tiles of tile rows [ty0, ty1) (t
// counts from the band's first tile) of input channel c's plane, with
// B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], v pointing at V[0][c][0];
// point_stride: floats between V[xi] and V[xi + 1]. 8 tiles read the 18
// input columns [x0, x0 + 18) of each of their 4 rows as three vectors,
// masked where they leave the plane (masked lanes read nothing). Returns
// false when the plane holds an infinity or NaN (see conv2d_winograd_avx2).
bool transform_input(const Geometry& g, const float* plane, int64_t ty0, int64_t ty1, float* v,
                     int64_t point_stride) {
  const Conv2dShape& s = *g.s;
  __m256 nonfinite = _mm256_setzero_ps();
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int64_t last = (ty1 - ty0) * g.tiles_w;  // tiles in the band
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    for (int64_t tx = 0; tx < g.tiles_w; tx += 8) {
      const int64_t x0 = 2 * tx - s.pad_w;
      const bool inside = x0 >= 0 && x0 + 24 <= s.in_w;
      // Lane j of vector q is column x0 + 8 q + j: valid in [0, W).
      __m256i valid[3];
      for (int q = 0; q < 3 && !inside; ++q) {
        const __m256i col = _mm256_add_epi32(lane, _mm256_set1_epi32(static_cast<int>(x0 + 8 * q)));
        valid[q] = _mm256_and_si256(
            _mm256_cmpgt_epi32(col, _mm256_set1_epi32(-1)),
            _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(s.in_w)), col));
      }
      __m256 d[4][4];
      for (int r = 0; r < 4; ++r) {
        const int64_t iy = 2 * ty - s.pad_h + r;
        if (iy < 0 || iy >= s.in_h) {
          for (int c = 0; c < 4; ++c) d[r][c] = _mm256_setzero_ps();
          continue;
        }
        const float* seg = plane + iy * s.in_w + x0;
        __m256 x[3];
        for (int q = 0; q < 3; ++q) {
          x[q] = inside ? _mm256_loadu_ps(seg + 8 * q) : _mm256_maskload_ps(seg + 8 * q, valid[q]);
          nonfinite = _mm256_or_ps(nonfinite, nonfinite_lanes(x[q]));
        }
        __m256 y0, y1;
        shift2(x[0], x[1], x[2], &y0, &y1);
        d[r][0] = evens(x[0], x[1]);
        d[r][1] = odds(x[0], x[1]);
        d[r][2] = evens(y0, y1);
        d[r][3] = odds(y0, y1);
      }
      // Rows: t[i][c] = (B^T d)[i][c]; then columns of each row.
      __m256 t[4][4];
      for (int c = 0; c < 4; ++c) {
        t[0][c] = _mm256_sub_ps(d[0][c], d[2][c]);
        t[1][c] = _mm256_add_ps(d[1][c], d[2][c]);
        t[2][c] = _mm256_sub_ps(d[2][c], d[1][c]);
        t[3][c] = _mm256_sub_ps(d[1][c], d[3][c]);
      }
      // Lanes past the row's last tile land on the next row's first tiles,
      // which are written after them; only the band's last 8 are masked
      // (past them is the next channel's row, another thread's).
      const int64_t at = (ty - ty0) * g.tiles_w + tx;
      const bool ragged = at + 8 > last;
      const __m256i mask = first_lanes(last - at);
      float* out = v + at;
      for (int i = 0; i < 4; ++i) {
        const __m256 p[4] = {_mm256_sub_ps(t[i][0], t[i][2]), _mm256_add_ps(t[i][1], t[i][2]),
                             _mm256_sub_ps(t[i][2], t[i][1]), _mm256_sub_ps(t[i][1], t[i][3])};
        for (int j = 0; j < 4; ++j) {
          float* dst = out + (i * 4 + j) * point_stride;
          if (ragged) {
            _mm256_maskstore_ps(dst, mask, p[j]);
          } else {
            _mm256_storeu_ps(dst, p[j]);
          }
        }
      }
    }
  }
  return _mm256_testz_ps(nonfinite, nonfinite) != 0;
}

struct Epilogue {
  float bias;
  const float* residual;  // channel co's output plane of the residual, or null
  __m256 lo, hi;
  bool clamp;
};

// Stores 16 consecutive output pixels (a, b: the first and second 8) of
// row `out` (residual row `res`), the first `cols` of them.
inline void store16(const Epilogue& e, __m256 a, __m256 b, float* out, const float* res,
                    int64_t cols) {
  const __m256 vb = _mm256_set1_ps(e.bias);
  a = _mm256_add_ps(a, vb);
  b = _mm256_add_ps(b, vb);
  const __m256i m0 = first_lanes(cols), m1 = first_lanes(cols - 8);
  if (res != nullptr) {
    a = _mm256_add_ps(a, cols >= 8 ? _mm256_loadu_ps(res) : _mm256_maskload_ps(res, m0));
    if (cols > 8) {
      b = _mm256_add_ps(b, cols >= 16 ? _mm256_loadu_ps(res + 8) : _mm256_maskload_ps(res + 8, m1));
    }
  }
  if (e.clamp) {  // max then min: a NaN stays NaN (conv2d.h)
    a = _mm256_min_ps(e.hi, _mm256_max_ps(e.lo, a));
    b = _mm256_min_ps(e.hi, _mm256_max_ps(e.lo, b));
  }
  if (cols >= 16) {
    _mm256_storeu_ps(out, a);
    _mm256_storeu_ps(out + 8, b);
    return;
  }
  if (cols >= 8) {
    _mm256_storeu_ps(out, a);
    if (cols > 8) _mm256_maskstore_ps(out + 8, m1, b);
    return;
  }
  _mm256_maskstore_ps(out, m0, a);
}

// y rows of output channel co for tile rows [ty0, ty1) from
// m[xi * point_stride + t] (t from the band's first tile), with
// A^T = [1 1 1 0; 0 1 -1 -1]. `m` holds 8 readable floats past its last
// tile (the last vector of a row may read past it; those lanes are unused).
void transform_output(const Geometry& g, const float* m, int64_t point_stride, int64_t ty0,
                      int64_t ty1, const Epilogue& e, float* y) {
  const Conv2dShape& s = *g.s;
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    for (int64_t tx = 0; tx < g.tiles_w; tx += 8) {
      const float* src = m + (ty - ty0) * g.tiles_w + tx;
      __m256 p[16];
      for (int xi = 0; xi < 16; ++xi) p[xi] = _mm256_loadu_ps(src + xi * point_stride);
      // Rows: r0 = m0 + m1 + m2, r1 = m1 - m2 - m3 (m_i: row i of the 4x4).
      __m256 r[2][4];
      for (int j = 0; j < 4; ++j) {
        r[0][j] = _mm256_add_ps(_mm256_add_ps(p[j], p[4 + j]), p[8 + j]);
        r[1][j] = _mm256_sub_ps(_mm256_sub_ps(p[4 + j], p[8 + j]), p[12 + j]);
      }
      const int64_t cols = s.out_w - 2 * tx < 16 ? s.out_w - 2 * tx : 16;
      for (int i = 0; i < 2; ++i) {
        const int64_t oy = 2 * ty + i;
        if (oy >= s.out_h) break;
        const __m256 left = _mm256_add_ps(_mm256_add_ps(r[i][0], r[i][1]), r[i][2]);
        const __m256 right = _mm256_sub_ps(_mm256_sub_ps(r[i][1], r[i][2]), r[i][3]);
        // Tile k's two outputs are pixels 2k and 2k + 1 of the 16.
        const __m256 lo = _mm256_unpacklo_ps(left, right), hi = _mm256_unpackhi_ps(left, right);
        const __m256 a = _mm256_permute2f128_ps(lo, hi, 0x20);
        const __m256 b = _mm256_permute2f128_ps(lo, hi, 0x31);
        const int64_t offset = oy * s.out_w + 2 * tx;
        store16(e, a, b, y + offset, e.residual == nullptr ? nullptr : e.residual + offset, cols);
      }
    }
  }
}

// Bands of whole tile rows, as even as kBandTiles and kBandBytes allow.
int64_t band_rows_of(const Geometry& g, int64_t cin, int64_t cout, int64_t threads) {
  const int64_t per_tile = kPoints * (cin + cout) * static_cast<int64_t>(sizeof(float));
  int64_t band_rows = kBandTiles / g.tiles_w;
  if (band_rows * g.tiles_w * per_tile > kBandBytes) band_rows = kBandBytes / (g.tiles_w * per_tile);
  if (band_rows < 1) band_rows = 1;
  if (band_rows > g.tiles_h) band_rows = g.tiles_h;
  int64_t bands = (g.tiles_h + band_rows - 1) / band_rows;
  if (threads > 1) bands = (bands + threads - 1) / threads * threads;  // whole bands per thread
  return (g.tiles_h + bands - 1) / bands;
}

// How the bands run and their scratch. With several threads and enough tile
// rows, each thread takes whole bands (its own V, M and GEMM scratch: a
// `slot`) and runs their transforms and GEMMs alone: no barrier between the
// phases and no V or M written by one core and read by the other (sharing
// each phase, 64 @ 56x56 ran 1.17x faster at 2 threads than at 1). Else the
// threads share every phase of each band (one slot).
struct BandScratch {
  int64_t band_rows, band_tiles, slots;
  int64_t gemm_slots;  // GEMM scratches per slot: one per thread sharing a band
  size_t v_floats, m_floats, gemm_bytes;
  size_t slot_bytes() const {  // a multiple of 64: every slot starts aligned
    return (sizeof(float) * (v_floats + m_floats) + gemm_bytes * gemm_slots + 3 * 64) / 64 * 64;
  }
  size_t bytes() const { return slot_bytes() * static_cast<size_t>(slots); }
};

// Tile rows per thread below which the threads share each band instead.
constexpr int64_t kMinRowsPerThread = 4;

BandScratch band_scratch_of(const Conv2dShape& s, const Geometry& g) {
  const int64_t cin = s.in_channels, cout = s.out_channels;
  const int64_t threads = static_cast<int64_t>(num_threads());
  BandScratch b;
  b.slots = threads > 1 && g.tiles_h >= kMinRowsPerThread * threads ? threads : 1;
  b.band_rows = band_rows_of(g, cin, cout, b.slots);
  b.band_tiles = b.band_rows * g.tiles_w;
  b.v_floats = static_cast<size_t>(kPoints * cin * b.band_tiles);
  b.m_floats = static_cast<size_t>(kPoints * cout * b.band_tiles) + 16;  // + read slack
  SgemmProblem p;
  p.m = cout, p.n = b.band_tiles, p.k = cin, p.batch = kPoints;
  b.gemm_bytes = (sgemm_scratch_bytes(p) + 64 + 63) / 64 * 64;  // sized for all of Cout
  b.gemm_slots = b.slots == 1 ? threads : 1;
  return b;
}

struct BandCall {
  const Conv2dShape* s;
  const Geometry* g;
  const float* x;
  const float* u;
  int64_t u_plane;
  const float* bias;
  float* y;
  const float* residual;
  Epilogue proto;
};

// Tile rows [ty0, ty1) of image n: the input transform, the 16 GEMMs
// M[xi] = U[xi] V[xi] and the output transform, in one slot's scratch
// (`base`, bs.slot_bytes(), 64-byte aligned). Each phase is a parallel_for
// (run inline when the caller is itself a thread's share of the bands).
// NotSupported on an infinity or NaN in the input.
Error run_band(const BandCall& c, const BandScratch& bs, uint8_t* base, int64_t n, int64_t ty0,
               int64_t ty1) {
  const Conv2dShape& s = *c.s;
  const Geometry& g = *c.g;
  const int64_t cin = s.in_channels, cout = s.out_channels;
  auto carve = [&base](size_t floats) {
    float* at = reinterpret_cast<float*>(base);
    base += (sizeof(float) * floats + 63) / 64 * 64;
    return at;
  };
  float* v = carve(bs.v_floats);
  float* m = carve(bs.m_floats);
  const float* xn = c.x + n * cin * s.in_h * s.in_w;
  const int64_t out_offset = n * cout * s.out_h * s.out_w;
  const int64_t tiles = (ty1 - ty0) * g.tiles_w;
  // conv_bench, 1 thread, best of runs: 64 @ 56x56 1.56 -> 1.49 ms, 128 @ 28x28
  // 1.40 -> 1.35-1.44 (the GEMMs dominate; the transforms are the same bits).
  const bool wide = best_isa() == Isa::kAvx512 && g.tiles_w >= kWinogradAvx512MinTiles;
  std::atomic<bool> finite{true};
  parallel_for(0, cin, 4, [&](int64_t begin, int64_t end) {
    for (int64_t ci = begin; ci < end; ++ci) {
      const float* plane = xn + ci * s.in_h * s.in_w;
      const bool ok =
          wide ? winograd_input_avx512(s, g.tiles_w, plane, ty0, ty1, v + ci * tiles, cin * tiles)
               : transform_input(g, plane, ty0, ty1, v + ci * tiles, cin * tiles);
      if (!ok) finite.store(false);
    }
  });
  // Infinities and NaNs: see conv2d_winograd_avx2.
  if (!finite.load()) return Error::NotSupported;
  // M[xi] = U[xi] V[xi]: 16 GEMMs [cout x cin] x [cin x tiles].
  SgemmProblem p;
  p.m = cout, p.n = tiles, p.k = cin, p.batch = kPoints;
  p.a = MatrixView{c.u, cin, 1};
  p.b = MatrixView{v, tiles, 1};
  p.c = m;
  p.ldc = tiles;
  p.batch_stride_a = c.u_plane;
  p.batch_stride_b = cin * tiles;
  p.batch_stride_c = cout * tiles;
  // Each thread takes a range of output channels through both the GEMMs and
  // the output transform: M stays in the core that wrote it, and one
  // parallel region less (splitting the GEMMs by point xi instead, half of M
  // crossed cores before the output transform; 256 @ 14x14 scaled 1.37x).
  // In a thread's own band (run inline) this is one range.
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t grain = ((cout + threads - 1) / threads + 7) / 8 * 8;
  std::atomic<int> first_error{static_cast<int>(Error::Ok)};
  parallel_for_slots(0, cout, grain, bs.gemm_slots, [&](int64_t begin, int64_t end,
                                                        int64_t slot) {
    SgemmProblem q = p;
    q.m = end - begin;
    q.a.data = c.u + begin * cin;
    q.c = m + begin * tiles;
    MemoryAllocator chunk(base + static_cast<size_t>(slot) * bs.gemm_bytes, bs.gemm_bytes);
    KernelContext chunk_ctx(&chunk);
    const Error err = sgemm(chunk_ctx, q);
    if (err != Error::Ok) {
      int expected = static_cast<int>(Error::Ok);
      first_error.compare_exchange_strong(expected, static_cast<int>(err));
    } else {
      for (int64_t co = begin; co < end; ++co) {
        Epilogue e = c.proto;
        e.bias = c.bias == nullptr ? 0.0f : c.bias[co];
        const int64_t plane = out_offset + co * s.out_h * s.out_w;
        e.residual = c.residual == nullptr ? nullptr : c.residual + plane;
        if (wide) {
          const WinogradEpilogue we{e.bias, e.residual, _mm256_cvtss_f32(e.lo),
                                    _mm256_cvtss_f32(e.hi), e.clamp};
          winograd_output_avx512(s, g.tiles_w, m + co * tiles, cout * tiles, ty0, ty1, we,
                                 c.y + plane);
        } else {
          transform_output(g, m + co * tiles, cout * tiles, ty0, ty1, e, c.y + plane);
        }
      }
    }
  });
  return static_cast<Error>(first_error.load());
}

// Every band of every image, in `base` (bs.bytes(), 64-byte aligned).
Error run_bands(const Conv2dShape& s, const Geometry& g, const BandScratch& bs, uint8_t* base,
                const float* x, const float* u, int64_t u_plane, const float* bias, float* y,
                const Conv2dClamp& clamp, const float* residual) {
  const BandCall call{&s, &g, x, u, u_plane, bias, y, residual,
                      Epilogue{0.0f, nullptr, _mm256_set1_ps(clamp.min),
                               _mm256_set1_ps(clamp.max), clamp.active()}};
  const int64_t per_image = (g.tiles_h + bs.band_rows - 1) / bs.band_rows;
  auto band = [&](int64_t item, uint8_t* slot) {
    const int64_t ty0 = item % per_image * bs.band_rows;
    const int64_t ty1 = ty0 + bs.band_rows < g.tiles_h ? ty0 + bs.band_rows : g.tiles_h;
    return run_band(call, bs, slot, item / per_image, ty0, ty1);
  };
  if (bs.slots == 1) {
    for (int64_t item = 0; item < s.batch * per_image; ++item) {
      TE_RETURN_IF_ERROR(band(item, base));
    }
    return Error::Ok;
  }
  // Each chunk of bands runs in a slot no other running chunk holds.
  std::atomic<int> first_error{static_cast<int>(Error::Ok)};
  parallel_for_slots(0, s.batch * per_image, 1, bs.slots, [&](int64_t begin, int64_t end,
                                                              int64_t slot) {
    for (int64_t item = begin; item < end; ++item) {
      const Error err = band(item, base + static_cast<size_t>(slot) * bs.slot_bytes());
      if (err != Error::Ok) {
        int expected = static_cast<int>(Error::Ok);
        first_error.compare_exchange_strong(expected, static_cast<int>(err));
        break;
      }
    }
  });
  return static_cast<Error>(first_error.load());
}

}  // namespace

Error conv2d_winograd_avx2(KernelContext& ctx, const Conv2dShape& s, const float* x,
                           const float* w, const float* bias, float* y, const Conv2dClamp& clamp,
                           const float* residual) {
  const int64_t cin = s.in_channels, cout = s.out_channels;
  const Geometry g{&s, (s.out_h + 1) / 2, (s.out_w + 1) / 2};
  // U[xi] one cache line more than Cout * Cin apart: a multiple of 4 KiB
  // (ResNet's 64 x 64 to 256 x 256) put the 16 rows each filter writes in
  // one L1 set, and the transform took a third of a 14x14 layer's time.
  const int64_t u_plane = cout * cin + 16;
  const size_t u_bytes = (sizeof(float) * static_cast<size_t>(kPoints * u_plane) + 63) / 64 * 64;
  const BandScratch bs = band_scratch_of(s, g);
  uint8_t* base = static_cast<uint8_t*>(ctx.allocate_temp(u_bytes + bs.bytes(), 64));
  if (base == nullptr) return Error::MemoryAllocationFailed;
  float* u = reinterpret_cast<float*>(base);
  // Infinities and NaNs: the transforms mix a tile's 16 inputs (and a
  // filter's 9 taps), so inf - inf would turn outputs NaN that the direct
  // sums leave finite or infinite, and one NaN would reach the outputs of
  // every tile that reads it, not just those whose 3x3 window holds it.
  // Then the convolution declines (conv2d_gemm recomputes it by im2col),
  // so non-finite values propagate exactly as in eager PyTorch.
  std::atomic<bool> finite{true};
  parallel_for(0, cout, 8, [&](int64_t begin, int64_t end) {
    if (!transform_filters(s, w, begin, end, u_plane, u)) finite.store(false);
  });
  if (!finite.load()) return Error::NotSupported;
  return run_bands(s, g, bs, base + u_bytes, x, u, u_plane, bias, y, clamp, residual);
}

Error conv2d_winograd_pretransformed_avx2(KernelContext& ctx, const Conv2dShape& s,
                                          const float* x, const float* u, const float* bias,
                                          float* y, const Conv2dClamp& clamp,
                                          const float* residual) {
  const Geometry g{&s, (s.out_h + 1) / 2, (s.out_w + 1) / 2};
  const BandScratch bs = band_scratch_of(s, g);
  uint8_t* base = static_cast<uint8_t*>(ctx.allocate_temp(bs.bytes(), 64));
  if (base == nullptr) return Error::MemoryAllocationFailed;
  return run_bands(s, g, bs, base, x, u, s.out_channels * s.in_channels, bias, y, clamp,
                   residual);
}

}  // namespace detail
}  // namespace optimized
}  // namespace torchedge
