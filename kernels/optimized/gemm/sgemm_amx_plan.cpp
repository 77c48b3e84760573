// gemm/sgemm_amx.h: when the AMX GEMM applies and its scratch (baseline
// code: callers ask before any AMX instruction can run).
#include <limits>

#include "kernels/optimized/gemm/sgemm_amx.h"
#include "kernels/optimized/gemm/sgemm_amx_layout.h"

namespace torchedge {
namespace optimized {
namespace {

// Whether [a, a + a_len) and [b, b + b_len) share an element.
bool overlap(const float* a, int64_t a_len, const float* b, int64_t b_len) {
  return a < b + b_len && b < a + a_len;
}

int64_t span(int64_t rows, int64_t row_stride, int64_t cols) {
  return (rows - 1) * row_stride + cols;
}

}  // namespace

bool sgemm_amx_applies(const SgemmProblem& p) {
  if (!amx_usable() || p.batch != 1 || p.m < kSgemmAmxMinRows || p.n < 1 || p.k < 1) {
    return false;
  }
  if (p.b_prepacked == nullptr || p.b_prepacked_nr != 16 || p.pack_b != nullptr ||
      p.a.col_stride != 1 || p.alpha != 1.0f || (p.beta != 0.0f && p.beta != 1.0f) ||
      p.row_bias != nullptr || p.min != -std::numeric_limits<float>::infinity() ||
      p.max != std::numeric_limits<float>::infinity()) {
    return false;
  }
  const int64_t c_span = span(p.m, p.ldc, p.n);
  if (overlap(p.c, c_span, p.a.data, span(p.m, p.a.row_stride, p.k))) return false;
  if (p.beta != 0.0f && (p.addend.col_stride != 1 ||
                         overlap(p.c, c_span, p.addend.data, span(p.m, p.addend.row_stride, p.n)))) {
    return false;
  }
  return true;
}

size_t sgemm_amx_scratch_bytes(const SgemmProblem& p) {
  const amx_layout::Sizes z = amx_layout::sizes(p.n, p.k);
  return amx_layout::scratch_bytes(z, amx_layout::workers(z, p.m)) + 64;
}

#ifdef TORCHEDGE_NO_X86_SIMD
// Builds without the x86 SIMD units have no sgemm_amx.cpp (amx_usable() is
// false there, so this is never reached through sgemm_amx_applies).
Error sgemm_amx(KernelContext& ctx, const SgemmProblem& p) {
  (void)ctx;
  (void)p;
  return Error::NotSupported;
}
#endif

}  // namespace optimized
}  // namespace torchedge
