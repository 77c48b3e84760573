// torchedge/kernels/optimized/conv/depthwise_loops.h
//
// Depthwise convolution (groups == Cin == Cout) loops, shared by the AVX2
// and the scalar builds (conv/depthwise_<isa>.cpp): each channel plane is
// copied once into a zero-padded scratch plane so the tap loops run without
// bounds checks; each output row is then accumulated tap by tap (a weight
// broadcast times a contiguous, or strided, input row), which the compiler
// vectorizes for the ISA of the including file. run() first offers each
// plane to the including file's `fast` plane function (the AVX2 build's
// register-blocked 3x3 kernels), which returns false for geometries it does
// not take; before that, run() lets the including file's `direct` planes
// take the whole call without any copy (the AVX2 build's 3x3 / pad 1 kernels,
// which handle the padding themselves). The output clamp (conv2d.h) is
// applied to each finished output row (fast: to each output vector before
// its store). The padded plane has kSlack floats after its last row so
// vector loads may run past a row's end (into values they then discard).
// Threads take whole planes.
//
// Include only from those files: everything here is `static` (each ISA gets
// its own copy, never merged by the linker into baseline callers).
#pragma once

#include <cstring>

#include "kernels/optimized/conv/conv2d.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace depthwise_loops {

constexpr int64_t kSlack = 64;

// One output plane from a padded input plane (row stride `pw`).
template <int kStride>
static void depthwise_plane(const Conv2dShape& s, const float* padded, int64_t pw, const float* w,
                            float b, const Conv2dClamp& clamp, float* y) {
  const bool clamped = clamp.active();
  const int64_t sh = kStride == 0 ? s.stride_h : kStride;
  const int64_t sw = kStride == 0 ? s.stride_w : kStride;
  for (int64_t oh = 0; oh < s.out_h; ++oh) {
    float* __restrict out = y + oh * s.out_w;
    for (int64_t ow = 0; ow < s.out_w; ++ow) out[ow] = b;
    for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
      const float* row = padded + (oh * sh + kh * s.dilation_h) * pw;
      for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
        const float wv = w[kh * s.kernel_w + kw];
        const float* __restrict in = row + kw * s.dilation_w;
        for (int64_t ow = 0; ow < s.out_w; ++ow) out[ow] += wv * in[ow * sw];
      }
    }
    if (clamped) {
      for (int64_t ow = 0; ow < s.out_w; ++ow) out[ow] = clamp.apply(out[ow]);
    }
  }
}

// Whether [a, a + an) and [b, b + bn) (floats) share memory.
static inline bool overlaps(const float* a, int64_t an, const float* b, int64_t bn) {
  return a < b + bn && b < a + an;
}

// The planes from the input itself, no padded copy: direct.plane(s, x_plane,
// zero, w, b, clamp, y) reads rows outside the input from `zero`
// (s.in_w + kSlack zeros) and handles the left and right padding itself.
template <typename Direct>
static Error run_direct(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                        const float* bias, float* y, const Conv2dClamp& clamp, int64_t planes,
                        Direct direct) {
  float* zero = static_cast<float*>(
      ctx.allocate_temp(sizeof(float) * static_cast<size_t>(s.in_w + kSlack), 64));
  TE_CHECK_OR_RETURN(zero != nullptr, Error::MemoryAllocationFailed,
                     "convolution (depthwise): no room for a zero row of %lld floats",
                     static_cast<long long>(s.in_w + kSlack));
  std::memset(zero, 0, sizeof(float) * static_cast<size_t>(s.in_w + kSlack));
  const int64_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  parallel_for(0, planes, 1, [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t c = plane % s.in_channels;
      direct.plane(s, x + plane * in_plane, zero, w + c * s.kernel_h * s.kernel_w,
                   bias == nullptr ? 0.0f : bias[c], clamp, y + plane * out_plane);
    }
  });
  return Error::Ok;
}

// fast(s, padded, pw, w, b, clamp, y) -> bool: one plane, or false to decline.
// direct.applies(s) -> bool: run_direct() takes the whole call (see there);
// it is not offered an output that overlaps the input (it reads input rows
// after writing earlier output rows).
template <typename Fast, typename Direct>
static Error run(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
                 const float* bias, float* y, const Conv2dClamp& clamp, Fast fast,
                 Direct direct) {
  if (s.groups != s.in_channels || s.out_channels != s.in_channels) return Error::NotSupported;
  const int64_t ph = s.in_h + 2 * s.pad_h, pw = s.in_w + 2 * s.pad_w;
  const int64_t planes = s.batch * s.in_channels;
  const int64_t parts = static_cast<int64_t>(num_threads()) < planes
                            ? static_cast<int64_t>(num_threads())
                            : planes;
  if (parts == 0) return Error::Ok;
  if (direct.applies(s) &&
      !overlaps(x, planes * s.in_h * s.in_w, y, planes * s.out_h * s.out_w)) {
    return run_direct(ctx, s, x, w, bias, y, clamp, planes, direct);
  }
  const size_t plane_floats = static_cast<size_t>((ph * pw + kSlack + 15) / 16 * 16);
  float* scratch = static_cast<float*>(
      ctx.allocate_temp(sizeof(float) * plane_floats * static_cast<size_t>(parts), 64));
  TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                     "convolution (depthwise): no room for %lld padded planes",
                     static_cast<long long>(parts));
  const int64_t in_plane = s.in_h * s.in_w, out_plane = s.out_h * s.out_w;
  parallel_for(0, parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      float* padded = scratch + static_cast<size_t>(part) * plane_floats;
      // The border stays zero; only the interior is rewritten per plane.
      std::memset(padded, 0, sizeof(float) * plane_floats);
      for (int64_t plane = part; plane < planes; plane += parts) {
        const int64_t c = plane % s.in_channels;
        const float* src = x + plane * in_plane;
        for (int64_t h = 0; h < s.in_h; ++h) {
          std::memcpy(padded + (h + s.pad_h) * pw + s.pad_w, src + h * s.in_w,
                      sizeof(float) * static_cast<size_t>(s.in_w));
        }
        const float* wc = w + c * s.kernel_h * s.kernel_w;
        const float b = bias == nullptr ? 0.0f : bias[c];
        float* out = y + plane * out_plane;
        if (fast(s, padded, pw, wc, b, clamp, out)) continue;
        if (s.stride_h == 1 && s.stride_w == 1) {
          depthwise_plane<1>(s, padded, pw, wc, b, clamp, out);
        } else if (s.stride_h == 2 && s.stride_w == 2) {
          depthwise_plane<2>(s, padded, pw, wc, b, clamp, out);
        } else {
          depthwise_plane<0>(s, padded, pw, wc, b, clamp, out);
        }
      }
    }
  });
  return Error::Ok;
}

}  // namespace depthwise_loops
}  // namespace optimized
}  // namespace torchedge
