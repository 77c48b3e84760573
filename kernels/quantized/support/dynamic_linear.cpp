#include "kernels/quantized/support/dynamic_linear.h"

#include <algorithm>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/quant_args.h"

namespace torchedge {
namespace quantized {

Error check_dynamic_linear_operands(const Tensor& in, const Tensor& scales, int64_t n,
                                    const Tensor* bias, const char* op) {
  TE_CHECK_OR_RETURN(in.dtype() == ScalarType::Float && in.dim() >= 1 && in.numel() > 0,
                     Error::InvalidArgument,
                     "%s: input must be a non-empty float32 tensor of rank >= 1, got %s %d-d",
                     op, to_string(in.dtype()), in.dim());
  const int64_t k = in.size(-1);
  TE_CHECK_OR_RETURN(k <= kMaxInt8GemmK, Error::InvalidArgument,
                     "%s: K = %lld exceeds %lld (the int32 sums could overflow)", op,
                     static_cast<long long>(k), static_cast<long long>(kMaxInt8GemmK));
  TE_CHECK_OR_RETURN(scales.dtype() == ScalarType::Float && scales.dim() == 1 &&
                         scales.size(0) == n,
                     Error::InvalidArgument, "%s: weight_scales must be float32 [%lld]", op,
                     static_cast<long long>(n));
  if (bias != nullptr) {
    TE_CHECK_OR_RETURN(bias->dtype() == ScalarType::Float &&
                           bias->numel() == static_cast<size_t>(n),
                       Error::InvalidArgument, "%s: bias must be float32 [%lld]", op,
                       static_cast<long long>(n));
  }
  return expect_row_major(in, "input", op);
}

Error check_packed_weight(const Tensor& w, int64_t strips, int64_t k, const char* op) {
  const int64_t strip_elements = int8_gemm_x_stride(k) * kInt8GemmStrip;
  TE_CHECK_OR_RETURN(w.dtype() == ScalarType::Char && w.dim() == 2 && w.size(0) == strips &&
                         w.size(1) == strip_elements,
                     Error::InvalidArgument,
                     "%s: weight_packed must be int8 [%lld, %lld] (K = %lld of input), got %s %d-d",
                     op, static_cast<long long>(strips), static_cast<long long>(strip_elements),
                     static_cast<long long>(k), to_string(w.dtype()), w.dim());
  return expect_row_major(w, "weight_packed", op);
}

Error check_dynamic_linear_out(const Tensor& out, const char* op) {
  TE_RETURN_IF_ERROR(expect_dtype(out, ScalarType::Float, "out"));
  return expect_row_major(out, "out", op);
}

namespace {

// Segment s's GEMM over m rows of k activations (x: the shifted int16 panels,
// or nullptr where the kernel reads the raw int8 rows).
Int8GemmF32Problem problem_of(const DynamicLinearSegment& s, const int16_t* x, float x_scale,
                              int64_t m, int64_t k) {
  return Int8GemmF32Problem{x,  s.weight, s.scales, s.bias, x_scale,
                            m,  s.n,      k,        s.out->mutable_data_as<float>(),
                            s.packed};
}

}  // namespace

#if defined(TORCHEDGE_QUANTIZED_ARM)
namespace {

// AArch64 with dot-product: the raw int8 activations, rows padded to 16
// bytes, and each segment's strips split over the pool
// (int8_gemm_f32_dotprod; no other scratch).
Error run_dynamic_linear_dotprod(KernelContext& ctx, const Tensor& in, int64_t m,
                                 Span<const DynamicLinearSegment> segments, const char* op) {
  const int64_t k = in.size(-1), stride = (k + 15) / 16 * 16;
  const size_t bytes = static_cast<size_t>(m * stride);
  int8_t* xq = static_cast<int8_t*>(ctx.allocate_temp(bytes, 64));
  TE_CHECK_OR_RETURN(xq != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", op, bytes);
  float x_scale = 1.0f;
  int32_t zero_point = 0;
  quantize_tensor_int8(in.data_as<float>(), m, k, stride, xq, &x_scale, &zero_point);
  for (const DynamicLinearSegment& s : segments) {
    if (s.n == 0) continue;
    const Int8GemmF32Problem p = problem_of(s, nullptr, x_scale, m, k);
    const int64_t strips = (s.n + kInt8GemmStrip - 1) / kInt8GemmStrip;
    // ~64K multiply-adds per chunk at least: smaller tasks cost more to hand out.
    const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, m * k * kInt8GemmStrip));
    parallel_for(0, strips, grain, [&](int64_t begin, int64_t end) {
      int8_gemm_f32_dotprod(p, xq, stride, zero_point, begin, end);
    });
  }
  return Error::Ok;
}

}  // namespace
#endif

Error run_dynamic_linear(KernelContext& ctx, const Tensor& in,
                         Span<const DynamicLinearSegment> segments, const char* op) {
  TE_CHECK_OR_RETURN(segments.size() <= kMaxDynamicLinearSegments, Error::InvalidArgument,
                     "%s: at most %zu layers per call, got %zu", op, kMaxDynamicLinearSegments,
                     segments.size());
  const int64_t k = in.size(-1);
  int64_t sizes[kTensorDimensionLimit];
  int64_t m = 1;
  for (int d = 0; d + 1 < in.dim(); ++d) {
    sizes[d] = in.size(d);
    m *= in.size(d);
  }
  int64_t n_total = 0;
  for (const DynamicLinearSegment& s : segments) {
    sizes[in.dim() - 1] = s.n;
    TE_RETURN_IF_ERROR(resize_to(*s.out, {sizes, static_cast<size_t>(in.dim())}));
    n_total += s.n;
  }
  if (n_total == 0) return Error::Ok;
#if defined(TORCHEDGE_QUANTIZED_ARM)
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) {
    return run_dynamic_linear_dotprod(ctx, in, m, segments, op);
  }
#endif
  const size_t x_bytes =
      (static_cast<size_t>(int8_gemm_x_elements(m, k)) * sizeof(int16_t) + 63) & ~size_t{63};
  const size_t gemm_bytes = int8_gemm_f32_scratch_bytes(m, n_total, k);
  char* scratch = static_cast<char*>(ctx.allocate_temp(x_bytes + gemm_bytes, 64));
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", op,
                     x_bytes + gemm_bytes);
  int16_t* shifted = reinterpret_cast<int16_t*>(scratch);
  float x_scale = 1.0f;
  int32_t zero_point = 0;
  quantize_tensor_int8_shifted(in.data_as<float>(), m, k, shifted, &x_scale, &zero_point);
  Int8GemmF32Problem problems[kMaxDynamicLinearSegments];
  size_t count = 0;
  for (const DynamicLinearSegment& s : segments) {
    if (s.n == 0) continue;
    problems[count++] = problem_of(s, shifted, x_scale, m, k);
  }
  run_int8_gemm_f32_batch(problems, count, scratch + x_bytes);
  return Error::Ok;
}

}  // namespace quantized
}  // namespace torchedge
