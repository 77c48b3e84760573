// amx_f32_gemm_bench: the AMX float32 GEMM (gemm/sgemm_amx.h)
// against the AVX-512 SGEMM on the same prepacked problems (not a test; run
// by hand).
//
//   amx_f32_gemm_bench [--threads N] [--rounds R]
//
// Shapes: Whisper's encoder linear layers (1500 tokens, weights in the
// 16-wide strips torchedge::linear_prepacked stores, bias in the epilogue).
// Each round times both kernels (best of repeated calls with hot caches),
// alternating, so a change of the shared host's speed shows in both; the
// last column is the largest difference between their outputs over the
// largest |value|. GFLOP/s count 2 M N K. TORCHEDGE_ISA is set to "amx" for
// this program (any other value turns the AMX path off, cpu_features.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/optimized/bench/bench_clock.h"
#include "kernels/optimized/gemm/sgemm_amx.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

using namespace torchedge;
using namespace torchedge::optimized;
using torchedge::bench::seconds_now;

namespace {

template <typename F>
double best_seconds(F&& call) {
  double best = 1e30;
  const double stop = seconds_now() + 0.5;
  for (int i = 0; i < 5 || seconds_now() < stop; ++i) {
    const double start = seconds_now();
    call();
    best = std::fmin(best, seconds_now() - start);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("TORCHEDGE_ISA", "amx", 1);
  size_t threads = 1;
  int rounds = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = static_cast<size_t>(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
  }
  if (!amx_usable()) {
    std::printf("no AMX float32 GEMM here (needs AMX-BF16, AVX512-BF16 and the tile data state)\n");
    return 0;
  }
  if (set_num_threads(threads) != Error::Ok) return 1;
  struct Shape {
    const char* name;
    int64_t m, n, k;
  };
  const Shape shapes[] = {{"whisper qkv/o", 1500, 256, 256},
                          {"whisper fc1", 1500, 1024, 256},
                          {"whisper fc2", 1500, 256, 1024},
                          // Fewer rows: ConvNeXt-T's MLPs at 14x14 and 7x7,
                          // ViT-S/16's at 197 tokens (where kSgemmAmxMinRows falls).
                          {"convnext 14 up", 196, 1536, 384},
                          {"convnext 14 dn", 196, 384, 1536},
                          {"vit-s fc1", 197, 1536, 384},
                          {"convnext 7 up", 49, 3072, 768},
                          {"convnext 7 dn", 49, 768, 3072},
                          {"rows 128", 128, 1536, 384},
                          {"rows 96", 96, 1536, 384}};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::printf("%zu thread(s); GFLOP/s, best of repeated calls\n", threads);
  for (const Shape& sh : shapes) {
    std::vector<float> a(sh.m * sh.k), strips(((sh.n + 15) / 16) * sh.k * 16), bias(sh.n);
    for (float& v : a) v = dist(rng);
    for (float& v : strips) v = dist(rng);
    for (float& v : bias) v = dist(rng);
    std::vector<float> c_sgemm(sh.m * sh.n), c_amx(sh.m * sh.n);
    SgemmProblem p;
    p.m = sh.m, p.n = sh.n, p.k = sh.k;
    p.a = MatrixView{a.data(), sh.k, 1};
    p.b_prepacked = strips.data();
    p.b_prepacked_nr = 16;
    p.ldc = sh.n;
    p.col_bias = bias.data();
    SgemmProblem p_sgemm = p, p_amx = p;
    p_sgemm.c = c_sgemm.data();
    p_amx.c = c_amx.data();
    std::vector<uint8_t> arena(
        std::max(sgemm_scratch_bytes(p_sgemm), sgemm_amx_scratch_bytes(p_amx)) + 128);
    auto run = [&](bool amx) {
      MemoryAllocator allocator(arena.data(), arena.size());
      KernelContext ctx(&allocator);
      const Error err = amx ? sgemm_amx(ctx, p_amx) : sgemm(ctx, p_sgemm);
      if (err != Error::Ok) std::abort();
    };
    const double flop = 2.0 * sh.m * sh.n * sh.k;
    for (int r = 0; r < rounds; ++r) {
      const double t_sgemm = best_seconds([&] { run(false); });
      const double t_amx = best_seconds([&] { run(true); });
      double diff = 0, peak = 0;
      for (size_t i = 0; i < c_amx.size(); ++i) {
        diff = std::fmax(diff, std::fabs(c_amx[i] - c_sgemm[i]));
        peak = std::fmax(peak, std::fabs(c_sgemm[i]));
      }
      std::printf("%-14s M=%5lld N=%5lld K=%5lld  sgemm %6.1f  amx %6.1f  (%.2fx)  diff %.1e\n",
                  sh.name, static_cast<long long>(sh.m), static_cast<long long>(sh.n),
                  static_cast<long long>(sh.k), flop / t_sgemm * 1e-9, flop / t_amx * 1e-9,
                  t_sgemm / t_amx, diff / peak);
    }
  }
  return 0;
}
