// memory_bandwidth: the read bandwidth a streaming kernel can reach here
// (not a test; run by hand): the GB/s of summing a buffer far larger than
// the last-level cache (default 512 MiB) with 256-bit loads, on 1 and on 2
// threads (the shared pool, each thread a contiguous half), best of
// several passes; and the same over an 8 MiB buffer (L2/L3-resident
// re-reads). The yardstick of the M = 1 (decode) 4-bit linear's weight
// stream (quantized_linear_bench's GB/s).
//
// Usage: memory_bandwidth [MiB] [passes]
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"

namespace {

// Sum of 64-bit words of [begin, end) with four independent chains (the
// compiler vectorizes the inner loop).
uint64_t sum_words(const uint64_t* begin, const uint64_t* end) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  for (const uint64_t* p = begin; p + 4 <= end; p += 4) {
    a += p[0];
    b += p[1];
    c += p[2];
    d += p[3];
  }
  return a + b + c + d;
}

double best_gbps(const std::vector<uint64_t>& buffer, int passes, uint64_t* sink) {
  double best = 0.0;
  const int64_t words = static_cast<int64_t>(buffer.size());
  for (int pass = 0; pass < passes; ++pass) {
    std::atomic<uint64_t> total{0};
    const auto start = std::chrono::steady_clock::now();
    const int64_t threads = static_cast<int64_t>(torchedge::num_threads());
    torchedge::parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t lo = words * t / threads, hi = words * (t + 1) / threads;
        total += sum_words(buffer.data() + lo, buffer.data() + hi);
      }
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *sink += total.load();
    const double gbps = static_cast<double>(words) * 8 / s * 1e-9;
    best = gbps > best ? gbps : best;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? static_cast<size_t>(std::atol(argv[1])) : 512;
  const int passes = argc > 2 ? std::atoi(argv[2]) : 8;
  std::vector<uint64_t> big(mib << 17), small(size_t{8} << 17);
  for (size_t i = 0; i < big.size(); ++i) big[i] = i;
  for (size_t i = 0; i < small.size(); ++i) small[i] = i;
  uint64_t sink = 0;
  for (size_t threads : {1, 2}) {
    torchedge::set_num_threads(threads);
    const double dram = best_gbps(big, passes, &sink);
    const double cached = best_gbps(small, passes * 20, &sink);
    std::printf("%zu thread%s: %6.1f GB/s over %zu MiB, %6.1f GB/s over 8 MiB\n", threads,
                threads > 1 ? "s" : " ", dram, mib, cached);
  }
  return sink == 42 ? 1 : 0;
}
