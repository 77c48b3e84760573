// aten::sym_size.int(Tensor self, int dim) -> SymInt      args [self, dim, out]
// aten::sym_numel(Tensor self) -> SymInt                  args [self, out]
//
// Read the current (possibly dynamic) shape of a tensor into an Int value,
// which size expressions and IntList arguments of later kernels then see.
#include "kernels/prim/scalar_operands.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace prim {

Error sym_size_int(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_operands(args, 2, "sym_size"));
  TE_CHECK_OR_RETURN(args[0]->is_tensor() && args[1]->is_int(), Error::InvalidType,
                     "sym_size: expected (Tensor, Int), got (%s, %s)", tag_name(args[0]->tag()),
                     tag_name(args[1]->tag()));
  const Tensor& self = args[0]->to_tensor();
  const int64_t dim = args[1]->to_int();
  const int64_t rank = self.dim();
  TE_CHECK_OR_RETURN(dim >= -rank && dim < rank, Error::InvalidArgument,
                     "sym_size: dim %lld out of range for a %lld-d tensor",
                     static_cast<long long>(dim), static_cast<long long>(rank));
  set_out(args, int_number(self.size(static_cast<int>(dim))));
  return Error::Ok;
}

Error sym_numel(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_operands(args, 1, "sym_numel"));
  TE_CHECK_OR_RETURN(args[0]->is_tensor(), Error::InvalidType,
                     "sym_numel: expected a Tensor, got %s", tag_name(args[0]->tag()));
  set_out(args, int_number(static_cast<int64_t>(args[0]->to_tensor().numel())));
  return Error::Ok;
}

}  // namespace prim
}  // namespace torchedge
