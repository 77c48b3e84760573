// The portable SGEMM micro-kernel (4 x 16, plain C++ the compiler may
// vectorize for the baseline ISA): the fallback on CPUs without AVX2 and
// on non-x86 targets.
#include "kernels/optimized/gemm/sgemm_driver.h"

namespace torchedge {
namespace optimized {
namespace {

struct ScalarKernel {
  static constexpr int kMr = 4;
  static constexpr int kNr = 16;
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 128;
  static constexpr int64_t kNc = 1024;

  static void micro(int64_t kc, const float* pa, const float* pb, float* c, int64_t ldc,
                    bool accumulate) {
    float acc[kMr][kNr] = {};
    for (int64_t k = 0; k < kc; ++k) {
      for (int i = 0; i < kMr; ++i) {
        const float a = pa[k * kMr + i];
        for (int j = 0; j < kNr; ++j) acc[i][j] += a * pb[k * kNr + j];
      }
    }
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      for (int j = 0; j < kNr; ++j) row[j] = accumulate ? row[j] + acc[i][j] : acc[i][j];
    }
  }
};

}  // namespace

namespace detail {
Error sgemm_scalar(KernelContext& ctx, const SgemmProblem& p) {
  return sgemm_driver::run<ScalarKernel>(ctx, p);
}
size_t sgemm_scratch_bytes_scalar(const SgemmProblem& p) {
  return sgemm_driver::scratch_bytes<ScalarKernel>(p);
}
}  // namespace detail

}  // namespace optimized
}  // namespace torchedge
