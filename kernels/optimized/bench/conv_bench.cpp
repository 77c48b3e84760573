// conv_bench: the optimized float convolution on ResNet's 3x3 stride-1
// layers, im2col SGEMM vs Winograd F(2x2, 3x3) (conv/winograd.h), best of
// repeated runs (not a test; run by hand).
//
//   conv_bench [--threads N] [--seconds S] [--filter TEXT]
//
// GFLOP/s count the direct convolution's 2 * Cout * Cin * 9 * OH * OW for
// both paths, so the columns compare wall time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/optimized/conv/conv2d.h"
#include "kernels/optimized/conv/winograd.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

using namespace torchedge;
using namespace torchedge::optimized;

namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

template <typename F>
double best_seconds(double budget, F&& run) {
  double best = 1e30;
  const double start = seconds_now();
  for (int runs = 0; runs < 3 || seconds_now() - start < budget; ++runs) {
    const double t0 = seconds_now();
    if (run() != Error::Ok) {
      fprintf(stderr, "convolution failed\n");
      exit(1);
    }
    const double t = seconds_now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 1;
  double budget = 0.5;
  const char* filter = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--threads")) threads = static_cast<size_t>(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--seconds")) budget = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--filter")) filter = argv[i + 1];
  }
  if (set_num_threads(threads) != Error::Ok) return 1;
  struct Layer {
    const char* name;
    int64_t channels, size;
  };
  const Layer layers[] = {{"3x3 64 @56", 64, 56},
                          {"3x3 128 @28", 128, 28},
                          {"3x3 256 @14", 256, 14},
                          {"3x3 512 @7", 512, 7}};
  std::vector<uint8_t> temp(size_t{32} << 20);
  printf("%zu thread(s)\n", threads);
  for (const Layer& l : layers) {
    if (filter != nullptr && strstr(l.name, filter) == nullptr) continue;
    Conv2dShape s{1, l.channels, l.size, l.size, l.channels, l.size, l.size, 3, 3, 1, 1,
                  1, 1, 1, 1, 1};
    std::vector<float> x(l.channels * l.size * l.size, 0.5f), w(l.channels * l.channels * 9, 0.1f);
    std::vector<float> b(l.channels, 0.0f), y(x.size());
    auto run = [&](bool winograd) {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      return winograd ? detail::conv2d_winograd_avx2(ctx, s, x.data(), w.data(), b.data(),
                                                     y.data(), Conv2dClamp{}, nullptr)
                      : conv2d_im2col(ctx, s, x.data(), w.data(), b.data(), y.data());
    };
    const double flops = 2.0 * l.channels * l.channels * 9 * l.size * l.size;
    const double t_im2col = best_seconds(budget, [&] { return run(false); });
    const double t_winograd = best_seconds(budget, [&] { return run(true); });
    printf("%-14s im2col %7.1f GFLOP/s %8.1f us   winograd %7.1f GFLOP/s %8.1f us   %.2fx%s\n",
           l.name, flops / t_im2col * 1e-9, t_im2col * 1e6, flops / t_winograd * 1e-9,
           t_winograd * 1e6, t_im2col / t_winograd,
           detail::winograd_applies(s) ? "" : "  (conv2d_gemm keeps im2col here)");
  }
  return 0;
}
