// torchedge::to_blocked.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)
// torchedge::from_blocked.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)
//
// Optimized: dense float32 operands go through conv/blocked_layout.h
// (8 x 8 transposes on AVX2); anything else (other dim orders, malformed
// arguments, which it reports) goes to the portable kernels.
#include "kernels/optimized/conv/blocked_layout.h"
#include "kernels/optimized/ops/float_operands.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

constexpr int64_t kBlock = 16;

// The input and out tensors when both are tensors and the input is dense
// float32 of `rank` dims (else null: the portable kernel takes the call).
const Tensor* dense_input(Span<EValue*> args, int64_t rank) {
  if (args.size() != 2 || !args[0]->is_tensor() || !args[1]->is_tensor()) return nullptr;
  const Tensor& x = args[0]->to_tensor();
  return dense_float(x) && x.dim() == rank ? &x : nullptr;
}

}  // namespace

Error to_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor* x = dense_input(args, 4);
  if (x == nullptr || x->size(1) % kBlock != 0) return native::to_blocked_out(ctx, args);
  Tensor& out = args[1]->to_tensor();
  const int64_t sizes[] = {x->size(0), x->size(1) / kBlock, x->size(2), x->size(3), kBlock};
  if (out.dtype() != ScalarType::Float || resize_to(out, {sizes, 5}) != Error::Ok ||
      !out.is_contiguous() || bytes_overlap(out, *x)) {
    return native::to_blocked_out(ctx, args);
  }
  if (out.numel() == 0) return Error::Ok;
  nchw_to_blocked(x->data_as<float>(), x->size(0), x->size(1), x->size(2) * x->size(3),
                  out.mutable_data_as<float>());
  return Error::Ok;
}

Error from_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  const Tensor* y = dense_input(args, 5);
  if (y == nullptr || y->size(4) != kBlock) return native::from_blocked_out(ctx, args);
  Tensor& out = args[1]->to_tensor();
  const int64_t sizes[] = {y->size(0), y->size(1) * kBlock, y->size(2), y->size(3)};
  if (out.dtype() != ScalarType::Float || resize_to(out, {sizes, 4}) != Error::Ok ||
      !out.is_contiguous() || bytes_overlap(out, *y)) {
    return native::from_blocked_out(ctx, args);
  }
  if (out.numel() == 0) return Error::Ok;
  blocked_to_nchw(y->data_as<float>(), y->size(0), sizes[1], y->size(2) * y->size(3),
                  out.mutable_data_as<float>());
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
