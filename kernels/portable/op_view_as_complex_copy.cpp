// aten::view_as_real_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
// aten::view_as_complex_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
//
// The copy forms of torch.view_as_real / view_as_complex: the same bytes
// read as (real, imag) pairs. view_as_real: a complex self [..] gives a
// real out [.., 2] of its part dtype. view_as_complex: a float16/32/64 self
// [.., 2] whose last dim is innermost in memory gives a complex out [..].
#include "kernels/portable/support/complex.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

Error view_as_real_copy_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "view_as_real_copy.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_CHECK_OR_RETURN(is_complex(self->dtype()), Error::InvalidType,
                     "%s: self must be complex, got %s", kOp, to_string(self->dtype()));
  TE_CHECK_OR_RETURN(out->dtype() == complex_part_type(self->dtype()), Error::InvalidType,
                     "%s: out must be %s, got %s", kOp,
                     to_string(complex_part_type(self->dtype())), to_string(out->dtype()));
  TE_CHECK_OR_RETURN(out->dim() == self->dim() + 1, Error::InvalidArgument,
                     "%s: out has %d dims, expected %d", kOp, out->dim(), self->dim() + 1);
  StridedView v = view_of(*self);  // each complex element as two parts
  v.element_size /= 2;
  for (int d = 0; d < v.rank; ++d) v.strides[d] *= 2;
  v.sizes[v.rank] = 2;
  v.strides[v.rank++] = 1;
  return copy_view_to(v, *out);
}

Error view_as_complex_copy_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "view_as_complex_copy.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  const ScalarType part = self->dtype();
  TE_CHECK_OR_RETURN(part == ScalarType::Half || part == ScalarType::Float ||
                         part == ScalarType::Double,
                     Error::InvalidType, "%s: self must be float16, float32 or float64, got %s",
                     kOp, to_string(part));
  TE_CHECK_OR_RETURN(out->dtype() == complex_type_of(part), Error::InvalidType,
                     "%s: out must be %s, got %s", kOp, to_string(complex_type_of(part)),
                     to_string(out->dtype()));
  TE_CHECK_OR_RETURN(self->dim() >= 1 && self->size(-1) == 2 && self->stride(-1) == 1,
                     Error::InvalidArgument,
                     "%s: self's last dim must have size 2 and be innermost in memory", kOp);
  TE_CHECK_OR_RETURN(out->dim() == self->dim() - 1, Error::InvalidArgument,
                     "%s: out has %d dims, expected %d", kOp, out->dim(), self->dim() - 1);
  StridedView v = view_of(*self);  // (real, imag) pairs as one element
  v.rank -= 1;
  v.element_size *= 2;
  for (int d = 0; d < v.rank; ++d) {
    TE_CHECK_OR_RETURN(v.strides[d] % 2 == 0 || v.sizes[d] == 1, Error::InvalidArgument,
                       "%s: dim %d of self has an odd stride", kOp, d);
    v.strides[d] /= 2;
  }
  return copy_view_to(v, *out);
}

}  // namespace native
}  // namespace torchedge
