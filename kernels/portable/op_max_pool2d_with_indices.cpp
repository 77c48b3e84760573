// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
//
// 2-d max pooling of a [C, H, W] or [N, C, H, W] input; `indices` (int64)
// holds each max's flat position h * W + w in its input plane. As in ATen,
// NaN wins (the last NaN's position is kept), ties keep the first position,
// and a window of only -inf (or the type's lowest value) points at its
// first in-bounds element. Real dtypes (not bool); self and out share one.
// Any dim order.
//
// torchedge::max_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride,
//     int[2] padding, int[2] dilation, bool ceil_mode, *, Tensor(a!) out) -> Tensor(a!)
//
// The same values without the indices (python/torchedge/passes/
// pool_indices.py makes these calls where the indices are unused).
#include <limits>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "max_pool2d_with_indices.out";

using Window = MaxPoolWindow;

// indices: null for torchedge::max_pool2d.
template <typename T>
void max_pool(const Tensor& self, const Window& w, Tensor& out, Tensor* indices) {
  using C = compute_t<T>;
  const C lowest = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                        : std::numeric_limits<C>::lowest();
  const PoolPlanes in = pool_planes(self);
  const PoolPlanes op = pool_planes(out);
  const PoolPlanes ip = pool_planes(indices != nullptr ? *indices : out);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  int64_t* idx = indices != nullptr ? indices->mutable_data_as<int64_t>() : nullptr;
  for_each_pool_output(op, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const PoolWindowTaps t = pool_window_taps(w, oh, ow);
    const T* plane = x + in.at(n, c, 0, 0);
    C best = lowest;
    int64_t best_index = t.h0 * in.width + t.w0;
    for (int64_t ih = t.h0; ih < t.h_end && ih < in.height; ih += w.dilation[0]) {
      for (int64_t iw = t.w0; iw < t.w_end && iw < in.width; iw += w.dilation[1]) {
        const C v = static_cast<C>(plane[ih * in.stride_h + iw * in.stride_w]);
        if (v > best || v != v) {
          best = v;
          best_index = ih * in.width + iw;
        }
      }
    }
    y[op.at(n, c, oh, ow)] = static_cast<T>(best);
    if (idx != nullptr) idx[ip.at(n, c, oh, ow)] = best_index;
  });
}

// Both ops: arguments 0-5 shared, out at 6, indices (or null) at 7.
Error run(Span<EValue*> args, Tensor* indices, const char* op) {
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(args, 5, "ceil_mode"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  Window w;
  TE_RETURN_IF_ERROR(read_max_pool_window(args, op, &w));
  PoolPlanes in;
  TE_RETURN_IF_ERROR(pool_input_planes(*self, op, &in));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  if (indices != nullptr) TE_RETURN_IF_ERROR(expect_dtype(*indices, ScalarType::Long, "indices"));
  int64_t out_h = 0, out_w = 0;
  TE_RETURN_IF_ERROR(pool_output_size(in.height, w.kernel[0], w.padding[0], w.stride[0],
                                      w.dilation[0], ceil_mode, op, &out_h));
  TE_RETURN_IF_ERROR(pool_output_size(in.width, w.kernel[1], w.padding[1], w.stride[1],
                                      w.dilation[1], ceil_mode, op, &out_w));
  int64_t sizes[4];
  const size_t rank = pool_output_sizes(*self, out_h, out_w, sizes);
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, rank}));
  if (indices != nullptr) TE_RETURN_IF_ERROR(resize_to(*indices, {sizes, rank}));
  return switch_dtype_only<kRealTypes>(self->dtype(), op, [&](auto tag) {
    max_pool<decltype(tag)>(*self, w, *out, indices);
    return Error::Ok;
  });
}

}  // namespace

Error max_pool2d_with_indices_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 7, "indices"));
  return run(args, indices, kOp);
}

Error max_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  return run(args, nullptr, "max_pool2d.out");
}

}  // namespace native
}  // namespace torchedge
