// The 8da4w linear on SmolLM2-135M's shapes (not a test; run by hand):
// N x K = 576 x 576 (q, o), 192 x 576 (k, v), 1536 x 576 (gate, up),
// 576 x 1536 (down) and the tied output projection 49152 x 576, group size
// 32, for M = 1 (decode) and M = 128 / 512 (prefill), 1 and 2 threads; the
// plain-layout loops of linear_8da4w (support/int4_dispatch.h) next to the
// blocked layout of linear_8da4w_packed (support/int4_packed.h). Every
// figure includes the per-token activation quantization, as the kernels do.
//
// M = 1 is timed cold: consecutive calls walk through copies of the weight
// totalling >= 256 MiB, so every call streams its weights from DRAM as a
// decode step does (the model's 4-bit weights, ~84 MB, exceed the L3); GB/s
// = bytes of weights and scales per call / time. "hot" repeats one copy
// (L2/L3-resident). M > 1 reports GOP/s = 2 M N K / time (one copy).
// Minimum over `rounds` rounds (this VM is shared and noisy).
//
// Usage: llm_linear_bench [rounds] [filter: plain|packed|all] [M list, e.g. 1,128,512]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int4_dispatch.h"
#include "kernels/quantized/support/int4_packed.h"
#include "kernels/quantized/support/quant_isa.h"

using namespace torchedge;
using namespace torchedge::quantized;

namespace {

constexpr int64_t kGroup = 32;

struct Shape {
  const char* name;
  int64_t n, k;
};

// One weight in both layouts (random nibbles and scales).
struct Weights {
  std::vector<uint8_t> plain;  // [N, K/2]
  std::vector<float> scales;   // [N, K/g]
  std::vector<uint8_t> blocked;
  int64_t n, k;

  Weights(int64_t n_, int64_t k_, uint32_t seed) : n(n_), k(k_) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    plain.resize(n * k / 2);
    for (uint8_t& b : plain) b = static_cast<uint8_t>(byte(gen));
    scales.assign(n * (k / kGroup), 0.01f);
    const int64_t blocks = (n + 15) / 16, groups = k / kGroup, record = 64 + 8 * kGroup;
    blocked.resize(blocks * groups * record);
    for (size_t i = 0; i < blocked.size(); ++i) blocked[i] = static_cast<uint8_t>(byte(gen));
    for (int64_t r = 0; r < blocks * groups; ++r) {
      for (int j = 0; j < 16; ++j) std::memcpy(&blocked[r * record + 4 * j], &scales[0], 4);
    }
  }
  double bytes() const { return plain.size() + scales.size() * 4.0; }
};

struct Activations {
  std::vector<float> x;
  std::vector<int8_t> q;
  std::vector<float> s;
  std::vector<int32_t> z, sums;
  int64_t m, k;
  Activations(int64_t m_, int64_t k_) : x(m_ * k_), q(m_ * k_), s(m_), z(m_), sums(m_ * (k_ / kGroup)), m(m_), k(k_) {
    std::mt19937 gen(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& v : x) v = normal(gen);
  }
  Int8Rows quantize() {
    parallel_for(0, m, 8, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        quantize_row_int8_per_token(x.data() + r * k, k, kGroup, q.data() + r * k, &s[r], &z[r],
                                    sums.data() + r * (k / kGroup));
      }
    });
    return {q.data(), s.data(), z.data(), sums.data(), m};
  }
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Best time per call of `calls` consecutive calls of f(i), over `rounds`.
template <typename F>
double best_ms_per_call(int rounds, int calls, F&& f) {
  f(0);
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const double start = now_ms();
    for (int i = 0; i < calls; ++i) f(i);
    const double t = (now_ms() - start) / calls;
    best = t < best ? t : best;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::string filter = argc > 2 ? argv[2] : "all";
  std::vector<int64_t> ms = {1, 128, 512};
  if (argc > 3) {
    ms.clear();
    for (const char* p = argv[3]; *p;) {
      ms.push_back(std::strtol(p, const_cast<char**>(&p), 10));
      if (*p == ',') ++p;
    }
  }
  const Shape shapes[] = {{"q/o 576x576", 576, 576},   {"k/v 192x576", 192, 576},
                          {"gate/up 1536x576", 1536, 576}, {"down 576x1536", 576, 1536},
                          {"output 49152x576", 49152, 576}};
  std::printf("ISA %s, group %lld, min of %d rounds\n", quant_isa_name(quant_isa()),
              static_cast<long long>(kGroup), rounds);
  const bool plain = filter != "packed", packed = filter != "plain";
  for (const Shape& shape : shapes) {
    const Weights first(shape.n, shape.k, 1);
    const int copies = static_cast<int>((256.0 * (1 << 20)) / first.bytes()) + 1;
    std::vector<Weights> cold;
    for (int64_t m : ms) {
      if (m == 1 && cold.empty()) {
        for (int c = 0; c < copies; ++c) cold.emplace_back(shape.n, shape.k, c + 2);
      }
    }
    for (int64_t m : ms) {
      Activations a(m, shape.k);
      std::vector<float> out(m * shape.n), bias(shape.n, 0.1f);
      for (size_t threads : {1, 2}) {
        set_num_threads(threads);
        auto run = [&](const Weights& w, bool blocked) {
          const Int8Rows rows = a.quantize();
          if (blocked) {
            run_int8_int4_packed_linear(rows, {w.blocked.data(), w.n, w.k, kGroup}, bias.data(), out.data());
          } else {
            run_int8_int4_linear(rows, {w.plain.data(), w.scales.data(), nullptr, w.n, w.k, kGroup},
                                 bias.data(), out.data());
          }
        };
        for (bool blocked : {false, true}) {
          if ((blocked && !packed) || (!blocked && !plain)) continue;
          const char* layout = blocked ? "packed" : "plain ";
          if (m == 1) {
            const int calls = static_cast<int>(cold.size());
            const double cold_ms = best_ms_per_call(rounds, calls, [&](int i) { run(cold[i % calls], blocked); });
            const double hot_ms = best_ms_per_call(rounds, 200, [&](int) { run(first, blocked); });
            std::printf("%-17s %s M=1   %zuT  cold %8.4f ms %6.1f GB/s   hot %8.4f ms %6.1f GB/s\n",
                        shape.name, layout, threads, cold_ms, first.bytes() / (cold_ms * 1e6), hot_ms,
                        first.bytes() / (hot_ms * 1e6));
          } else {
            const double t = best_ms_per_call(rounds, 3, [&](int) { run(first, blocked); });
            const Int8Rows rows = a.quantize();
            const double q = best_ms_per_call(rounds, 3, [&](int) { a.quantize(); });
            const double gemm = best_ms_per_call(rounds, 3, [&](int) {
              if (blocked) {
                run_int8_int4_packed_linear(rows, {first.blocked.data(), first.n, first.k, kGroup},
                                            bias.data(), out.data());
              } else {
                run_int8_int4_linear(rows, {first.plain.data(), first.scales.data(), nullptr,
                                            first.n, first.k, kGroup}, bias.data(), out.data());
              }
            });
            const double ops = 2.0 * m * shape.n * shape.k;
            std::printf("%-17s %s M=%-3lld %zuT  %8.3f ms %7.1f GOP/s  (GEMM %7.1f GOP/s, "
                        "quantize %.3f ms)\n", shape.name, layout, static_cast<long long>(m), threads,
                        t, ops / (t * 1e6), ops / (gemm * 1e6), q);
          }
          std::fflush(stdout);
        }
      }
      set_num_threads(1);
    }
  }
  return 0;
}
