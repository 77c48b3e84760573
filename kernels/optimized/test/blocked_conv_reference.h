// torchedge/kernels/optimized/test/blocked_conv_reference.h
//
// What the tests of the convolutions on channel-blocked activations share
// (conv2d_blocked_test.cpp, winograd_blocked_test.cpp): the NCHW16c index,
// NCHW -> NCHW16c copies, and a double-precision direct convolution that
// checks a blocked output at conv2d_gemm's tolerance (1e-5 + 1e-4 relative
// to the sum of |terms|).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/optimized/conv/conv2d.h"

namespace torchedge {
namespace optimized {
namespace blocked_test {

/// Index of NCHW element (n, c, h, w) in the blocked [N, C/16, H, W, 16] layout.
inline int64_t blocked_index(int64_t n, int64_t c, int64_t h, int64_t w, int64_t channels,
                             int64_t height, int64_t width) {
  return (((n * (channels / 16) + c / 16) * height + h) * width + w) * 16 + c % 16;
}

/// NCHW [batch, channels, height, width] -> NCHW16c (channels a multiple of 16).
inline std::vector<float> to_blocked(const std::vector<float>& nchw, int64_t batch,
                                     int64_t channels, int64_t height, int64_t width) {
  std::vector<float> out(nchw.size());
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t h = 0; h < height; ++h)
        for (int64_t w = 0; w < width; ++w)
          out[blocked_index(n, c, h, w, channels, height, width)] =
              nchw[((n * channels + c) * height + h) * width + w];
  return out;
}

/// clamp(conv(x, w) (+ bias) (+ residual), lo, hi) for the NCHW operands
/// x [N, Cin, H, W], w [Cout, Cin, KH, KW], bias [Cout] and residual
/// [N, Cout, OH, OW] (either may be null), summed in double, with the sum of
/// |terms| that scales the tolerance. Computed once, it checks any number of
/// kernel outputs (thread counts, in place or not) of the same operands.
class BlockedConvReference {
 public:
  BlockedConvReference(const Conv2dShape& s, const std::vector<float>& x, const std::vector<float>& w,
                       const float* bias, const float* residual, float lo, float hi)
      : shape_(s) {
    const size_t outputs = static_cast<size_t>(s.batch * s.out_channels * s.out_h * s.out_w);
    sums_.reserve(outputs);
    scales_.reserve(outputs);
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t co = 0; co < s.out_channels; ++co) {
        for (int64_t oh = 0; oh < s.out_h; ++oh) {
          for (int64_t ow = 0; ow < s.out_w; ++ow) {
            double sum = bias != nullptr ? bias[co] : 0.0, scale = std::fabs(sum);
            for (int64_t ci = 0; ci < s.in_channels; ++ci) {
              for (int64_t kr = 0; kr < s.kernel_h; ++kr) {
                for (int64_t kq = 0; kq < s.kernel_w; ++kq) {
                  const int64_t ih = oh * s.stride_h - s.pad_h + kr, iw = ow * s.stride_w - s.pad_w + kq;
                  if (ih < 0 || ih >= s.in_h || iw < 0 || iw >= s.in_w) continue;
                  const double t = double{x[((n * s.in_channels + ci) * s.in_h + ih) * s.in_w + iw]} *
                                   w[((co * s.in_channels + ci) * s.kernel_h + kr) * s.kernel_w + kq];
                  sum += t;
                  scale += std::fabs(t);
                }
              }
            }
            if (residual != nullptr) {
              const double v = residual[((n * s.out_channels + co) * s.out_h + oh) * s.out_w + ow];
              sum += v;
              scale += std::fabs(v);
            }
            sums_.push_back(std::min<double>(hi, std::max<double>(lo, sum)));
            scales_.push_back(scale);
          }
        }
      }
    }
  }

  /// Asserts that y (blocked [N, Cout/16, OH, OW, 16]) holds the reference
  /// at conv2d_gemm's tolerance (1e-5 + 1e-4 * sum of |terms|).
  void expect_matches(const std::vector<float>& y) const {
    const Conv2dShape& s = shape_;
    size_t at = 0;
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t co = 0; co < s.out_channels; ++co) {
        for (int64_t oh = 0; oh < s.out_h; ++oh) {
          for (int64_t ow = 0; ow < s.out_w; ++ow, ++at) {
            const float got = y[blocked_index(n, co, oh, ow, s.out_channels, s.out_h, s.out_w)];
            ASSERT_NEAR(got, sums_[at], 1e-5 + 1e-4 * scales_[at])
                << "n " << n << " co " << co << " (" << oh << ", " << ow << ")";
          }
        }
      }
    }
  }

 private:
  Conv2dShape shape_;
  std::vector<double> sums_, scales_;  // NCHW order
};

/// Asserts that y (blocked [N, Cout/16, OH, OW, 16]) holds clamp(conv(x, w)
/// (+ bias) (+ residual), lo, hi) for the NCHW operands (see
/// BlockedConvReference, which a test checking several outputs keeps).
inline void expect_blocked_conv_matches(const Conv2dShape& s, const std::vector<float>& x,
                                        const std::vector<float>& w, const float* bias,
                                        const float* residual, float lo, float hi,
                                        const std::vector<float>& y) {
  BlockedConvReference(s, x, w, bias, residual, lo, hi).expect_matches(y);
}

}  // namespace blocked_test
}  // namespace optimized
}  // namespace torchedge
