// aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
//
// Optimized: float32 or int8, 3-d or 4-d, self / out / indices contiguous, dilation
// 1, planes under 2^31 floats (conv/max_pool2d.h; ResNet's stem pool took
// 3.4 % of ResNet-50 in the portable kernel). Every other call (other
// dtypes, dim orders, dilation, malformed arguments) goes to the portable
// kernel, which also reports the errors; so do argument errors found here.
//
// torchedge::max_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride,
//     int[2] padding, int[2] dilation, bool ceil_mode, *, Tensor(a!) out) -> Tensor(a!)
//
// The same without indices: the vector loop keeps a running max (no
// position tracking, no int64 stores); the values are the same bits.
#include "kernels/optimized/conv/max_pool2d.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr const char* kOp = "max_pool2d_with_indices.out";

// Both ops (arguments 0-5 shared, out at 6, indices at 7 or none): false
// when the fast path does not take the call (the portable kernel then does,
// and reports malformed arguments); else runs it.
Result<bool> run_fast(Span<EValue*> args, bool with_indices) {
  const size_t count = with_indices ? 8 : 7;
  if (args.size() != count || !args[0]->is_tensor() || !args[6]->is_tensor() ||
      (with_indices && !args[7]->is_tensor())) {
    return false;
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[6]->to_tensor();
  Tensor* indices = with_indices ? &args[7]->to_tensor() : nullptr;
  Result<bool> ceil_mode = bool_arg(args, 5, "ceil_mode");
  int64_t kernel[2], stride[2], padding[2], dilation[2];
  const bool int8 = self.dtype() == ScalarType::Char;
  if (!ceil_mode.ok() || (self.dtype() != ScalarType::Float && !int8) ||
      out.dtype() != self.dtype() ||
      (indices != nullptr && indices->dtype() != ScalarType::Long) ||
      (self.dim() != 3 && self.dim() != 4) || !self.is_contiguous() ||
      read_pool_pair(args, 1, "kernel_size", nullptr, 1, kOp, kernel) != Error::Ok ||
      read_pool_pair(args, 2, "stride", kernel, 1, kOp, stride) != Error::Ok ||
      read_pool_pair(args, 3, "padding", nullptr, 0, kOp, padding) != Error::Ok ||
      read_pool_pair(args, 4, "dilation", nullptr, 1, kOp, dilation) != Error::Ok ||
      dilation[0] != 1 || dilation[1] != 1) {
    return false;
  }
  PoolPlanes in;
  int64_t out_h = 0, out_w = 0;
  if (pool_input_planes(self, kOp, &in) != Error::Ok ||
      pool_output_size(in.height, kernel[0], padding[0], stride[0], 1, ceil_mode.get(), kOp,
                       &out_h) != Error::Ok ||
      pool_output_size(in.width, kernel[1], padding[1], stride[1], 1, ceil_mode.get(), kOp,
                       &out_w) != Error::Ok ||
      in.height * in.width >= (int64_t{1} << 31)) {
    return false;
  }
  int64_t sizes[4];
  const size_t rank = pool_output_sizes(self, out_h, out_w, sizes);
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, rank}));
  if (indices != nullptr) TE_RETURN_IF_ERROR(resize_to(*indices, {sizes, rank}));
  if (!out.is_contiguous() || (indices != nullptr && !indices->is_contiguous())) return false;
  Pool2dShape s;
  s.planes = in.batch * in.channels;
  s.in_h = in.height, s.in_w = in.width, s.out_h = out_h, s.out_w = out_w;
  s.kernel_h = kernel[0], s.kernel_w = kernel[1], s.stride_h = stride[0], s.stride_w = stride[1];
  s.pad_h = padding[0], s.pad_w = padding[1];
  int64_t* positions = indices != nullptr ? indices->mutable_data_as<int64_t>() : nullptr;
  if (int8) {
    max_pool2d_with_indices_i8(s, self.data_as<int8_t>(), out.mutable_data_as<int8_t>(),
                               positions);
  } else {
    max_pool2d_with_indices_f32(s, self.data_as<float>(), out.mutable_data_as<float>(),
                                positions);
  }
  return true;
}

}  // namespace

Error max_pool2d_with_indices_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(bool done, run_fast(args, true));
  return done ? Error::Ok : native::max_pool2d_with_indices_out(ctx, args);
}

Error max_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(bool done, run_fast(args, false));
  return done ? Error::Ok : native::max_pool2d_out(ctx, args);
}

}  // namespace optimized
}  // namespace torchedge
