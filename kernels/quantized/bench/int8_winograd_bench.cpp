// The int8 convolution's two paths on ResNet's 3x3 stride-1 layers (a
// benchmark, not a test): run_int8_conv (implicit im2col, the exact int16
// tile over K = 9 Cin) vs run_int8_winograd (F(2x2, 3x3), the same exact
// sums with 2.25x fewer multiply-adds), and the direct path for 7-bit
// weights (run_int8_conv with weight_bits = 7: u8 x s8 products, AVX2 without
// VNNI), alternated call by call so the shared VM's drift hits all alike;
// fastest of N calls each, and a check that all wrote the same bytes. The
// weights are drawn from [-64, 63] so that every path applies.
// Usage: int8_winograd_bench [iterations (30)] [threads (1)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/quant_isa.h"

using namespace torchedge;
using namespace torchedge::quantized;

namespace {

struct Layer {
  int64_t channels, hw;
};

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? atoi(argv[1]) : 30;
  const size_t threads = argc > 2 ? static_cast<size_t>(atoi(argv[2])) : 1;
  if (set_num_threads(threads) != Error::Ok || quant_isa() == QuantIsa::kScalar) {
    fprintf(stderr, "needs AVX2 and a valid thread count\n");
    return 1;
  }
  const Layer layers[] = {{64, 56}, {128, 28}, {256, 14}};
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> i8(-128, 127), w7(-64, 63);
  printf("%zu thread(s), fastest of %d calls each\n", threads, iterations);
  for (const Layer& l : layers) {
    const int64_t c = l.channels, hw = l.hw, k = c * 9, kq = (k + 3) & ~int64_t{3};
    const int64_t panels = (c + kInt8ConvPanelRows - 1) / kInt8ConvPanelRows;
    std::vector<int8_t> x(c * hw * hw), w(panels * kq * kInt8ConvPanelRows, 0);
    for (int8_t& v : x) v = static_cast<int8_t>(i8(gen));
    for (int64_t m = 0; m < c; ++m) {
      for (int64_t i = 0; i < k; ++i) w[int8_conv_weight_index(m, i, k)] = static_cast<int8_t>(w7(gen));
    }
    std::vector<float> scales(c, 0.002f), bias(c, 0.5f);
    std::vector<int8_t> out_a(c * hw * hw), out_b(c * hw * hw), out_c(c * hw * hw);
    Int8ConvProblem p;
    p.input = x.data(), p.weight = w.data(), p.w_scales = scales.data(), p.bias = bias.data();
    p.batch = 1, p.in_channels = c, p.height = hw, p.width = hw;
    p.out_channels = c, p.out_height = hw, p.out_width = hw;
    p.kernel_h = p.kernel_w = 3, p.pad_h = p.pad_w = 1;
    p.in_zero_point = 3, p.in_scale = 0.02f, p.inv_out_scale = 20.0f, p.out_zero_point = -5.0f;
    std::vector<uint8_t> scratch_a(int8_conv_scratch_bytes(p) + 64);
    std::vector<uint8_t> scratch_b(int8_winograd_scratch_bytes(p) + 64);
    Int8ConvProblem p7 = p;
    p7.weight_bits = 7;
    std::vector<uint8_t> scratch_c(int8_conv_scratch_bytes(p7) + 64);
    auto aligned = [](std::vector<uint8_t>& v) {
      return reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(v.data()) + 63) & ~uintptr_t{63});
    };
    double best_a = 1e30, best_b = 1e30, best_c = 1e30;
    for (int i = 0; i < iterations; ++i) {
      p.out = out_a.data();
      auto t = std::chrono::steady_clock::now();
      run_int8_conv(p, aligned(scratch_a));
      best_a = std::min(best_a, ms_since(t));
      p.out = out_b.data();
      t = std::chrono::steady_clock::now();
      run_int8_winograd(p, aligned(scratch_b));
      best_b = std::min(best_b, ms_since(t));
      p7.out = out_c.data();
      t = std::chrono::steady_clock::now();
      run_int8_conv(p7, aligned(scratch_c));
      best_c = std::min(best_c, ms_since(t));
    }
    const double gop = 2.0 * c * c * 9 * hw * hw * 1e-9;
    printf("3x3 %3lld @%2lld  im2col %7.3f ms %6.1f GOP/s   winograd %7.3f ms %6.1f GOP/s   "
           "%.2fx   7-bit direct %7.3f ms %6.1f GOP/s  %s\n",
           static_cast<long long>(c), static_cast<long long>(hw), best_a, gop / best_a * 1e3,
           best_b, gop / best_b * 1e3, best_a / best_b, best_c, gop / best_c * 1e3,
           out_a == out_b && out_a == out_c ? "same bytes" : "DIFFERENT BYTES");
  }
  return 0;
}
