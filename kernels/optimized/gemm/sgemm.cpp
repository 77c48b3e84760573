#include "kernels/optimized/gemm/sgemm.h"

#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace {

// On aarch64 the baseline level (Isa::kScalar) runs the NEON micro-kernel,
// unless TORCHEDGE_ISA=scalar asks for the portable one.
bool baseline_is_neon() {
#if defined(__aarch64__)
  return best_arm_isa() >= ArmIsa::kNeon;
#else
  return false;
#endif
}

}  // namespace


Error sgemm_with_isa(KernelContext& ctx, const SgemmProblem& p, Isa isa) {
  TE_CHECK_OR_RETURN(p.m >= 0 && p.n >= 0 && p.k >= 0 && p.batch >= 0, Error::InvalidArgument,
                     "sgemm: negative size (m=%lld, n=%lld, k=%lld, batch=%lld)",
                     static_cast<long long>(p.m), static_cast<long long>(p.n),
                     static_cast<long long>(p.k), static_cast<long long>(p.batch));
  TE_CHECK_OR_RETURN(p.pack_b == nullptr || p.batch <= 1, Error::InvalidArgument,
                     "sgemm: a custom B packer supports batch 1 only");
  TE_CHECK_OR_RETURN(p.b_prepacked == nullptr || (p.batch <= 1 && p.b_prepacked_nr >= 1 &&
                                                  p.pack_b == nullptr),
                     Error::InvalidArgument,
                     "sgemm: prepacked B needs batch 1, a strip width >= 1 (got %lld) and no "
                     "custom packer",
                     static_cast<long long>(p.b_prepacked_nr));
  TE_CHECK_OR_RETURN(static_cast<int>(isa) <= static_cast<int>(detected_isa()),
                     Error::NotSupported, "sgemm: this CPU cannot run the %s kernel",
                     isa_name(isa));
  switch (isa) {
#ifndef TORCHEDGE_NO_X86_SIMD
    case Isa::kAvx512: return detail::sgemm_avx512(ctx, p);
    case Isa::kAvx2: return detail::sgemm_avx2(ctx, p);
#else
    case Isa::kAvx512:
    case Isa::kAvx2:
#endif
    case Isa::kScalar: break;
  }
#if defined(__aarch64__)
  if (baseline_is_neon()) return detail::sgemm_neon(ctx, p);
#endif
  return detail::sgemm_scalar(ctx, p);
}

size_t sgemm_scratch_bytes(const SgemmProblem& p) {
  switch (sgemm_isa(p)) {
#ifndef TORCHEDGE_NO_X86_SIMD
    case Isa::kAvx512: return detail::sgemm_scratch_bytes_avx512(p);
    case Isa::kAvx2: return detail::sgemm_scratch_bytes_avx2(p);
#else
    case Isa::kAvx512:
    case Isa::kAvx2:
#endif
    case Isa::kScalar: break;
  }
#if defined(__aarch64__)
  if (baseline_is_neon()) return detail::sgemm_scratch_bytes_neon(p);
#endif
  return detail::sgemm_scratch_bytes_scalar(p);
}

Isa sgemm_isa(const SgemmProblem& p) {
  (void)p;  // every shape measured at least as fast on the best ISA (sgemm.h)
  return best_isa();
}

Error sgemm(KernelContext& ctx, const SgemmProblem& p) { return sgemm_with_isa(ctx, p, sgemm_isa(p)); }

}  // namespace optimized
}  // namespace torchedge
