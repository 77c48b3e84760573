// aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
// aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
//     -> Tensor(a!)
// aten::any.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// and the same three overloads of aten::all (all.out, all.dims_out, all.all_out).
//
// Whether any / every element along the reduced dims is nonzero (NaN counts
// as nonzero). dim=None reduces every dim; an explicit empty list reduces
// none (out is self's truth values), as in ATen. An empty reduction gives
// false for any and true for all. Every input dtype; out is bool or uint8
// (ATen accepts both for an out= tensor). all shares this file: the two
// differ only in the starting value and the combining operator.
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/reduction.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr DtypeSet kOutTypes = dtype_bit(ScalarType::Bool) | dtype_bit(ScalarType::Byte);

template <bool kAny, typename T, typename Out>
void reduce_truth(const ReductionPlan& plan, const Tensor& self, Tensor& out) {
  const T* x = self.data_as<T>();
  Out* y = out.mutable_data_as<Out>();
  plan.for_each_output([&](int64_t o, int64_t base) {
    bool acc = !kAny;
    plan.for_each_reduced(base, [&](int64_t i) {
      const bool truth = convert_element<bool>(x[i]);
      acc = kAny ? (acc || truth) : (acc && truth);
    });
    y[o] = static_cast<Out>(acc);
  });
}

// `dims` null: reduce every dim; an empty span: reduce none.
template <bool kAny>
Error any_all(const Tensor& self, const Span<const int64_t>* dims, bool keepdim, Tensor& out,
              const char* op) {
  TE_CHECK_OR_RETURN(dtype_in(out.dtype(), kOutTypes), Error::InvalidType,
                     "%s: out must be bool or uint8, got %s", op, to_string(out.dtype()));
  if (dims != nullptr && dims->empty()) {  // no reduction: elementwise truth
    TE_RETURN_IF_ERROR(resize_like(out, self));
    return switch_dtype(self.dtype(), kAllTypes, op, [&](auto tag) {
      using T = decltype(tag);
      return map_unary<T, bool>(self, out, [](compute_t<T> v) { return v != compute_t<T>(0); });
    });
  }
  ReductionPlan plan;
  TE_RETURN_IF_ERROR(plan.init(self, dims == nullptr ? Span<const int64_t>() : *dims, op));
  int64_t sizes[kTensorDimensionLimit];
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, plan.output_sizes(keepdim, sizes)}));
  plan.bind_output(out, keepdim);
  return switch_dtype(self.dtype(), kAllTypes, op, [&](auto tag) {
    using T = decltype(tag);
    if (out.dtype() == ScalarType::Bool) {
      reduce_truth<kAny, T, bool>(plan, self, out);
    } else {
      reduce_truth<kAny, T, uint8_t>(plan, self, out);
    }
    return Error::Ok;
  });
}

template <bool kAny>
Error dim_out(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  const Span<const int64_t> dims(&dim, 1);
  return any_all<kAny>(*self, &dims, keepdim, *out, op);
}

template <bool kAny>
Error dims_out(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  bool has_dims = false;
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dims, optional_int_list_arg(args, 1, "dim", &has_dims));
  TE_ASSIGN_OR_RETURN(bool keepdim, bool_arg(args, 2, "keepdim"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  return any_all<kAny>(*self, has_dims ? &dims : nullptr, keepdim, *out, op);
}

template <bool kAny>
Error all_out(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  return any_all<kAny>(*self, nullptr, false, *out, op);
}

}  // namespace

Error any_out(KernelContext& ctx, Span<EValue*> args) { return dim_out<true>(args, "any.out"); }

Error any_dims_out(KernelContext& ctx, Span<EValue*> args) {
  return dims_out<true>(args, "any.dims_out");
}

Error any_all_out(KernelContext& ctx, Span<EValue*> args) {
  return all_out<true>(args, "any.all_out");
}

Error all_dim_out(KernelContext& ctx, Span<EValue*> args) {
  return dim_out<false>(args, "all.out");
}

Error all_dims_out(KernelContext& ctx, Span<EValue*> args) {
  return dims_out<false>(args, "all.dims_out");
}

Error all_all_out(KernelContext& ctx, Span<EValue*> args) {
  return all_out<false>(args, "all.all_out");
}

}  // namespace native
}  // namespace torchedge
