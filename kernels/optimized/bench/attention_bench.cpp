// attention_bench: GFLOP/s of the optimized flash attention
// (vec/flash_attention.h, torchedge::attention's kernel); not a test, run
// by hand.
//
//   attention_bench [--threads N] [--isa scalar|avx2|avx512] [--seconds S] [--filter TEXT]
//
// One line per shape: the best (minimum) time of repeated calls with hot
// caches, and 2 * B * L * S * (D + E) floating-point operations over it
// (q . k_t and p . v; the softmax's exps are not counted). The machine this
// runs on is often shared: compare binaries by alternating them and taking
// the minimum, not the median (printed beside it to show the noise). "Per
// CPU-second" is the rate over the process's best CPU time per call (all
// threads' together): at 1 thread the kernel's own rate while other jobs
// preempt it; at N threads, N times it is the rate with no wait.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/flash_attention.h"

using namespace torchedge;
using namespace torchedge::optimized;

namespace {

struct Shape {
  const char* name;
  int64_t batch, queries, keys, dim, vdim;
};

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CPU time of the whole process (every thread), which a descheduled
// thread does not accumulate: at 1 thread, the call's time with the other
// jobs on the host taken out.
double cpu_seconds_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 1;
  Isa isa = best_isa();
  double budget = 1.0;
  const char* filter = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--threads")) threads = static_cast<size_t>(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--seconds")) budget = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--filter")) filter = argv[i + 1];
    else if (!strcmp(argv[i], "--isa")) {
      isa = !strcmp(argv[i + 1], "scalar") ? Isa::kScalar
            : !strcmp(argv[i + 1], "avx2") ? Isa::kAvx2 : Isa::kAvx512;
    }
  }
  if (set_num_threads(threads) != Error::Ok) return 1;
  const Shape shapes[] = {
      // Whisper's encoder self-attention: 4 heads of 64 over 1500 frames.
      {"whisper 4x1500x1500x64", 4, 1500, 1500, 64, 64},
      // One head of it (the per-head cost; 24 query blocks for 2 threads).
      {"whisper 1x1500x1500x64", 1, 1500, 1500, 64, 64},
      // Long, not a multiple of any tile.
      {"odd 2x1000x1037x64", 2, 1000, 1037, 64, 64},
      // wav2vec2-shaped: 4 heads over 49 frames (short: overheads dominate).
      {"wav2vec2 4x49x49x64", 4, 49, 49, 64, 64},
      // BERT-MiniLM: 12 heads of 32 over 128 tokens.
      {"minilm 12x128x128x32", 12, 128, 128, 32, 32},
  };
  printf("isa %s, %zu thread(s)\n", isa_name(isa), threads);
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  for (const Shape& s : shapes) {
    if (filter != nullptr && strstr(s.name, filter) == nullptr) continue;
    std::vector<float> q(s.batch * s.queries * s.dim), kt(s.batch * s.dim * s.keys),
        v(s.batch * s.keys * s.vdim), out(s.batch * s.queries * s.vdim);
    for (float& x : q) x = 0.125f * dist(rng);
    for (float& x : kt) x = dist(rng);
    for (float& x : v) x = dist(rng);
    const FlashAttentionProblem p{q.data(), kt.data(), v.data(), out.data(),
                                  s.batch, s.queries, s.keys, s.dim, s.vdim};
    std::vector<float> scratch(flash_attention_scratch_bytes(p, isa, static_cast<int64_t>(threads)) /
                                   sizeof(float) + 16);
    float* aligned = scratch.data();
    while (reinterpret_cast<uintptr_t>(aligned) % 64 != 0) ++aligned;
    std::vector<double> times;
    double best_cpu = 1e30;
    const double start = seconds_now();
    while (times.size() < 3 || seconds_now() - start < budget) {
      const double c0 = cpu_seconds_now(), t0 = seconds_now();
      flash_attention(p, isa, aligned);
      times.push_back(seconds_now() - t0);
      const double cpu = cpu_seconds_now() - c0;
      best_cpu = cpu < best_cpu ? cpu : best_cpu;
    }
    std::sort(times.begin(), times.end());
    const double best = times.front(), median = times[times.size() / 2];
    const double flops = 2.0 * s.batch * s.queries * s.keys * (s.dim + s.vdim);
    printf("%-26s %7.1f GFLOP/s  %9.1f us  (best of %zu; median %6.1f; per CPU-second %6.1f)\n",
           s.name, flops / best * 1e-9, best * 1e6, times.size(), flops / median * 1e-9,
           flops / best_cpu * 1e-9);
  }
  return 0;
}
