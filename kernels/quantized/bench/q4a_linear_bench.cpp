// linear_q4a / linear_q8c (support/group_linear.h) on SmolLM2-135M's
// shapes (not a test; run by hand): q4a N x K = 576 x 576 (q, o),
// 192 x 576 (k, v), 1536 x 576 (gate, up), 576 x 1536 (down), and q8c
// 1536 x 576 (quantize="int8"'s layers) and 49152 x 576 (the output
// projection), group size 32, for M = 1 (decode)
// and M = 128 / 512 (prefill), 1 and 2 threads, through run_group_linear
// (activation quantization included, as the kernels run it).
//
// M = 1 is timed cold: consecutive calls walk through copies of the weight
// totalling >= 256 MiB, so every call streams its weights from DRAM as a
// decode step does (the model's weights, ~95 MB, exceed the L3); GB/s =
// bytes of codes, scales and mins per call / time; "hot" repeats one copy.
// The host's streaming read bandwidth (the same measure as
// memory_bandwidth) is printed first, per thread count, as the yardstick.
// M > 1 reports GOP/s = 2 M N K / time (one copy). Minimum over `rounds`.
//
// Usage: q4a_linear_bench [rounds] [activation bits: 8|32] [M list, e.g. 1,128,512]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/group_linear.h"

using namespace torchedge;
using namespace torchedge::quantized;

namespace {

constexpr int64_t kGroup = 32;

struct Shape {
  const char* name;
  GroupWeightFormat format;
  int64_t n, k;
};

struct Weights {
  std::vector<uint8_t> codes;
  std::vector<uint16_t> scales, mins;  // q4a
  std::vector<float> row_scales;       // q8c
  GroupLinearWeight w;

  Weights(const Shape& s, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    const bool affine = s.format == GroupWeightFormat::kAffine4;
    codes.resize(affine ? s.n * s.k / 2 : s.n * s.k);
    for (uint8_t& b : codes) b = static_cast<uint8_t>(byte(gen));
    if (affine) {
      scales.assign(s.n * (s.k / kGroup), 0x2000);  // float16 ~0.0078
      mins.assign(s.n * (s.k / kGroup), 0xA400);    // float16 -0.0156
    } else {
      row_scales.assign(s.n, 0.01f);
    }
    w = {s.format, codes.data(), scales.data(), mins.data(), row_scales.data(), s.n, s.k, kGroup};
  }
  double bytes() const {
    return codes.size() + 2.0 * (scales.size() + mins.size()) + 4.0 * row_scales.size();
  }
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best time per call (ms) of `calls` consecutive calls of f(i), over `rounds`.
template <typename F>
double best_ms(int rounds, int calls, F&& f) {
  f(0);
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const double start = now_s();
    for (int i = 0; i < calls; ++i) f(i);
    best = std::min(best, (now_s() - start) * 1e3 / calls);
  }
  return best;
}

// memory_bandwidth's measure: GB/s of summing `words` 64-bit words split
// across the pool's threads, best of `passes`.
double stream_gbps(const std::vector<uint64_t>& buffer, int passes) {
  double best = 0.0;
  const int64_t words = static_cast<int64_t>(buffer.size());
  static std::atomic<uint64_t> sink{0};
  for (int pass = 0; pass < passes; ++pass) {
    const double start = now_s();
    const int64_t threads = static_cast<int64_t>(num_threads());
    parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (int64_t i = words * t / threads; i + 4 <= words * (t + 1) / threads; i += 4) {
          a0 += buffer[i];
          a1 += buffer[i + 1];
          a2 += buffer[i + 2];
          a3 += buffer[i + 3];
        }
        sink += a0 + a1 + a2 + a3;
      }
    });
    best = std::max(best, words * 8.0 / (now_s() - start) * 1e-9);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int bits = argc > 2 ? std::atoi(argv[2]) : 8;
  std::vector<int64_t> ms = {1, 128, 512};
  if (argc > 3) {
    ms.clear();
    for (const char* p = argv[3]; *p;) {
      ms.push_back(std::strtol(p, const_cast<char**>(&p), 10));
      if (*p == ',') ++p;
    }
  }
  const QuantIsa isa = quant_isa();
  std::printf("ISA %s, group %lld, activation bits %d, min of %d rounds\n", quant_isa_name(isa),
              static_cast<long long>(kGroup), bits, rounds);
  {
    std::vector<uint64_t> big(size_t{512} << 17);
    for (size_t i = 0; i < big.size(); ++i) big[i] = i;
    for (size_t threads : {1, 2}) {
      set_num_threads(threads);
      std::printf("stream read bandwidth %zuT: %.1f GB/s (512 MiB)\n", threads,
                  stream_gbps(big, 6));
    }
    set_num_threads(1);
  }
  const Shape shapes[] = {{"q4a q/o 576x576", GroupWeightFormat::kAffine4, 576, 576},
                          {"q4a k/v 192x576", GroupWeightFormat::kAffine4, 192, 576},
                          {"q4a gate/up 1536x576", GroupWeightFormat::kAffine4, 1536, 576},
                          {"q4a down 576x1536", GroupWeightFormat::kAffine4, 576, 1536},
                          {"q8c gate/up 1536x576", GroupWeightFormat::kInt8Channel, 1536, 576},
                          {"q8c output 49152x576", GroupWeightFormat::kInt8Channel, 49152, 576}};
  for (const Shape& shape : shapes) {
    const Weights first(shape, 1);
    std::vector<Weights> cold;
    if (std::find(ms.begin(), ms.end(), 1) != ms.end()) {
      const int copies = static_cast<int>((256.0 * (1 << 20)) / first.bytes()) + 1;
      for (int c = 0; c < copies; ++c) cold.emplace_back(shape, c + 2);
    }
    for (int64_t m : ms) {
      std::vector<float> x(m * shape.k), out(m * shape.n), bias(shape.n, 0.1f);
      std::mt19937 gen(7);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (float& v : x) v = normal(gen);
      for (size_t threads : {1, 2}) {
        set_num_threads(threads);
        GroupLinearCall call{x.data(), m, bits, first.w, bias.data(), out.data()};
        std::vector<uint8_t> scratch(group_linear_scratch_bytes(call, isa, threads) + 64);
        void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) &
                                                ~uintptr_t{63});
        auto run = [&](const Weights& w) {
          call.weight = w.w;
          run_group_linear(call, isa, threads, aligned);
        };
        if (m == 1) {
          const int calls = static_cast<int>(cold.size());
          const double cold_ms = best_ms(rounds, calls, [&](int i) { run(cold[i % calls]); });
          const double hot_ms = best_ms(rounds, 200, [&](int) { run(first); });
          std::printf("%-21s M=1   %zuT  cold %8.4f ms %6.1f GB/s   hot %8.4f ms %6.1f GB/s\n",
                      shape.name, threads, cold_ms, first.bytes() / (cold_ms * 1e6), hot_ms,
                      first.bytes() / (hot_ms * 1e6));
        } else {
          const double t = best_ms(rounds, 3, [&](int) { run(first); });
          std::printf("%-21s M=%-3lld %zuT  %8.3f ms %7.1f GOP/s\n", shape.name,
                      static_cast<long long>(m), threads, t,
                      2.0 * m * shape.n * shape.k / (t * 1e6));
        }
        std::fflush(stdout);
      }
      set_num_threads(1);
    }
  }
  return 0;
}
