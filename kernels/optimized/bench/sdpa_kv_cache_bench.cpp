// sdpa_kv_cache on SmolLM2-135M's attention (not a test; run by hand): 9
// query heads over 3 kv heads, head dim 64, caches of 2048 rows, one set of
// caches per layer for 30 layers (so a decode step streams every layer's
// cached rows from DRAM, as in the model: 2 x rows x 768 bytes per layer),
// the caches written in place. Decode (T = 1) after 144, 512, 1024 and 2000
// cached rows; prefill of 512 tokens into an empty cache. Per layer: ms,
// GB/s of K and V rows read (decode) and GFLOP/s (4 D multiply-adds per
// query head and visible key, causal). Best of `rounds` sweeps over the 30
// layers, 1 and 2 threads (the shared pool).
//
// Usage: sdpa_kv_cache_bench [rounds]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace optimized {
Error sdpa_kv_cache_out(KernelContext& ctx, Span<EValue*> args);
}  // namespace optimized
}  // namespace torchedge

using namespace torchedge;

namespace {

constexpr int kContext = 2048, kLayers = 30, kQHeads = 9, kKvHeads = 3, kDim = 64;

struct Buffer {
  std::vector<int32_t> sizes, strides;
  std::vector<uint8_t> order;
  std::vector<float> data;
  Tensor tensor;
  Buffer(std::vector<int32_t> shape, ScalarType dtype = ScalarType::Float)
      : sizes(shape), strides(shape.size()), order(shape.size()) {
    size_t n = 1;
    for (int32_t s : shape) n *= static_cast<size_t>(s);
    data.resize(n + 16);
    std::mt19937 gen(static_cast<uint32_t>(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& v : data) v = uniform(gen);
    for (size_t i = 0; i < shape.size(); ++i) order[i] = static_cast<uint8_t>(i);
    tensor = Tensor(dtype, static_cast<int>(shape.size()), sizes.data(), order.data(),
                    strides.data(), data.data(), TensorShapeDynamism::DynamicBound);
  }
};

double best_ms_per_layer(int rounds, int tokens, int64_t start, std::vector<Buffer>& caches) {
  Buffer q({1, tokens, kQHeads, kDim}), k({1, tokens, kKvHeads, kDim}), v({1, tokens, kKvHeads, kDim});
  Buffer out({1, tokens, kQHeads, kDim}), start_pos({1}, ScalarType::Long);
  std::memcpy(start_pos.data.data(), &start, sizeof(start));
  std::vector<uint64_t> arena(1 << 20);
  double best = 1e30;
  for (int round = 0; round < rounds; ++round) {
    const auto begin = std::chrono::steady_clock::now();
    for (int layer = 0; layer < kLayers; ++layer) {
      Tensor* kc = &caches[2 * layer].tensor;
      Tensor* vc = &caches[2 * layer + 1].tensor;
      MemoryAllocator temp(arena.data(), arena.size() * sizeof(uint64_t));
      KernelContext ctx(&temp);
      EValue values[10] = {EValue(&q.tensor), EValue(&k.tensor), EValue(&v.tensor), EValue(kc),
                           EValue(vc), EValue(&start_pos.tensor), EValue(0.125), EValue(&out.tensor),
                           EValue(kc), EValue(vc)};
      EValue* args[10];
      for (int i = 0; i < 10; ++i) args[i] = &values[i];
      if (optimized::sdpa_kv_cache_out(ctx, {args, 10}) != Error::Ok) std::abort();
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    best = ms / kLayers < best ? ms / kLayers : best;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  std::vector<Buffer> caches;
  for (int i = 0; i < 2 * kLayers; ++i) caches.emplace_back(std::vector<int32_t>{1, kContext, kKvHeads, kDim});
  for (size_t threads : {1, 2}) {
    set_num_threads(threads);
    for (int64_t start : {144, 512, 1024, 2000}) {
      const double ms = best_ms_per_layer(rounds, 1, start, caches);
      const double keys = static_cast<double>(start + 1);
      std::printf("decode after %4lld rows %zuT  %8.4f ms/layer %6.1f GB/s K+V %6.1f GFLOP/s\n",
                  static_cast<long long>(start), threads, ms, 2.0 * keys * kKvHeads * kDim * 4 / (ms * 1e6),
                  4.0 * kQHeads * kDim * keys / (ms * 1e6));
    }
    const double ms = best_ms_per_layer(rounds > 3 ? 3 : rounds, 512, 0, caches);
    std::printf("prefill 512 tokens   %zuT  %8.4f ms/layer %6.1f GFLOP/s\n", threads, ms,
                4.0 * kQHeads * kDim * (512.0 * 513.0 / 2) / (ms * 1e6));
  }
  return 0;
}
