// What fusing a ResNet block's residual add into its last convolution saves
// (torchedge::conv2d_add_int8 vs conv2d_int8 then add_int8; a benchmark, not
// a test): per block-tail layer of ResNet-18 (3x3) and ResNet-50 (1x1) at
// batch 1, 224x224 input, the fastest of N calls of (a) run_int8_conv then
// run_int8_add and (b) run_int8_conv with the residual, alternated call by
// call so the shared VM's drift hits both alike.
// Usage: int8_conv_add_bench [iterations] [threads (1)] [weight bits (8; 7: weights in
// [-64, 63], the AVX2 u8 path)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_add.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/quant_isa.h"

using namespace torchedge;
using namespace torchedge::quantized;

namespace {

struct Layer {
  const char* net;
  int64_t cin, hw, cout, kernel;
};

const Layer kLayers[] = {
    {"resnet18", 64, 56, 64, 3},   {"resnet18", 128, 28, 128, 3}, {"resnet18", 256, 14, 256, 3},
    {"resnet18", 512, 7, 512, 3},  {"resnet50", 64, 56, 256, 1},  {"resnet50", 128, 28, 512, 1},
    {"resnet50", 256, 14, 1024, 1}, {"resnet50", 512, 7, 2048, 1},
};

double ms_of(void (*f)(void*), void* context) {
  const auto start = std::chrono::steady_clock::now();
  f(context);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Case {
  Int8ConvProblem conv;
  Int8AddProblem add;
  void* scratch;
};

void separate(void* c) {
  Case& k = *static_cast<Case*>(c);
  Int8ConvProblem p = k.conv;
  p.residual = nullptr;
  run_int8_conv(p, k.scratch);
  run_int8_add(k.add);
}

void conv_only(void* c) {
  Case& k = *static_cast<Case*>(c);
  Int8ConvProblem p = k.conv;
  p.residual = nullptr;
  run_int8_conv(p, k.scratch);
}

void add_only(void* c) { run_int8_add(static_cast<Case*>(c)->add); }

void fused(void* c) {
  Case& k = *static_cast<Case*>(c);
  run_int8_conv(k.conv, k.scratch);
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  const size_t threads = argc > 2 ? static_cast<size_t>(std::atoi(argv[2])) : 1;
  const int weight_bits = argc > 3 ? std::atoi(argv[3]) : 8;
  set_num_threads(threads);
  std::printf("isa %s, %zu thread(s), best of %d alternated calls\n", quant_isa_name(quant_isa()),
              threads, iterations);
  std::printf("%-9s %5s %4s %5s %2s | %8s %8s | %14s %11s %7s\n", "net", "Cin", "HW", "Cout",
              "k", "conv ms", "add ms", "conv + add ms", "fused ms", "saved");
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> i8(-128, 127);
  for (const Layer& l : kLayers) {
    Int8ConvProblem p;
    p.batch = 1;
    p.in_channels = l.cin;
    p.height = p.width = p.out_height = p.out_width = l.hw;
    p.out_channels = l.cout;
    p.kernel_h = p.kernel_w = l.kernel;
    p.pad_h = p.pad_w = l.kernel / 2;
    p.in_zero_point = -3;
    p.weight_bits = weight_bits;
    p.in_scale = 0.02f;
    p.inv_out_scale = 20.0f;
    p.out_zero_point = 4.0f;
    std::vector<int8_t> x(static_cast<size_t>(l.cin * l.hw * l.hw));
    std::vector<int8_t> w(static_cast<size_t>(p.groups * p.panels() * p.panel_bytes()));
    std::vector<int8_t> residual(static_cast<size_t>(l.cout * p.pixels()));
    for (auto* v : {&x, &w, &residual}) {
      for (int8_t& e : *v) e = static_cast<int8_t>(i8(gen));
    }
    if (weight_bits == 7) {
      for (int8_t& e : w) e = static_cast<int8_t>(e / 2);  // [-64, 63]
    }
    std::vector<float> scales(static_cast<size_t>(l.cout), 0.001f), bias(scales.size(), 0.1f);
    std::vector<int8_t> conv_out(residual.size()), out(residual.size());
    p.input = x.data();
    p.weight = w.data();
    p.w_scales = scales.data();
    p.bias = bias.data();
    p.residual = residual.data();
    p.out = out.data();
    Int8AddProblem add;
    add.a_scale = 0.05;
    add.a_zero_point = 4.0;
    add.b_scale = 0.04;
    add.b_zero_point = -2.0;
    add.out_params = {1.0f / 0.06f, 1.0f, 1.0f, 127.0f};
    p.residual_add = add;
    std::vector<char> scratch(int8_conv_scratch_bytes(p) + 64);
    Case c{p, add, scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64};
    c.add.a = conv_out.data();
    c.add.b = residual.data();
    c.add.out = out.data();
    c.add.count = static_cast<int64_t>(out.size());
    // The separate conv writes conv_out (the add's input), the fused one out.
    c.conv.out = out.data();
    Case s = c;
    s.conv.out = conv_out.data();
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    separate(&s);
    fused(&c);
    for (int i = 0; i < iterations; ++i) {
      best[0] = std::min(best[0], ms_of(separate, &s));
      best[1] = std::min(best[1], ms_of(fused, &c));
      best[2] = std::min(best[2], ms_of(conv_only, &s));
      best[3] = std::min(best[3], ms_of(add_only, &s));
    }
    std::printf("%-9s %5lld %4lld %5lld %2lld | %8.3f %8.3f | %14.3f %11.3f %6.1f%%\n", l.net,
                static_cast<long long>(l.cin), static_cast<long long>(l.hw),
                static_cast<long long>(l.cout), static_cast<long long>(l.kernel), best[2],
                best[3], best[0], best[1], 100.0 * (best[0] - best[1]) / best[0]);
  }
  set_num_threads(1);
  return 0;
}
