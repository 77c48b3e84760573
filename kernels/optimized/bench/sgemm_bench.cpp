// sgemm_bench: GFLOP/s of the optimized SGEMM (not a test; run by hand).
//
//   sgemm_bench [--threads N] [--isa scalar|avx2|avx512] [--seconds S]
//
// Prints one line per shape: square sizes and the GEMMs of ResNet-50's
// convolutions (M = Cout, N = output pixels, K = Cin * kh * kw).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

using namespace torchedge;
using namespace torchedge::optimized;

namespace {

struct Shape {
  const char* name;
  int64_t m, n, k;
};

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 1;
  Isa isa = best_isa();
  double budget = 0.5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--threads")) threads = static_cast<size_t>(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--seconds")) budget = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--isa")) {
      isa = !strcmp(argv[i + 1], "scalar") ? Isa::kScalar
            : !strcmp(argv[i + 1], "avx2") ? Isa::kAvx2 : Isa::kAvx512;
    }
  }
  if (set_num_threads(threads) != Error::Ok) return 1;
  const Shape shapes[] = {
      {"square 256", 256, 256, 256},
      {"square 512", 512, 512, 512},
      {"square 1024", 1024, 1024, 1024},
      {"r50 conv1 7x7", 64, 12544, 147},
      {"r50 1x1 64->256 @56", 256, 3136, 64},
      {"r50 3x3 64 @56", 64, 3136, 576},
      {"r50 3x3 128 @28", 128, 784, 1152},
      {"r50 3x3 256 @14", 256, 196, 2304},
      {"r50 3x3 512 @7", 512, 49, 4608},
      {"r50 1x1 2048->512 @7", 512, 49, 2048},
      {"linear 197x192x768", 197, 768, 192},
  };
  std::vector<uint8_t> temp(size_t{64} << 20);
  printf("isa %s, %zu thread(s)\n", isa_name(isa), threads);
  for (const Shape& s : shapes) {
    std::vector<float> a(s.m * s.k, 0.5f), b(s.k * s.n, 0.25f), c(s.m * s.n);
    SgemmProblem p;
    p.m = s.m, p.n = s.n, p.k = s.k;
    p.a = MatrixView{a.data(), s.k, 1};
    p.b = MatrixView{b.data(), s.n, 1};
    p.c = c.data();
    p.ldc = s.n;
    int runs = 0;
    double best = 1e30;
    const double start = seconds_now();
    while (runs < 3 || seconds_now() - start < budget) {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      const double t0 = seconds_now();
      if (sgemm_with_isa(ctx, p, isa) != Error::Ok) {
        fprintf(stderr, "sgemm failed\n");
        return 1;
      }
      const double t = seconds_now() - t0;
      best = t < best ? t : best;
      ++runs;
    }
    const double gflops = 2.0 * s.m * s.n * s.k / best * 1e-9;
    printf("%-24s M=%5lld N=%6lld K=%5lld  %7.1f GFLOP/s  (best of %d)\n", s.name,
           static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
           gflops, runs);
  }
  return 0;
}
