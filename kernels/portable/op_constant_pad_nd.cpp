// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// Pads (or, with negative amounts, crops) the trailing dims: pad holds
// (before, after) pairs starting from the last dim, at most one pair per
// dim. New elements take `value` cast to the dtype (truncated for
// integers, value != 0 for bool, (value, 0) for complex). Every dtype; self
// and out share one.
// out is filled with value, then the kept part of self is copied in.
#include "kernels/portable/support/complex.h"
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "constant_pad_nd.out";

// The part of self that survives, and where it lands in out.
struct PadRegion {
  int rank = 0;
  int64_t size[kTensorDimensionLimit];
  int64_t in_start[kTensorDimensionLimit];
  int64_t out_start[kTensorDimensionLimit];
};

template <typename T>
void pad_copy(const Tensor& self, const PadRegion& r, T value, Tensor& out) {
  T* y = out.mutable_data_as<T>();
  for (size_t i = 0; i < out.numel(); ++i) y[i] = value;  // out is dense
  int64_t count = 1;
  for (int d = 0; d < r.rank; ++d) count *= r.size[d];
  if (count == 0) return;
  const T* x = self.data_as<T>();
  int64_t pos[kTensorDimensionLimit] = {};
  const int inner = r.rank - 1;
  const int64_t run = r.rank == 0 ? 1 : r.size[inner];
  const int64_t in_step = r.rank == 0 ? 0 : self.stride(inner);
  const int64_t out_step = r.rank == 0 ? 0 : out.stride(inner);
  for (int64_t done = 0; done < count; done += run) {
    int64_t in_off = 0, out_off = 0;
    for (int d = 0; d < r.rank; ++d) {
      const int64_t p = d == inner ? 0 : pos[d];
      in_off += (r.in_start[d] + p) * self.stride(d);
      out_off += (r.out_start[d] + p) * out.stride(d);
    }
    for (int64_t i = 0; i < run; ++i) y[out_off + i * out_step] = x[in_off + i * in_step];
    for (int d = inner - 1; d >= 0; --d) {  // advance the outer dims
      if (++pos[d] < r.size[d]) break;
      pos[d] = 0;
    }
  }
}

template <typename T>
T scalar_to(const EValue& v) {
  if (v.is_double()) return static_cast<T>(v.to_double());
  return static_cast<T>(v.scalar_as_int());
}

}  // namespace

Error constant_pad_nd_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> pad, int_list_arg(args, 1, "pad"));
  TE_ASSIGN_OR_RETURN(const EValue* value, scalar_value_arg(args, 2, "value"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  const int rank = self->dim();
  TE_CHECK_OR_RETURN(pad.size() % 2 == 0 && pad.size() <= 2 * static_cast<size_t>(rank),
                     Error::InvalidArgument,
                     "%s: pad must hold an even number of values, at most %d, got %zu", kOp,
                     2 * rank, pad.size());
  TE_RETURN_IF_ERROR(expect_same_dtype(*self, *out, "self", "out"));
  PadRegion r;
  r.rank = rank;
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < rank; ++d) {
    const size_t pair = static_cast<size_t>(rank - 1 - d) * 2;
    const int64_t before = pair < pad.size() ? pad[pair] : 0;
    const int64_t after = pair < pad.size() ? pad[pair + 1] : 0;
    sizes[d] = self->size(d) + before + after;
    TE_CHECK_OR_RETURN(sizes[d] >= 0, Error::InvalidArgument,
                       "%s: padding (%lld, %lld) leaves dim %d of size %d negative", kOp,
                       static_cast<long long>(before), static_cast<long long>(after), d,
                       self->size(d));
    r.in_start[d] = before < 0 ? -before : 0;
    r.out_start[d] = before > 0 ? before : 0;
    const int64_t in_end = self->size(d) - (after < 0 ? -after : 0);
    r.size[d] = in_end > r.in_start[d] ? in_end - r.in_start[d] : 0;
  }
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(rank)}));
  if (is_complex(self->dtype())) {  // pads with (value, 0)
    const double fill = value->is_double() ? value->to_double()
                                           : static_cast<double>(value->scalar_as_int());
    return switch_complex(self->dtype(), kOp, [&](auto tag) {
      using C = decltype(tag);
      C padding{};
      store_complex<C>(&padding, 0, ComplexAccumulator(fill, 0.0));
      pad_copy<C>(*self, r, padding, *out);
      return Error::Ok;
    });
  }
  return switch_dtype(self->dtype(), kAllTypes, kOp, [&](auto tag) {
    using T = decltype(tag);
    pad_copy<T>(*self, r, scalar_to<T>(*value), *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
