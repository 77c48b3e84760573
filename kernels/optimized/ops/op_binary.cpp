// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
// aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
// aten::sub.out / sub.Scalar_out (same arguments), aten::mul.out(Tensor self,
// Tensor other, *, Tensor(a!) out), aten::mul.Scalar_out(Tensor self, Scalar
// other, *, Tensor(a!) out), aten::div.out / div.Scalar_out (as mul).
//
// Fast case: self, other (when a tensor) and out all float32 in the default
// dim order, alpha an Int or Double, and a broadcast of one of the shapes
// (see op_binary_broadcast.h): equal shapes, a one-element operand, a trailing
// row ([.., N] with [N]), an inner broadcast ([B, 1, N] with [B, M, N]) or a
// per-row scalar ([B, M, 1] with [B, M, N]). The loop is vectorized and
// split across threads. Everything else goes to the portable kernel.
#include "kernels/optimized/ops/op_binary_broadcast.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_registry.h"  // KernelFunction

namespace torchedge {
namespace optimized {
namespace {

// Runs a op b into out along `plan` (a and b already checked dense float32).
void run_plan(BinaryOp op, const BroadcastPlan& plan, const float* a, const float* b,
              float alpha, float* y) {
  const VecKernels& k = active_vec_kernels();
  const int64_t units = plan.units(), len = plan.unit_length();
  parallel_for(0, units, rows_per_chunk(len, kElementGrain), [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const float* full = (plan.broadcast_is_a ? b : a) + u * len;
      const float* small = (plan.broadcast_is_a ? a : b) + plan.broadcast_offset(u);
      const float* pa = plan.broadcast_is_a ? small : full;
      const float* pb = plan.broadcast_is_a ? full : small;
      const bool scalar = plan.broadcast_is_scalar();
      k.binary(op, pa, plan.broadcast_is_a && scalar, pb, !plan.broadcast_is_a && scalar, alpha,
               y + u * len, len);
    }
  });
}

// alpha (when the op has one) as float; false when it is not Int/Double.
bool read_alpha(Span<EValue*> args, size_t index, bool has_alpha, float* alpha) {
  *alpha = 1.0f;
  if (!has_alpha) return true;
  const EValue* v = args[index];
  if (!v->is_int() && !v->is_double()) return false;
  *alpha = scalar_to<float>(*v);
  return true;
}

// <op>.out(self, other[, alpha], out) on the fast path, or the portable kernel.
Error tensor_op(KernelContext& ctx, Span<EValue*> args, BinaryOp op, bool has_alpha,
                KernelFunction portable) {
  const size_t out_index = has_alpha ? 3 : 2;
  float alpha = 1.0f;
  BroadcastPlan plan;
  if (args.size() != out_index + 1 || !is_dense_float_arg(args[0]) ||
      !is_dense_float_arg(args[1]) || !is_dense_float_arg(args[out_index]) ||
      !read_alpha(args, 2, has_alpha, &alpha) ||
      !plan.init(args[0]->to_tensor(), args[1]->to_tensor())) {
    return portable(ctx, args);
  }
  const Tensor& a = args[0]->to_tensor();
  const Tensor& b = args[1]->to_tensor();
  Tensor& out = args[out_index]->to_tensor();
  TE_RETURN_IF_ERROR(resize_to_broadcast(out, a, b));
  run_plan(op, plan, a.data_as<float>(), b.data_as<float>(), alpha, out.mutable_data_as<float>());
  return Error::Ok;
}

// <op>.Scalar_out(self, Scalar other[, alpha], out): `other` converted to
// float first, as the portable kernel does for a float32 result.
Error scalar_op(KernelContext& ctx, Span<EValue*> args, BinaryOp op, bool has_alpha,
                KernelFunction portable) {
  const size_t out_index = has_alpha ? 3 : 2;
  float alpha = 1.0f;
  if (args.size() != out_index + 1 || !is_dense_float_arg(args[0]) || !args[1]->is_scalar() ||
      !is_dense_float_arg(args[out_index]) || !read_alpha(args, 2, has_alpha, &alpha)) {
    return portable(ctx, args);
  }
  const Tensor& a = args[0]->to_tensor();
  Tensor& out = args[out_index]->to_tensor();
  TE_RETURN_IF_ERROR(resize_like(out, a));
  const float other = scalar_to<float>(*args[1]);
  const float* x = a.data_as<float>();
  float* y = out.mutable_data_as<float>();
  const VecKernels& k = active_vec_kernels();
  parallel_for(0, static_cast<int64_t>(a.numel()), kElementGrain, [&](int64_t b, int64_t e) {
    k.binary(op, x + b, false, &other, true, alpha, y + b, e - b);
  });
  return Error::Ok;
}

}  // namespace

Error add_out(KernelContext& ctx, Span<EValue*> args) {
  return tensor_op(ctx, args, BinaryOp::kAdd, true, native::add_out);
}
Error add_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return scalar_op(ctx, args, BinaryOp::kAdd, true, native::add_scalar_out);
}
Error sub_out(KernelContext& ctx, Span<EValue*> args) {
  return tensor_op(ctx, args, BinaryOp::kSub, true, native::sub_out);
}
Error sub_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return scalar_op(ctx, args, BinaryOp::kSub, true, native::sub_scalar_out);
}
Error mul_out(KernelContext& ctx, Span<EValue*> args) {
  return tensor_op(ctx, args, BinaryOp::kMul, false, native::mul_out);
}
Error mul_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return scalar_op(ctx, args, BinaryOp::kMul, false, native::mul_scalar_out);
}
Error div_out(KernelContext& ctx, Span<EValue*> args) {
  return tensor_op(ctx, args, BinaryOp::kDiv, false, native::div_out);
}
Error div_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return scalar_op(ctx, args, BinaryOp::kDiv, false, native::div_scalar_out);
}

}  // namespace optimized
}  // namespace torchedge
