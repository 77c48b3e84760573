// aten::adaptive_max_pool2d.out(Tensor self, int[2] output_size, *, Tensor(a!) out,
//     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
//
// Adaptive 2-d max pooling of a [C, H, W] or [N, C, H, W] input to
// output_size [OH, OW] (each >= 0): output row o covers input rows
// floor(o * H / OH) .. ceil((o + 1) * H / OH) - 1, likewise for columns.
// `indices` (int64) holds each max's flat position h * W + w in its input
// plane. As ATen's CPU kernel: ties keep the first position and NaN wins
// (the last NaN's position is kept). Floating dtypes; self and out share
// one. Any dim order.
#include <limits>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "adaptive_max_pool2d.out";

template <typename T>
void adaptive_max_pool(const Tensor& self, Tensor& out, Tensor& indices) {
  using C = compute_t<T>;
  const PoolPlanes in = pool_planes(self);
  const PoolPlanes op = pool_planes(out);
  const PoolPlanes ip = pool_planes(indices);
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  int64_t* idx = indices.mutable_data_as<int64_t>();
  for_each_pool_output(op, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const int64_t hs = oh * in.height / op.height;
    const int64_t he = ((oh + 1) * in.height + op.height - 1) / op.height;
    const int64_t ws = ow * in.width / op.width;
    const int64_t we = ((ow + 1) * in.width + op.width - 1) / op.width;
    const T* plane = x + in.at(n, c, 0, 0);
    C best = -std::numeric_limits<C>::infinity();
    int64_t best_index = hs * in.width + ws;
    for (int64_t ih = hs; ih < he; ++ih) {
      for (int64_t iw = ws; iw < we; ++iw) {
        const C v = static_cast<C>(plane[ih * in.stride_h + iw * in.stride_w]);
        if (v > best || v != v) {
          best = v;
          best_index = ih * in.width + iw;
        }
      }
    }
    y[op.at(n, c, oh, ow)] = static_cast<T>(best);
    idx[ip.at(n, c, oh, ow)] = best_index;
  });
}

}  // namespace

Error adaptive_max_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> size, int_list_arg(args, 1, "output_size"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 3, "indices"));
  TE_CHECK_OR_RETURN(size.size() == 2 && size[0] >= 0 && size[1] >= 0, Error::InvalidArgument,
                     "%s: output_size must be 2 non-negative values", kOp);
  PoolPlanes in;
  TE_RETURN_IF_ERROR(pool_input_planes(*self, kOp, &in));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_RETURN_IF_ERROR(expect_dtype(*indices, ScalarType::Long, "indices"));
  int64_t sizes[4];
  const size_t rank = pool_output_sizes(*self, size[0], size[1], sizes);
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, rank}));
  TE_RETURN_IF_ERROR(resize_to(*indices, {sizes, rank}));
  return switch_dtype_only<kFloatingTypes>(self->dtype(), kOp, [&](auto tag) {
    adaptive_max_pool<decltype(tag)>(*self, *out, *indices);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
