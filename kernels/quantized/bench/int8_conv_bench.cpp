// Throughput of the int8 convolution (torchedge::conv2d_int8's compute, a
// benchmark, not a test) on the layers of ResNet-18 (3x3), ResNet-50 (1x1)
// and MobileNetV2 (pointwise 1x1) at batch 1, 224x224 input, on 1 and 2
// threads. Reports the fastest of N calls (this VM is noisy) in ms and
// GOP/s = 2 * Cout * OH * OW * K / time (K = Cin/groups * KH * KW); compare
// with build/sgemm_bench's float convolution numbers. Because the shared
// development VM's speed drifts, each layer's 1-thread number is paired with
// the same 6x16 tile in linear_dynamic_int8's GEMM (M = 128, N = 384, K =
// 1536: ~150 GOP/s on a quiet machine) measured just before it: the "vs
// GEMM" column is the conv's fraction of the tile's throughput.
// Usage: int8_conv_bench [iterations] [filter substring of "net KxK Cin@HW->Cout sS"]
//        [max threads (2)] [weight bits (8; 7: the AVX2 u8 path, same weights)]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/quant_isa.h"

using namespace torchedge;
using namespace torchedge::quantized;

namespace {

struct Layer {
  const char* net;
  int64_t cin, hw, cout, kernel, stride;
};

const Layer kLayers[] = {
    {"resnet18", 3, 224, 64, 7, 2},      {"resnet18", 64, 56, 64, 3, 1},
    {"resnet18", 64, 56, 128, 3, 2},     {"resnet18", 128, 28, 128, 3, 1},
    {"resnet18", 128, 28, 256, 3, 2},    {"resnet18", 256, 14, 256, 3, 1},
    {"resnet18", 256, 14, 512, 3, 2},    {"resnet18", 512, 7, 512, 3, 1},
    {"resnet50", 64, 56, 64, 1, 1},      {"resnet50", 64, 56, 256, 1, 1},
    {"resnet50", 256, 56, 64, 1, 1},     {"resnet50", 256, 56, 128, 1, 1},
    {"resnet50", 128, 28, 512, 1, 1},    {"resnet50", 512, 28, 128, 1, 1},
    {"resnet50", 512, 28, 256, 1, 1},    {"resnet50", 256, 14, 1024, 1, 1},
    {"resnet50", 1024, 14, 256, 1, 1},   {"resnet50", 1024, 14, 512, 1, 1},
    {"resnet50", 512, 7, 2048, 1, 1},    {"resnet50", 2048, 7, 512, 1, 1},
    {"mobilenetv2", 32, 112, 16, 1, 1},  {"mobilenetv2", 16, 112, 96, 1, 1},
    {"mobilenetv2", 96, 56, 24, 1, 1},   {"mobilenetv2", 24, 56, 144, 1, 1},
    {"mobilenetv2", 144, 56, 24, 1, 1},  {"mobilenetv2", 144, 28, 32, 1, 1},
    {"mobilenetv2", 32, 28, 192, 1, 1},  {"mobilenetv2", 192, 28, 32, 1, 1},
    {"mobilenetv2", 192, 14, 64, 1, 1},  {"mobilenetv2", 64, 14, 384, 1, 1},
    {"mobilenetv2", 384, 14, 64, 1, 1},  {"mobilenetv2", 384, 14, 96, 1, 1},
    {"mobilenetv2", 96, 14, 576, 1, 1},  {"mobilenetv2", 576, 14, 96, 1, 1},
    {"mobilenetv2", 576, 7, 160, 1, 1},  {"mobilenetv2", 160, 7, 960, 1, 1},
    {"mobilenetv2", 960, 7, 160, 1, 1},  {"mobilenetv2", 960, 7, 320, 1, 1},
    {"mobilenetv2", 320, 7, 1280, 1, 1},
};

template <typename F>
double best_ms(int iterations, F&& f) {
  f();  // warm-up
  double best = 1e30;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    const std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - start;
    if (d.count() < best) best = d.count();
  }
  return best;
}

// GOP/s of the dynamic linear GEMM on one BERT shape (the tile's yardstick).
struct GemmYardstick {
  static constexpr int64_t kM = 128, kN = 384, kK = 1536;
  std::vector<int16_t> x = std::vector<int16_t>(int8_gemm_x_elements(kM, kK), 3);
  std::vector<int8_t> w = std::vector<int8_t>(kN * kK, -5);
  std::vector<float> scales = std::vector<float>(kN, 0.01f);
  std::vector<float> out = std::vector<float>(kM * kN);
  std::vector<char> scratch;

  double gops(int iterations) {
    Int8GemmF32Problem p{x.data(), w.data(), scales.data(), nullptr, 0.1f, kM, kN, kK,
                         out.data()};
    scratch.assign(int8_gemm_f32_scratch_bytes(kM, kN, kK) + 64, 0);
    void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
    const double ms = best_ms(iterations, [&] { run_int8_gemm_f32(p, aligned); });
    return 2.0 * kM * kN * kK / (ms * 1e6);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 10;
  const char* filter = argc > 2 && argv[2][0] != 0 ? argv[2] : nullptr;
  const int max_threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int weight_bits = argc > 4 ? std::atoi(argv[4]) : 8;
  std::printf("isa %s, best of %d, weight bits %d\n", quant_isa_name(quant_isa()), iterations,
              weight_bits);
  std::printf("%-12s %5s %4s %5s %3s %2s | %9s %7s %7s | %9s %7s\n", "net", "Cin", "HW", "Cout",
              "k", "s", "ms 1T", "GOP/s", "vs GEMM", "ms 2T", "GOP/s");
  GemmYardstick yardstick;
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> i8(-128, 127);
  for (const Layer& l : kLayers) {
    char name[96];
    // e.g. "resnet18 3x3 512@7->512 s1": the filter may name a net, a kernel or a layer.
    std::snprintf(name, sizeof(name), "%s %lldx%lld %lld@%lld->%lld s%lld", l.net,
                  static_cast<long long>(l.kernel), static_cast<long long>(l.kernel),
                  static_cast<long long>(l.cin), static_cast<long long>(l.hw),
                  static_cast<long long>(l.cout), static_cast<long long>(l.stride));
    if (filter != nullptr && std::strstr(name, filter) == nullptr) continue;
    Int8ConvProblem p;
    p.batch = 1;
    p.in_channels = l.cin;
    p.height = p.width = l.hw;
    p.out_channels = l.cout;
    p.kernel_h = p.kernel_w = l.kernel;
    p.stride_h = p.stride_w = l.stride;
    p.pad_h = p.pad_w = l.kernel / 2;
    p.out_height = (l.hw + 2 * p.pad_h - l.kernel) / l.stride + 1;
    p.out_width = p.out_height;
    p.in_zero_point = -3;
    p.weight_bits = weight_bits;
    p.in_scale = 0.02f;
    p.inv_out_scale = 20.0f;
    p.out_zero_point = 4.0f;
    std::vector<int8_t> x(static_cast<size_t>(l.cin * l.hw * l.hw));
    for (int8_t& v : x) v = static_cast<int8_t>(i8(gen));
    std::vector<int8_t> w(static_cast<size_t>(p.groups * p.panels() * p.panel_bytes()));
    for (int8_t& v : w) v = static_cast<int8_t>(i8(gen) / 2);  // [-64, 63]: 7 bits
    std::vector<float> scales(static_cast<size_t>(l.cout), 0.001f), bias(scales.size(), 0.1f);
    std::vector<int8_t> out(static_cast<size_t>(l.cout * p.pixels()));
    p.input = x.data();
    p.weight = w.data();
    p.w_scales = scales.data();
    p.bias = bias.data();
    p.out = out.data();
    const double ops = 2.0 * l.cout * p.pixels() * p.k();
    double ms[2] = {0.0, 0.0};
    set_num_threads(1);
    const double gemm = yardstick.gops(iterations);
    for (int t = 0; t < max_threads && t < 2; ++t) {
      set_num_threads(static_cast<size_t>(t + 1));
      std::vector<char> scratch(int8_conv_scratch_bytes(p) + 64);
      void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
      ms[t] = best_ms(iterations, [&] { run_int8_conv(p, aligned); });
    }
    const double gops1 = ops / (ms[0] * 1e6);
    std::printf("%-12s %5lld %4lld %5lld %3lld %2lld | %9.3f %7.1f %6.0f%% | %9.3f %7.1f\n",
                l.net, static_cast<long long>(l.cin), static_cast<long long>(l.hw),
                static_cast<long long>(l.cout), static_cast<long long>(l.kernel),
                static_cast<long long>(l.stride), ms[0], gops1, 100.0 * gops1 / gemm, ms[1],
                ms[1] > 0.0 ? ops / (ms[1] * 1e6) : 0.0);
  }
  set_num_threads(1);
  return 0;
}
