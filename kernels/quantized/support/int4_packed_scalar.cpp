// Portable loops of linear_8da4w_packed (any CPU), the reference the SIMD
// paths are tested against, and the thread split shared by every ISA.
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int4_packed.h"
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {

void int8_int4_packed_scalar(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                             float* out, int64_t nb_begin, int64_t nb_end) {
  const int64_t k = w.k, g = w.group_size, groups = w.groups();
  const int64_t n_end = nb_end * kInt4PackedRows < w.n ? nb_end * kInt4PackedRows : w.n;
  for (int64_t n = nb_begin * kInt4PackedRows; n < n_end; ++n) {
    for (int64_t m = 0; m < x.m; ++m) {
      const int8_t* xr = x.q + m * k;
      const int32_t xzp = x.zero_points[m];
      float acc = 0.0f;
      for (int64_t gi = 0; gi < groups; ++gi) {
        int32_t dot = 0;
        for (int64_t kk = gi * g; kk < (gi + 1) * g; ++kk) {
          dot += (static_cast<int32_t>(xr[kk]) - xzp) * w.q(n, kk);
        }
        acc += w.scale(n, gi) * static_cast<float>(dot);
      }
      out[m * w.n + n] = x.scales[m] * acc + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

void run_int8_int4_packed_linear(const Int8Rows& x, const Int4PackedWeight& w, const float* bias,
                                 float* out) {
  auto blocks = int8_int4_packed_scalar;
#if defined(TORCHEDGE_QUANTIZED_X86)
  switch (quant_isa()) {
    case QuantIsa::kAvx512Vnni: blocks = int8_int4_packed_avx512vnni; break;
    case QuantIsa::kAvx2: blocks = int8_int4_packed_avx2; break;
    case QuantIsa::kScalar: break;
  }
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) blocks = int8_int4_packed_dotprod;
#endif
  // A chunk of row blocks streams at least ~16 KiB of weights or does
  // ~1M multiply-adds, so a thread handoff is cheap next to it; a weight of
  // under 128 KiB (SmolLM2's k / v projections: 69 KiB, ~2.5 us at DRAM
  // speed) is not split at all for a few rows.
  const int64_t block_bytes = w.groups() * w.record_bytes();
  const int64_t macs = (x.m > 0 ? x.m : 1) * kInt4PackedRows * w.k;
  int64_t grain = (int64_t{1} << 14) / (block_bytes > 0 ? block_bytes : 1);
  const int64_t compute_grain = (int64_t{1} << 20) / (macs > 0 ? macs : 1);
  grain = grain < compute_grain ? grain : compute_grain;
  if (x.m <= 4 && w.row_blocks() * block_bytes < (int64_t{128} << 10)) grain = w.row_blocks();
  parallel_for(0, w.row_blocks(), grain < 1 ? 1 : grain,
               [&](int64_t begin, int64_t end) { blocks(x, w, bias, out, begin, end); });
}

}  // namespace quantized
}  // namespace torchedge
