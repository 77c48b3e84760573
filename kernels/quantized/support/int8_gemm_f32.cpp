#include "kernels/quantized/support/int8_gemm_f32.h"

#include <algorithm>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {
namespace {

#if defined(TORCHEDGE_QUANTIZED_X86)
constexpr int64_t kStrip = kInt8GemmStrip;  // columns per packed weight strip (the AVX2 tile width)

int64_t strips_of(int64_t n) { return (n + kStrip - 1) / kStrip; }

// One worker per thread (never more than there are strips): each owns a
// scratch slot, so slots are indexed by work item, not by thread id.
int64_t workers_for(int64_t n) {
  return std::max<int64_t>(1, std::min<int64_t>(strips_of(n), static_cast<int64_t>(num_threads())));
}

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }
#endif  // TORCHEDGE_QUANTIZED_X86

}  // namespace

void int8_gemm_f32_scalar(const Int8GemmF32Problem& p, int64_t n_begin, int64_t n_end) {
  for (int64_t n = n_begin; n < n_end; ++n) {
    const int8_t* w = p.w + n * p.k;
    const float scale = p.x_scale * p.w_scales[n];
    for (int64_t m = 0; m < p.m; ++m) {
      int32_t acc = 0;
      for (int64_t i = 0; i < p.k; ++i) {
        const int8_t wi = p.w_packed ? p.w[int8_gemm_w_packed_index(n, i, p.k)] : w[i];
        acc += static_cast<int32_t>(p.x[int8_gemm_x_index(m, i, p.k)]) * wi;
      }
      float y = static_cast<float>(acc) * scale;
      if (p.bias != nullptr) y += p.bias[n];
      p.out[m * p.n + n] = y;
    }
  }
}

size_t int8_gemm_f32_scratch_bytes(int64_t m, int64_t n, int64_t k) {
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kScalar) {
    return static_cast<size_t>(workers_for(n)) * round_up_64(int8_gemm_f32_avx2_worker_bytes(m, k));
  }
#endif
  (void)m, (void)n, (void)k;
  return 0;
}

void run_int8_gemm_f32(const Int8GemmF32Problem& p, void* scratch) {
  run_int8_gemm_f32_batch(&p, 1, scratch);
}

void run_int8_gemm_f32_batch(const Int8GemmF32Problem* ps, size_t count, void* scratch) {
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kScalar) {
    // The problems' strips as one range [0, strips), split once over the
    // workers: one parallel_for (one wait for the threads) per call.
    int64_t strips = 0, n = 0;
    for (size_t i = 0; i < count; ++i) {
      strips += strips_of(ps[i].n);
      n += ps[i].n;
    }
    if (strips == 0) return;
    const int64_t workers = workers_for(n);
    const size_t slot = round_up_64(int8_gemm_f32_avx2_worker_bytes(ps[0].m, ps[0].k));
    parallel_for(0, workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t wi = begin; wi < end; ++wi) {
        const int64_t first = strips * wi / workers, last = strips * (wi + 1) / workers;
        void* worker_scratch = static_cast<char*>(scratch) + slot * static_cast<size_t>(wi);
        int64_t offset = 0;  // global index of problem i's first strip
        for (size_t i = 0; i < count && offset < last; ++i) {
          const int64_t own = strips_of(ps[i].n);
          const int64_t b = std::max(first, offset) - offset;
          const int64_t e = std::min(last, offset + own) - offset;
          if (b < e) int8_gemm_f32_avx2(ps[i], b, e, worker_scratch);
          offset += own;
        }
      }
    });
    return;
  }
#endif
  (void)scratch;
  for (size_t i = 0; i < count; ++i) {
    const Int8GemmF32Problem& p = ps[i];
    // ~64K multiply-adds per chunk at least: smaller tasks cost more to hand out.
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, p.m * p.k));
    parallel_for(0, p.n, grain,
                 [&](int64_t begin, int64_t end) { int8_gemm_f32_scalar(p, begin, end); });
  }
}

}  // namespace quantized
}  // namespace torchedge
