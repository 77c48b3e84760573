// aten::col2im.out(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation,
//     int[2] padding, int[2] stride, *, Tensor(a!) out) -> Tensor(a!)
//
// The inverse of im2col (F.fold): self [N, C * kh * kw, L] or
// [C * kh * kw, L] holds one column per sliding block, L = blocks_h *
// blocks_w; each column element is added into out [N, C, H, W] (or
// [C, H, W]) at the image position its block and kernel offset cover
// (positions in the padding are dropped). Overlapping blocks sum, in
// eager's order (column channel, then block) with each partial sum
// rounded to the dtype as eager does; bool sums are "or". Floating dtypes
// and bool (eager's CPU set); self and out share one; any dim order.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"  // read_pool_pair
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "col2im.out";
constexpr DtypeSet kCol2imTypes = kFloatingTypes | dtype_bit(ScalarType::Bool);

struct Fold {
  int64_t size[2], kernel[2], dilation[2], padding[2], stride[2], blocks[2];
  int64_t channels;
};

template <typename T>
void col2im(const Tensor& self, const Fold& f, Tensor& out) {
  using C = compute_t<T>;
  const bool batched = self.dim() == 3;
  const int64_t batch = batched ? self.size(0) : 1;
  const int cdim = batched ? 1 : 0;  // self's column-channel dim; out's channel dim
  const T* x = self.data_as<T>();
  T* y = out.mutable_data_as<T>();
  for (size_t i = 0; i < out.numel(); ++i) y[i] = static_cast<T>(0);  // out is dense
  const int64_t kernel_area = f.kernel[0] * f.kernel[1];
  for (int64_t n = 0; n < batch; ++n) {
    const T* xn = x + (batched ? n * self.stride(0) : 0);
    T* yn = y + (batched ? n * out.stride(0) : 0);
    for (int64_t col = 0; col < f.channels * kernel_area; ++col) {
      const int64_t c = col / kernel_area;
      const int64_t ki = col / f.kernel[1] % f.kernel[0], kj = col % f.kernel[1];
      for (int64_t bh = 0; bh < f.blocks[0]; ++bh) {
        const int64_t h = bh * f.stride[0] - f.padding[0] + ki * f.dilation[0];
        if (h < 0 || h >= f.size[0]) continue;
        for (int64_t bw = 0; bw < f.blocks[1]; ++bw) {
          const int64_t w = bw * f.stride[1] - f.padding[1] + kj * f.dilation[1];
          if (w < 0 || w >= f.size[1]) continue;
          T& dst = yn[c * out.stride(cdim) + h * out.stride(cdim + 1) + w * out.stride(cdim + 2)];
          const T v = xn[col * self.stride(cdim) + (bh * f.blocks[1] + bw) * self.stride(cdim + 1)];
          dst = static_cast<T>(static_cast<C>(dst) + static_cast<C>(v));
        }
      }
    }
  }
}

}  // namespace

Error col2im_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  Fold f;
  TE_RETURN_IF_ERROR(read_pool_pair(args, 1, "output_size", nullptr, 1, kOp, f.size));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 2, "kernel_size", nullptr, 1, kOp, f.kernel));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 3, "dilation", nullptr, 1, kOp, f.dilation));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 4, "padding", nullptr, 0, kOp, f.padding));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 5, "stride", nullptr, 1, kOp, f.stride));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  const bool batched = self->dim() == 3;
  TE_CHECK_OR_RETURN(batched || self->dim() == 2, Error::InvalidArgument,
                     "%s: expected a 2-d or 3-d (batched) input, got %d-d", kOp, self->dim());
  const int cdim = batched ? 1 : 0;
  const int64_t columns = self->size(cdim), blocks = self->size(cdim + 1);
  TE_CHECK_OR_RETURN(columns > 0 && blocks > 0, Error::InvalidArgument,
                     "%s: input dims %d and %d must be non-empty", kOp, cdim, cdim + 1);
  const int64_t kernel_area = f.kernel[0] * f.kernel[1];
  TE_CHECK_OR_RETURN(columns % kernel_area == 0, Error::InvalidArgument,
                     "%s: input dim %d (%lld) must be divisible by kernel_size's product %lld", kOp,
                     cdim, static_cast<long long>(columns), static_cast<long long>(kernel_area));
  for (int k = 0; k < 2; ++k) {
    const int64_t span = f.dilation[k] * (f.kernel[k] - 1) + 1;
    const int64_t room = f.size[k] + 2 * f.padding[k] - span;
    f.blocks[k] = room < 0 ? 0 : room / f.stride[k] + 1;
  }
  TE_CHECK_OR_RETURN(f.blocks[0] * f.blocks[1] == blocks, Error::InvalidArgument,
                     "%s: input dim %d has %lld blocks, but output_size, kernel_size, dilation, "
                     "padding and stride give %lld x %lld",
                     kOp, cdim + 1, static_cast<long long>(blocks),
                     static_cast<long long>(f.blocks[0]), static_cast<long long>(f.blocks[1]));
  f.channels = columns / kernel_area;
  int64_t sizes[4];
  size_t rank = 0;
  if (batched) sizes[rank++] = self->size(0);
  sizes[rank++] = f.channels;
  sizes[rank++] = f.size[0];
  sizes[rank++] = f.size[1];
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, rank}));
  return switch_dtype_only<kCol2imTypes>(self->dtype(), kOp, [&](auto tag) {
    col2im<decltype(tag)>(*self, f, *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
