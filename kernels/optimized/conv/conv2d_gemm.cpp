// Convolution as SGEMM with an implicit-im2col B packer (see conv2d.h).
#include <cstring>

#include "kernels/optimized/conv/conv1d_small_k.h"
#include "kernels/optimized/conv/conv2d.h"
#include "kernels/optimized/conv/depthwise_blocked.h"
#include "kernels/optimized/conv/im2col.h"
#include "kernels/optimized/conv/winograd.h"
#include "kernels/optimized/gemm/sgemm.h"
#include "runtime/core/error_message.h"
#include "runtime/core/memory_allocator.h"

namespace torchedge {
namespace optimized {
namespace {

// Writes, for output pixels [p, p + count) of one output row (oh fixed,
// ow from ow0), the input values under kernel tap (kh, kw) of channel ci.
inline void gather_run(const Im2colSource& src, const float* plane, int64_t oh, int64_t ow0,
                       int64_t count, int64_t kh, int64_t kw, float* dst) {
  const Conv2dShape& s = *src.s;
  const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dilation_h;
  if (ih < 0 || ih >= s.in_h) {
    std::memset(dst, 0, sizeof(float) * count);
    return;
  }
  const float* row = plane + ih * s.in_w;
  const int64_t iw0 = ow0 * s.stride_w - s.pad_w + kw * s.dilation_w;
  if (s.stride_w == 1) {
    // Valid t: 0 <= iw0 + t < W.
    int64_t lo = iw0 < 0 ? -iw0 : 0;
    int64_t hi = s.in_w - iw0;
    lo = lo > count ? count : lo;
    hi = hi < lo ? lo : (hi > count ? count : hi);
    for (int64_t t = 0; t < lo; ++t) dst[t] = 0.0f;
    const float* from = row + iw0;
    for (int64_t t = lo; t < hi; ++t) dst[t] = from[t];
    for (int64_t t = hi; t < count; ++t) dst[t] = 0.0f;
    return;
  }
  for (int64_t t = 0; t < count; ++t) {
    const int64_t iw = iw0 + t * s.stride_w;
    dst[t] = iw >= 0 && iw < s.in_w ? row[iw] : 0.0f;
  }
}

// One strip's output pixels cut into runs that stay within an output row.
struct PixelRun {
  int64_t j, count, oh, ow;
};

}  // namespace

namespace detail {

// conv/im2col.h. The runs of each strip are worked out once, so the
// per-tap loop has no divisions.
void pack_im2col_scalar(const void* context, int64_t k0, int64_t kc, int64_t n0, int64_t nc,
                        int nr, float* dst) {
  const Im2colSource& src = *static_cast<const Im2colSource*>(context);
  const Conv2dShape& s = *src.s;
  const int64_t taps = s.kernel_h * s.kernel_w;
  const int64_t plane_size = s.in_h * s.in_w;
  constexpr int kMaxRuns = 64;  // nr <= 64 (widest micro-kernel is 32)
  PixelRun runs[kMaxRuns];
  for (int64_t strip = 0; strip < nc; strip += nr) {
    const int64_t cols = nc - strip < nr ? nc - strip : nr;
    float* out = dst + strip * kc;
    int num_runs = 0;
    for (int64_t j = 0; j < cols && num_runs < kMaxRuns;) {
      const int64_t p = n0 + strip + j;
      const int64_t oh = p / s.out_w, ow = p % s.out_w;
      const int64_t count = s.out_w - ow < cols - j ? s.out_w - ow : cols - j;
      runs[num_runs++] = PixelRun{j, count, oh, ow};
      j += count;
    }
    int64_t ci = k0 / taps, r = k0 % taps;
    int64_t kh = r / s.kernel_w, kw = r % s.kernel_w;
    for (int64_t k = 0; k < kc; ++k) {
      float* o = out + k * nr;
      const float* plane = src.x + ci * plane_size;
      for (int i = 0; i < num_runs; ++i) {
        const PixelRun& run = runs[i];
        gather_run(src, plane, run.oh, run.ow, run.count, kh, kw, o + run.j);
      }
      for (int64_t t = cols; t < nr; ++t) o[t] = 0.0f;
      if (++kw == s.kernel_w) {
        kw = 0;
        if (++kh == s.kernel_h) {
          kh = 0;
          ++ci;
        }
      }
    }
  }
}

}  // namespace detail

Error conv2d_gemm(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                  const float* bias, float* y, const Conv2dClamp& clamp,
                  const float* residual) {
#ifndef TORCHEDGE_NO_X86_SIMD
  if (detail::winograd_applies(s)) {
    const Error err = detail::conv2d_winograd_avx2(ctx, s, x, w, bias, y, clamp, residual);
    // Short of scratch, or an infinity / NaN in the operands: im2col instead.
    if (err != Error::MemoryAllocationFailed && err != Error::NotSupported) return err;
  }
  if (residual == nullptr && detail::conv1d_small_k_applies(s) && best_isa() == Isa::kAvx512) {
    const Error err = detail::conv1d_small_k_avx512(ctx, s, x, w, bias, y, clamp);
    if (err != Error::MemoryAllocationFailed) return err;
  }
  if (residual == nullptr && detail::conv1d_grouped_applies(s) && best_isa() == Isa::kAvx512) {
    const Error err = detail::conv1d_grouped_avx512(ctx, s, x, w, bias, y, clamp);
    if (err != Error::MemoryAllocationFailed) return err;
  }
#endif
  return conv2d_im2col(ctx, s, x, w, bias, y, clamp, residual);
}

Error conv2d_im2col(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                    const float* bias, float* y, const Conv2dClamp& clamp,
                    const float* residual) {
  const int64_t cin_g = s.in_channels / s.groups, cout_g = s.out_channels / s.groups;
  const int64_t k = cin_g * s.kernel_h * s.kernel_w;
  const int64_t pixels = s.out_h * s.out_w;
  const bool direct = s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                      s.pad_h == 0 && s.pad_w == 0;
  SgemmProblem p;
  p.m = cout_g, p.n = pixels, p.k = k;
  p.ldc = pixels;
  if (!direct) {
    p.pack_b = &detail::pack_im2col_scalar;
#ifndef TORCHEDGE_NO_X86_SIMD
    if (static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2)) {
      p.pack_b = detail::pack_conv1d_applies(s) ? &detail::pack_conv1d_avx2
                                                : &detail::pack_im2col_avx2;
    }
#endif
  }
  // The bias, the residual and the clamp are the GEMM's epilogue: the AVX2
  // micro-kernel applies them to its accumulators as it stores the last K
  // block (sgemm_driver.h, TileEpilogue), ((acc + bias) + residual, then the
  // clamp). They used to be a separate pass over each GEMM's output, which
  // beat the driver's per-row epilogue calls but cost ~10 % of MobileNetV2
  // (its 1x1 layers have K = 16-96: little compute per output element).
  p.min = clamp.min;
  p.max = clamp.max;
  if (residual != nullptr) {
    p.beta = 1.0f;
    p.addend.row_stride = pixels;
    p.addend.col_stride = 1;
  }
  // Every (image, group) GEMM reuses one scratch chunk.
  const size_t scratch_bytes = sgemm_scratch_bytes(p);
  void* scratch = ctx.allocate_temp(scratch_bytes, 64);
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "convolution: no room for %zu bytes of GEMM scratch", scratch_bytes);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const float* xg = x + (n * s.in_channels + g * cin_g) * s.in_h * s.in_w;
      Im2colSource src{xg, &s};
      p.a = MatrixView{w + g * cout_g * k, k, 1};
      if (direct) {
        p.b = MatrixView{xg, pixels, 1};
      } else {
        p.pack_b_context = &src;
      }
      const int64_t offset = (n * s.out_channels + g * cout_g) * pixels;
      p.c = y + offset;
      p.row_bias = bias == nullptr ? nullptr : bias + g * cout_g;
      if (residual != nullptr) p.addend.data = residual + offset;
      MemoryAllocator chunk(scratch, scratch_bytes);
      KernelContext chunk_ctx(&chunk);
      TE_RETURN_IF_ERROR(sgemm(chunk_ctx, p));
    }
  }
  return Error::Ok;
}

Error conv2d_depthwise(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                       const float* bias, float* y, const Conv2dClamp& clamp) {
  // Kernels other than 3x3 stride 1 / 2 (the plane loops' fast case) go
  // through the blocked depthwise kernel when the channels allow.
  const bool fast3x3 = s.kernel_h == 3 && s.kernel_w == 3 && s.stride_h == s.stride_w &&
                       (s.stride_h == 1 || s.stride_h == 2);
  if (!fast3x3) {
    const Error err = conv2d_depthwise_through_blocked(ctx, s, x, w, bias, y, clamp);
    if (err == Error::Ok) return err;
  }
#ifndef TORCHEDGE_NO_X86_SIMD
  if (static_cast<int>(best_isa()) >= static_cast<int>(Isa::kAvx2)) {
    return detail::conv2d_depthwise_avx2(ctx, s, x, w, bias, y, clamp);
  }
#endif
  return detail::conv2d_depthwise_scalar(ctx, s, x, w, bias, y, clamp);
}

}  // namespace optimized
}  // namespace torchedge
