// Time of the int8 depthwise convolution (torchedge::depthwise_conv2d_int8's
// compute; a benchmark, not a test) on MobileNetV2's depthwise layers (3x3,
// padding 1, batch 1, NCHW int8) through the int16 per-plane loops, the
// channels-last loops and the u8 per-plane loops (support/int8_depthwise.h's
// Int8DepthwisePath; the weights are drawn from [-64, 63] so that the u8
// loops apply on AVX2), on 1 and 2 threads. The shared VM is noisy: each
// round times every layer and path once (best of `iterations` calls),
// rounds rotate the paths, and the table shows each one's minimum over the
// rounds, in us, and which path kAuto takes.
// Usage: int8_depthwise_bench [iterations (20)] [rounds (5)] [max threads (2)]
//                             [channels: only those layers]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_depthwise.h"
#include "kernels/quantized/support/quant_isa.h"

using namespace torchedge;
using namespace torchedge::quantized;

namespace {

struct Layer {
  int64_t channels, hw, stride;
};

const Layer kLayers[] = {
    {32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2}, {192, 28, 1},
    {192, 28, 2}, {384, 14, 1}, {576, 14, 1}, {576, 14, 2}, {960, 7, 1},
};

template <typename F>
double best_us(int iterations, F&& f) {
  f();  // warm-up
  double best = 1e30;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    const std::chrono::duration<double, std::micro> d = std::chrono::steady_clock::now() - start;
    if (d.count() < best) best = d.count();
  }
  return best;
}

// One layer's tensors and problem (weights in [-64, 63], typical scales).
struct Case {
  std::vector<int8_t> x, w, out;
  std::vector<float> scales, bias;
  Int8DepthwiseProblem p;

  explicit Case(const Layer& l) {
    std::mt19937 gen(static_cast<uint32_t>(l.channels * 1000 + l.hw));
    std::uniform_int_distribution<int> i8(-128, 127);
    p.batch = 1;
    p.channels = l.channels;
    p.height = p.width = l.hw;
    p.kernel_h = p.kernel_w = 3;
    p.stride_h = p.stride_w = l.stride;
    p.pad_h = p.pad_w = 1;
    p.out_height = p.out_width = (l.hw + 2 - 3) / l.stride + 1;
    p.in_zero_point = -3;
    p.in_scale = 0.02f;
    p.inv_out_scale = 4.0f;
    p.out_zero_point = 4.0f;
    x.resize(static_cast<size_t>(l.channels * l.hw * l.hw));
    for (int8_t& v : x) v = static_cast<int8_t>(i8(gen));
    w.resize(static_cast<size_t>(l.channels * 9));
    for (int8_t& v : w) v = static_cast<int8_t>(i8(gen) / 2);
    scales.assign(static_cast<size_t>(l.channels), 0.004f);
    bias.assign(scales.size(), 0.1f);
    out.resize(static_cast<size_t>(l.channels * p.out_height * p.out_width));
    p.input = x.data();
    p.weight = w.data();
    p.w_scales = scales.data();
    p.bias = bias.data();
    p.out = out.data();
  }

  double time(int iterations, Int8DepthwisePath path) {
    std::vector<char> scratch(int8_depthwise_scratch_bytes(p, path) + 64);
    void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
    return best_us(iterations, [&] { run_int8_depthwise(p, aligned, path); });
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const int max_threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int64_t only = argc > 4 ? std::atoll(argv[4]) : 0;
  std::printf("isa %s, best of %d calls, min over %d alternating rounds, us\n",
              quant_isa_name(quant_isa()), iterations, rounds);
  constexpr size_t kCount = sizeof(kLayers) / sizeof(kLayers[0]);
  std::vector<Case> cases;
  for (const Layer& l : kLayers) cases.emplace_back(l);
  constexpr int kPathCount = 3;
  constexpr Int8DepthwisePath kPaths[kPathCount] = {
      Int8DepthwisePath::kPlanes, Int8DepthwisePath::kChannels, Int8DepthwisePath::kPlanesU8};
  double best[kCount][2][kPathCount];  // [layer][threads - 1][path]
  for (auto& layer : best) {
    for (auto& t : layer) {
      for (double& b : t) b = 1e30;
    }
  }
  for (int r = 0; r < rounds; ++r) {
    for (int t = 0; t < max_threads && t < 2; ++t) {
      set_num_threads(static_cast<size_t>(t + 1));
      for (size_t i = 0; i < kCount; ++i) {
        if (only != 0 && kLayers[i].channels != only) continue;
        for (int k = 0; k < kPathCount; ++k) {
          const int path = (r + k) % kPathCount;  // rotate which path goes first
          const double us = cases[i].time(iterations, kPaths[path]);
          if (us < best[i][t][path]) best[i][t][path] = us;
        }
      }
    }
  }
  set_num_threads(1);
  // u8: the 7-bit u8 per-plane loops where they apply (the bench's weights
  // fit 7 bits), else the per-plane loops again.
  std::printf("%5s %4s %2s | %9s %8s %8s | %9s %8s %8s | %s\n", "C", "HW", "s", "planes 1T",
              "chan 1T", "u8 1T", "planes 2T", "chan 2T", "u8 2T", "auto");
  double sum[2][kPathCount] = {};
  for (size_t i = 0; i < kCount; ++i) {
    const Layer& l = kLayers[i];
    if (only != 0 && l.channels != only) continue;
    std::printf("%5lld %4lld %2lld |", static_cast<long long>(l.channels),
                static_cast<long long>(l.hw), static_cast<long long>(l.stride));
    for (int t = 0; t < 2; ++t) {
      if (t >= max_threads) {
        std::printf(" %9s %8s %8s |", "-", "-", "-");
        continue;
      }
      std::printf(" %9.1f %8.1f %8.1f |", best[i][t][0], best[i][t][1], best[i][t][2]);
      for (int k = 0; k < kPathCount; ++k) sum[t][k] += best[i][t][k];
    }
    const Int8DepthwiseProblem& p = cases[i].p;
    std::printf(" %s\n", int8_depthwise_u8_wins(p)          ? "u8"
                         : int8_depthwise_channels_win(p) ? "channels"
                                                          : "planes");
  }
  std::printf("%13s | %9.1f %8.1f %8.1f | %9.1f %8.1f %8.1f\n", "sum", sum[0][0], sum[0][1],
              sum[0][2], sum[1][0], sum[1][1], sum[1][2]);
  return 0;
}
