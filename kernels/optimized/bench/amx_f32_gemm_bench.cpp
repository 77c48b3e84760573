// amx_f32_gemm_bench: what a float32 GEMM gains on the AMX tile unit (not a
// test, not used by any kernel; run by hand beside sgemm_bench).
//
//   amx_f32_gemm_bench [--presplit]
//
// Each float32 operand is split into three bfloat16 terms, x = x0 + x1 + x2
// (x0 the top 8 significant bits by truncation, x1 the next 8 of the exact
// remainder, x2 the rest, exactly representable), and C = A B is the sum of
// the six tile products whose terms are at least 2^-16 of the leading one:
// A0 B0, A0 B1, A0 B2, A1 B0, A1 B1, A2 B0 (TDPBF16PS: bf16 x bf16 products
// are exact in float32 and accumulate in float32). The dropped terms are
// ~2^-24 relative, so the result is float32-accurate: the program prints the
// largest error against a double reference over the largest reference value.
//
// B is split and packed ahead (a constant weight: three planes of VNNI
// pairs, one 16 x 32-pair tile per (16 columns, 32 k) contiguous); A is split
// per 128-row panel into three tile-major planes inside the timed call
// (--presplit: once, before the clock, to time the tile products alone).
// 2 x 2 accumulator tiles (32 x 32 of C), the six products unrolled so each
// A term is loaded once per 32 k and B0 / B1 are reused across A terms.
// Shapes: Whisper's encoder linear layers (M = 1500 tokens, padded to 1504).
// GFLOP/s count 2 M N K (the float32 product), best of 30 calls, 1 thread.
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

using Bf16 = uint16_t;

struct alignas(64) TileConfig {
  unsigned char palette = 1, start_row = 0, reserved[14] = {};
  unsigned short bytes_per_row[16] = {};
  unsigned char rows[16] = {};
};

float truncate_to_bf16(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  u &= 0xFFFF0000u;
  std::memcpy(&v, &u, 4);
  return v;
}

Bf16 bits_of(float v) {  // v already a bf16 value
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return static_cast<Bf16>(u >> 16);
}

// B [K, N] row-major -> planes[t][(n / 16) * (K / 2) * 32 + (k / 2) * 32 + (n % 16) * 2 + k % 2].
void split_pack_b(const float* b, int k_size, int n_size, std::vector<Bf16> planes[3]) {
  for (int t = 0; t < 3; ++t) planes[t].assign(static_cast<size_t>(k_size) * n_size, 0);
  for (int k = 0; k < k_size; ++k) {
    for (int n = 0; n < n_size; ++n) {
      const float v = b[static_cast<size_t>(k) * n_size + n];
      const float x0 = truncate_to_bf16(v), r = v - x0, x1 = truncate_to_bf16(r), x2 = r - x1;
      const size_t at = (static_cast<size_t>(n / 16) * (k_size / 2) + k / 2) * 32 + (n % 16) * 2 + k % 2;
      planes[0][at] = bits_of(x0);
      planes[1][at] = bits_of(x1);
      planes[2][at] = bits_of(x2);
    }
  }
}

// Rows [0, rows) of A (row stride k_size) -> three tile-major planes:
// element (i, k) at ((i / 16) * (K / 32) + k / 32) * 512 + (i % 16) * 32 + k % 32.
__attribute__((target("avx512f,avx512bf16"))) void split_a(const float* a, int rows, int k_size,
                                                           Bf16* planes, size_t plane) {
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
  const int steps = k_size / 32;
  for (int i = 0; i < rows; ++i) {
    for (int s = 0; s < steps; ++s) {
      const float* src = a + static_cast<size_t>(i) * k_size + s * 32;
      __m512 x[2] = {_mm512_loadu_ps(src), _mm512_loadu_ps(src + 16)};
      __m512 t0[2], t1[2], t2[2];
      for (int h = 0; h < 2; ++h) {
        t0[h] = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x[h]), high));
        const __m512 r = _mm512_sub_ps(x[h], t0[h]);
        t1[h] = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(r), high));
        t2[h] = _mm512_sub_ps(r, t1[h]);
      }
      Bf16* dst = planes + (static_cast<size_t>(i / 16) * steps + s) * 512 + (i % 16) * 32;
      _mm512_store_si512(dst, (__m512i)_mm512_cvtne2ps_pbh(t0[1], t0[0]));
      _mm512_store_si512(dst + plane, (__m512i)_mm512_cvtne2ps_pbh(t1[1], t1[0]));
      _mm512_store_si512(dst + 2 * plane, (__m512i)_mm512_cvtne2ps_pbh(t2[1], t2[0]));
    }
  }
}

constexpr int kPanel = 128;  // rows of A split at a time

__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bf16"))) void gemm(
    const float* a, int m, int k_size, int n_size, const std::vector<Bf16> b[3], float* c,
    Bf16* a_planes, bool presplit) {
  TileConfig config;
  for (int t = 0; t < 8; ++t) config.rows[t] = 16, config.bytes_per_row[t] = 64;
  _tile_loadconfig(&config);
  const int steps = k_size / 32;
  const size_t plane = static_cast<size_t>(kPanel) * k_size;
  const size_t b_strip = static_cast<size_t>(k_size / 2) * 32;  // one 16-column strip
  alignas(64) float tile_c[32 * 32];
  for (int m0 = 0; m0 < m; m0 += kPanel) {
    Bf16* panel = presplit ? a_planes + (m0 / kPanel) * 3 * plane : a_planes;
    if (!presplit) split_a(a + static_cast<size_t>(m0) * k_size, kPanel, k_size, panel, plane);
    for (int n0 = 0; n0 < n_size; n0 += 32) {
      const Bf16* b_left[3];
      for (int t = 0; t < 3; ++t) b_left[t] = b[t].data() + (n0 / 16) * b_strip;
      for (int mb = 0; mb < kPanel; mb += 32) {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
        const Bf16* a_rows = panel + static_cast<size_t>(mb / 16) * steps * 512;
        const int next_rows = steps * 512;  // the second 16 rows of the block
        for (int s = 0; s < steps; ++s) {
          const Bf16* a0 = a_rows + s * 512;
          const size_t bs = static_cast<size_t>(s) * 512;
#define PRODUCTS4                 \
  _tile_dpbf16ps(0, 4, 6);        \
  _tile_dpbf16ps(1, 4, 7);        \
  _tile_dpbf16ps(2, 5, 6);        \
  _tile_dpbf16ps(3, 5, 7);
          _tile_loadd(4, a0, 64);
          _tile_loadd(5, a0 + next_rows, 64);
          _tile_loadd(6, b_left[0] + bs, 64);
          _tile_loadd(7, b_left[0] + b_strip + bs, 64);
          PRODUCTS4  // A0 B0
          _tile_loadd(6, b_left[1] + bs, 64);
          _tile_loadd(7, b_left[1] + b_strip + bs, 64);
          PRODUCTS4  // A0 B1
          _tile_loadd(6, b_left[2] + bs, 64);
          _tile_loadd(7, b_left[2] + b_strip + bs, 64);
          PRODUCTS4  // A0 B2
          _tile_loadd(4, a0 + plane, 64);
          _tile_loadd(5, a0 + plane + next_rows, 64);
          _tile_loadd(6, b_left[1] + bs, 64);
          _tile_loadd(7, b_left[1] + b_strip + bs, 64);
          PRODUCTS4  // A1 B1
          _tile_loadd(6, b_left[0] + bs, 64);
          _tile_loadd(7, b_left[0] + b_strip + bs, 64);
          PRODUCTS4  // A1 B0
          _tile_loadd(4, a0 + 2 * plane, 64);
          _tile_loadd(5, a0 + 2 * plane + next_rows, 64);
          PRODUCTS4  // A2 B0
#undef PRODUCTS4
        }
        _tile_stored(0, tile_c, 128);
        _tile_stored(1, tile_c + 16, 128);
        _tile_stored(2, tile_c + 512, 128);
        _tile_stored(3, tile_c + 528, 128);
        for (int r = 0; r < 32 && m0 + mb + r < m; ++r) {
          std::memcpy(c + static_cast<size_t>(m0 + mb + r) * n_size + n0, tile_c + r * 32,
                      32 * sizeof(float));
        }
      }
    }
  }
  _tile_release();
}

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  const bool presplit = argc > 1 && !std::strcmp(argv[1], "--presplit");
  if (!__builtin_cpu_supports("amx-bf16") || !__builtin_cpu_supports("avx512bf16")) {
    std::printf("this CPU has no AMX-BF16 / AVX512-BF16\n");
    return 0;
  }
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    std::printf("the kernel refused AMX tile data\n");
    return 0;
  }
  struct Shape {
    const char* name;
    int m, n, k;
  };
  const Shape shapes[] = {{"whisper qkv/o", 1504, 256, 256},
                          {"whisper fc1", 1504, 1024, 256},
                          {"whisper fc2", 1504, 256, 1024}};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::printf("1 thread, %s\n", presplit ? "A split before the clock" : "A split in the call");
  for (const Shape& sh : shapes) {
    std::vector<float> a(static_cast<size_t>(sh.m) * sh.k), b(static_cast<size_t>(sh.k) * sh.n),
        c(static_cast<size_t>(sh.m) * sh.n);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    std::vector<Bf16> b_planes[3];
    split_pack_b(b.data(), sh.k, sh.n, b_planes);
    const size_t plane = static_cast<size_t>(kPanel) * sh.k;
    const int panels = (sh.m + kPanel - 1) / kPanel;
    // Room for every panel's planes (presplit) or one panel's; rows past M are zero.
    std::vector<float> a_padded(static_cast<size_t>(panels) * kPanel * sh.k, 0.0f);
    std::memcpy(a_padded.data(), a.data(), a.size() * sizeof(float));
    Bf16* planes = static_cast<Bf16*>(
        std::aligned_alloc(64, sizeof(Bf16) * 3 * plane * (presplit ? panels : 1)));
    if (presplit) {
      for (int p = 0; p < panels; ++p) {
        split_a(a_padded.data() + static_cast<size_t>(p) * kPanel * sh.k, kPanel, sh.k,
                planes + p * 3 * plane, plane);
      }
    }
    gemm(a_padded.data(), sh.m, sh.k, sh.n, b_planes, c.data(), planes, presplit);
    double max_error = 0, max_ref = 0;
    for (int i = 0; i < sh.m; i += 7) {
      for (int j = 0; j < sh.n; j += 5) {
        double ref = 0;
        for (int k = 0; k < sh.k; ++k) {
          ref += static_cast<double>(a[static_cast<size_t>(i) * sh.k + k]) * b[static_cast<size_t>(k) * sh.n + j];
        }
        max_error = std::fmax(max_error, std::fabs(ref - c[static_cast<size_t>(i) * sh.n + j]));
        max_ref = std::fmax(max_ref, std::fabs(ref));
      }
    }
    double best = 1e30;
    for (int rep = 0; rep < 30; ++rep) {
      const double start = seconds_now();
      gemm(a_padded.data(), sh.m, sh.k, sh.n, b_planes, c.data(), planes, presplit);
      best = std::fmin(best, seconds_now() - start);
    }
    std::printf("%-14s M=%5d N=%5d K=%5d  %7.1f GFLOP/s  %8.1f us  max err / max |ref| %.1e\n",
                sh.name, sh.m, sh.n, sh.k, 2.0 * sh.m * sh.n * sh.k / best * 1e-9, best * 1e6,
                max_error / max_ref);
    std::free(planes);
  }
  return 0;
}
