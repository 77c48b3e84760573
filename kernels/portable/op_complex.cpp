// aten::complex.out(Tensor real, Tensor imag, *, Tensor(a!) out) -> Tensor(a!)
// aten::polar.out(Tensor abs, Tensor angle, *, Tensor(a!) out) -> Tensor(a!)
//
// Two real tensors of one floating dtype (float16, float32, float64),
// broadcast together, make one complex tensor of the matching complex dtype
// (complex32, complex64, complex128): complex gives real + i imag, polar
// gives abs * (cos(angle) + i sin(angle)). Computed in double, rounded once.
#include <cmath>

#include "kernels/portable/support/complex.h"
#include "kernels/portable/support/elementwise.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_view.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

// `t` read at out's logical indices: dims aligned from the right, size-1
// dims broadcast (stride 0). resize_to_broadcast checked the shapes.
StridedView broadcast_view(const Tensor& t, const Tensor& out) {
  StridedView v = view_of(t);
  StridedView b = v;
  b.rank = out.dim();
  const int shift = out.dim() - t.dim();
  for (int d = 0; d < out.dim(); ++d) {
    const int src = d - shift;
    b.sizes[d] = out.size(d);
    b.strides[d] = src < 0 || v.sizes[src] == 1 ? 0 : v.strides[src];
  }
  return b;
}

template <typename R>
double read_at(const StridedView& v, const int64_t* index) {
  int64_t offset = 0;
  for (int d = 0; d < v.rank; ++d) offset += index[d] * v.strides[d];
  return static_cast<double>(static_cast<float>(reinterpret_cast<const R*>(v.data)[offset]));
}
template <>
double read_at<double>(const StridedView& v, const int64_t* index) {
  int64_t offset = 0;
  for (int d = 0; d < v.rank; ++d) offset += index[d] * v.strides[d];
  return reinterpret_cast<const double*>(v.data)[offset];
}

template <bool kPolar>
Error make_complex(Span<EValue*> args, const char* op, const char* first, const char* second) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(Tensor* a, tensor_arg(args, 0, first));
  TE_ASSIGN_OR_RETURN(Tensor* b, tensor_arg(args, 1, second));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*a, *b, first, second));
  const ScalarType part = a->dtype();
  TE_CHECK_OR_RETURN(part == ScalarType::Half || part == ScalarType::Float ||
                         part == ScalarType::Double,
                     Error::InvalidType, "%s: expected float16, float32 or float64 inputs, got %s",
                     op, to_string(part));
  TE_CHECK_OR_RETURN(out->dtype() == complex_type_of(part), Error::InvalidType,
                     "%s: out must be %s for %s inputs, got %s", op,
                     to_string(complex_type_of(part)), to_string(part), to_string(out->dtype()));
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *a, *b));
  const StridedView va = broadcast_view(*a, *out), vb = broadcast_view(*b, *out);
  const StridedView vo = view_of(*out);
  return switch_complex(out->dtype(), op, [&](auto tag) {
    using C = decltype(tag);
    C* dst = reinterpret_cast<C*>(vo.data);
    int64_t index[kMaxViewRank] = {};
    const int64_t n = static_cast<int64_t>(out->numel());
    for (int64_t i = 0; i < n; ++i) {
      double x, y;
      if (part == ScalarType::Double) {
        x = read_at<double>(va, index), y = read_at<double>(vb, index);
      } else if (part == ScalarType::Float) {
        x = read_at<float>(va, index), y = read_at<float>(vb, index);
      } else {
        x = read_at<Half>(va, index), y = read_at<Half>(vb, index);
      }
      const ComplexAccumulator value =
          kPolar ? ComplexAccumulator(x * std::cos(y), x * std::sin(y)) : ComplexAccumulator(x, y);
      int64_t offset = 0;
      for (int d = 0; d < vo.rank; ++d) offset += index[d] * vo.strides[d];
      store_complex<C>(dst, offset, value);
      for (int d = vo.rank - 1; d >= 0; --d) {  // next logical index
        if (++index[d] < vo.sizes[d]) break;
        index[d] = 0;
      }
    }
    return Error::Ok;
  });
}

}  // namespace

Error complex_out(KernelContext& ctx, Span<EValue*> args) {
  return make_complex<false>(args, "complex.out", "real", "imag");
}

Error polar_out(KernelContext& ctx, Span<EValue*> args) {
  return make_complex<true>(args, "polar.out", "abs", "angle");
}

}  // namespace native
}  // namespace torchedge
