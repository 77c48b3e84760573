// torchedge::max_pool2d_blocked.out(Tensor self, int[2] kernel_size, int[2] stride,
//     int[2] padding, int[2] dilation, bool ceil_mode, *, Tensor(a!) out) -> Tensor(a!)
//
// torchedge::max_pool2d (op_max_pool2d_with_indices.cpp: ATen's values, NaN
// wins, windows clipped to the input, ATen's output size and ceil_mode
// rule) on the channel-blocked layout (NCHW16c, python/torchedge/passes/
// conv2d_blocked_op.py): self and out are float32 [N, C / 16, H, W, 16],
// element (n, c, h, w) at [n, c / 16, h, w, c % 16], out [N, C / 16, OH, OW,
// 16]. Any dim order. A window with no element inside the input gives -inf.
// Errors: self or out not float32, self not blocked or empty (except its
// batch dim), the window arguments' (as max_pool2d's: kernel_size and
// dilation >= 1, stride >= 1 or empty for the kernel size, padding >= 0 and
// at most half the dilated kernel, a positive output size), self
// overlapping out.
#include <limits>

#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr int64_t kBlock = 16;  // channels per blocked vector
constexpr const char* kOp = "max_pool2d_blocked.out";

using Window = MaxPoolWindow;

Error check_self(const Tensor& self) {
  TE_RETURN_IF_ERROR(expect_dtype(self, ScalarType::Float, "max_pool2d_blocked.out: self"));
  TE_CHECK_OR_RETURN(self.dim() == 5 && self.size(4) == kBlock, Error::InvalidArgument,
                     "%s: self must be blocked [N, C/16, H, W, 16], got %d dims (last %lld)", kOp,
                     self.dim(),
                     static_cast<long long>(self.dim() > 0 ? self.size(self.dim() - 1) : 0));
  for (int d = 1; d < 4; ++d) {
    TE_CHECK_OR_RETURN(self.size(d) > 0, Error::InvalidArgument,
                       "%s: self dim %d is empty (only the batch dim may be)", kOp, d);
  }
  return Error::Ok;
}

// The 16 channels of output pixel (oh, ow) in channel block (n, cb): the
// portable max_pool2d's rule lane by lane.
void pool_pixel(const Tensor& self, const Window& w, int64_t n, int64_t cb, int64_t oh,
                int64_t ow, float* y, int64_t y_lane_stride) {
  const int64_t in_h = self.size(2), in_w = self.size(3);
  const PoolWindowTaps t = pool_window_taps(w, oh, ow);
  const float* block = self.data_as<float>() + n * self.stride(0) + cb * self.stride(1);
  float best[kBlock];
  for (float& b : best) b = -std::numeric_limits<float>::infinity();
  for (int64_t ih = t.h0; ih < t.h_end && ih < in_h; ih += w.dilation[0]) {
    for (int64_t iw = t.w0; iw < t.w_end && iw < in_w; iw += w.dilation[1]) {
      const float* px = block + ih * self.stride(2) + iw * self.stride(3);
      for (int64_t c = 0; c < kBlock; ++c) {
        const float v = px[c * self.stride(4)];
        if (v > best[c] || v != v) best[c] = v;
      }
    }
  }
  for (int64_t c = 0; c < kBlock; ++c) y[c * y_lane_stride] = best[c];
}

}  // namespace

Error max_pool2d_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(args, 5, "ceil_mode"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  Window w;
  TE_RETURN_IF_ERROR(read_max_pool_window(args, kOp, &w));
  TE_RETURN_IF_ERROR(check_self(*self));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Float, "max_pool2d_blocked.out: out"));
  int64_t out_h = 0, out_w = 0;
  TE_RETURN_IF_ERROR(pool_output_size(self->size(2), w.kernel[0], w.padding[0], w.stride[0],
                                      w.dilation[0], ceil_mode, kOp, &out_h));
  TE_RETURN_IF_ERROR(pool_output_size(self->size(3), w.kernel[1], w.padding[1], w.stride[1],
                                      w.dilation[1], ceil_mode, kOp, &out_w));
  const int64_t sizes[5] = {self->size(0), self->size(1), out_h, out_w, kBlock};
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, 5}));
  TE_CHECK_OR_RETURN(!bytes_overlap(*self, *out), Error::InvalidArgument,
                     "%s: self must not overlap out", kOp);
  float* y = out->mutable_data_as<float>();
  for (int64_t n = 0; n < sizes[0]; ++n) {
    for (int64_t cb = 0; cb < sizes[1]; ++cb) {
      for (int64_t oh = 0; oh < out_h; ++oh) {
        for (int64_t ow = 0; ow < out_w; ++ow) {
          float* py = y + n * out->stride(0) + cb * out->stride(1) + oh * out->stride(2) +
                      ow * out->stride(3);
          pool_pixel(*self, w, n, cb, oh, ow, py, out->stride(4));
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
