// aten::prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
//     Tensor(a!) out) -> Tensor(a!)
// aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)
//
// The product along `dim` (prod.out: of every element) in out's dtype, which
// `dtype`, if given, must equal (eager picks int64 for integer and bool
// inputs). As ATen, each element is first converted to out's dtype and the
// product is taken in that dtype step by step: integers wrap, float16 and
// bfloat16 round after every multiply, bool is "all". An empty product is
// 1. Every dtype in and out; complex64 and complex128 reduce into a complex
// output (support/complex_reduction.h).
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // convert_element, wrapping_mul
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/complex_reduction.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

Error product(const Tensor& self, const Span<const int64_t>* dim, bool keepdim, int64_t dtype,
              Tensor& out, const char* op) {
  TE_CHECK_OR_RETURN(dtype < 0 || dtype == static_cast<int64_t>(out.dtype()), Error::InvalidType,
                     "%s: dtype %lld does not match out dtype %s", op,
                     static_cast<long long>(dtype), to_string(out.dtype()));
  ReductionPlan plan;
  TE_RETURN_IF_ERROR(plan.init(self, dim == nullptr ? Span<const int64_t>() : *dim, op));
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, plan.output_sizes(keepdim, sizes)}));
  plan.bind_output(out, keepdim);
  if (is_complex(self.dtype()) || is_complex(out.dtype())) {
    return reduce_complex(
        self, out, plan, op, ComplexAccumulator(1),
        [](ComplexAccumulator acc, ComplexAccumulator x) { return acc * x; },
        [](ComplexAccumulator acc) { return acc; });
  }
  return switch_dtype(self.dtype(), kAllTypes, op, [&](auto in_tag) {
    using In = decltype(in_tag);
    return switch_dtype(out.dtype(), kAllTypes, op, [&](auto out_tag) {
      using Out = decltype(out_tag);
      using C = compute_t<Out>;
      const In* x = self.data_as<In>();
      Out* y = out.mutable_data_as<Out>();
      plan.for_each_output([&](int64_t o, int64_t base) {
        C acc = C(1);
        plan.for_each_reduced(base, [&](int64_t i) {
          const C v = static_cast<C>(convert_element<Out>(x[i]));
          acc = static_cast<C>(static_cast<Out>(wrapping_mul(acc, v)));
        });
        y[o] = static_cast<Out>(acc);
      });
      return Error::Ok;
    });
  });
}

}  // namespace

Error prod_int_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(int64_t dtype, optional_int_arg(args, 3, "dtype", -1));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  const Span<const int64_t> dims(&dim, 1);
  return product(*self, &dims, keepdim, dtype, *out, "prod.int_out");
}

Error prod_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dtype, optional_int_arg(args, 1, "dtype", -1));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  return product(*self, nullptr, false, dtype, *out, "prod.out");
}

}  // namespace native
}  // namespace torchedge
