// aten::_assert_scalar(Scalar self, str assert_msg) -> ()      args [self, assert_msg]
//
// Fails with InvalidArgument, reporting assert_msg, when self is false (or
// 0). torchedge emits these to check dynamic input shapes against the
// constraints they were exported with (a dimension shared by two inputs, a
// minimum size), so a violation is reported before any kernel runs.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/prim/scalar_operands.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace prim {

Error assert_scalar(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(bool holds, bool_operand(args, 0, "_assert_scalar"));
  TE_ASSIGN_OR_RETURN(StringView message, string_arg(args, 1, "assert_msg"));
  TE_CHECK_OR_RETURN(holds, Error::InvalidArgument, "%.*s", static_cast<int>(message.size),
                     message.data);
  return Error::Ok;
}

}  // namespace prim
}  // namespace torchedge
