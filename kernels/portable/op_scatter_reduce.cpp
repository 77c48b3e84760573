// aten::scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *,
//     bool include_self=True, Tensor(a!) out) -> Tensor(a!)
//
// out = self, then every src[p] is folded into out[p with p[dim] =
// index[p]] by `reduce`: "sum", "prod", "mean", "amax" or "amin". Without
// include_self, the targets' own values are left out (a target starts from
// the reduction's identity). "mean" divides each target by the number of
// values folded into it (self counting once when included; untouched
// targets keep self), with floor division for integers, as in ATen. amax /
// amin propagate NaN. Every step rounds to the dtype (float16/bfloat16
// compute in float), integers wrap, bool sums are "or". The index rules are
// scatter's (support/scatter.h). Every dtype (mean: not bool); src, self and
// out share one. "mean" needs scratch: one int32 count per out element.
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // wrapping_*, is_nan
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/scatter.h"
#include "kernels/portable/support/strided_copy.h"
#include "kernels/portable/support/strided_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "scatter_reduce.two_out";

enum class Reduce { kSum, kProd, kMean, kMax, kMin };

bool parse_reduce(StringView s, Reduce* reduce) {
  struct Name {
    const char* text;
    Reduce value;
  };
  static const Name kNames[] = {{"sum", Reduce::kSum},   {"prod", Reduce::kProd},
                                {"mean", Reduce::kMean}, {"amax", Reduce::kMax},
                                {"amin", Reduce::kMin}};
  for (const Name& n : kNames) {
    if (s.size == strlen(n.text) && memcmp(s.data, n.text, s.size) == 0) {
      *reduce = n.value;
      return true;
    }
  }
  return false;
}

template <typename C>
C identity(Reduce reduce) {
  switch (reduce) {
    case Reduce::kProd: return C(1);
    case Reduce::kMax:
      return std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                  : std::numeric_limits<C>::lowest();
    case Reduce::kMin:
      return std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                  : std::numeric_limits<C>::max();
    default: return C(0);
  }
}

template <typename C>
C combine(Reduce reduce, C acc, C v) {
  switch (reduce) {
    case Reduce::kProd: return wrapping_mul(acc, v);
    // ATen: isnan(v) ? v : max(acc, v), so a NaN in acc stays too.
    case Reduce::kMax: return is_nan(v) ? v : (acc < v ? v : acc);
    case Reduce::kMin: return is_nan(v) ? v : (v < acc ? v : acc);
    default: return wrapping_add(acc, v);
  }
}

// Divides each target by its count (counts index out's dense buffer).
template <typename T>
void divide_by_counts(Tensor& out, const int32_t* counts) {
  using C = compute_t<T>;
  T* y = out.mutable_data_as<T>();
  for (size_t i = 0; i < out.numel(); ++i) {
    const C n = static_cast<C>(counts[i] == 0 ? 1 : counts[i]);
    const C v = static_cast<C>(y[i]);
    if constexpr (std::is_floating_point_v<C>) {
      y[i] = static_cast<T>(v / n);
    } else {  // floor division
      C q = v / n;
      if ((v % n != 0) && ((v < 0) != (n < 0))) --q;
      y[i] = static_cast<T>(q);
    }
  }
}

template <typename T>
Error reduce_into(const Tensor& src, int dim, const Tensor& index, Reduce reduce,
                  bool include_self, int32_t* counts, Tensor& out) {
  using C = compute_t<T>;
  const T* from = src.data_as<T>();
  T* to = out.mutable_data_as<T>();
  if (!include_self) {
    const T start = static_cast<T>(identity<C>(reduce));
    for_each_scatter(out, dim, index, &src, [&](int64_t o, int64_t) { to[o] = start; });
  }
  for_each_scatter(out, dim, index, &src, [&](int64_t o, int64_t s) {
    to[o] = static_cast<T>(combine(reduce, static_cast<C>(to[o]), static_cast<C>(from[s])));
    if (counts != nullptr) ++counts[o];
  });
  if constexpr (!std::is_same_v<T, bool>) {  // the kernel rejects a bool mean up front
    if (counts != nullptr) divide_by_counts<T>(out, counts);
  }
  return Error::Ok;
}

}  // namespace

Error scatter_reduce_two_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(int64_t dim_arg, int_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(Tensor* index, tensor_arg(args, 2, "index"));
  TE_ASSIGN_OR_RETURN(Tensor* src, tensor_arg(args, 3, "src"));
  TE_ASSIGN_OR_RETURN(StringView reduce_name, string_arg(args, 4, "reduce"));
  TE_ASSIGN_OR_RETURN(bool include_self, bool_arg(args, 5, "include_self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  Reduce reduce = Reduce::kSum;
  TE_CHECK_OR_RETURN(parse_reduce(reduce_name, &reduce), Error::InvalidArgument,
                     "%s: reduce must be one of sum, prod, mean, amax, amin; got '%.*s'", kOp,
                     static_cast<int>(reduce_name.size), reduce_name.data);
  TE_ASSIGN_OR_RETURN(int dim, normalize_dim(dim_arg, self->dim(), "dim"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *src, "self", "src"));
  TE_CHECK_OR_RETURN(reduce != Reduce::kMean || self->dtype() != ScalarType::Bool,
                     Error::InvalidType, "%s: reduce='mean' is not supported for bool", kOp);
  TE_RETURN_IF_ERROR(check_scatter(*self, dim, *index, src, kOp));
  TE_RETURN_IF_ERROR(copy_view_to(view_of(*self), *out));
  int32_t* counts = nullptr;
  if (reduce == Reduce::kMean && out->numel() > 0) {
    counts = static_cast<int32_t*>(ctx.allocate_temp(out->numel() * sizeof(int32_t)));
    TE_CHECK_OR_RETURN(counts != nullptr, Error::MemoryAllocationFailed,
                       "%s: no scratch memory for %zu counts (reduce='mean')", kOp, out->numel());
    for (size_t i = 0; i < out->numel(); ++i) counts[i] = include_self ? 1 : 0;
  }
  return switch_dtype(self->dtype(), kAllTypes, kOp, [&](auto tag) {
    return reduce_into<decltype(tag)>(*src, dim, *index, reduce, include_self, counts, *out);
  });
}

}  // namespace native
}  // namespace torchedge
