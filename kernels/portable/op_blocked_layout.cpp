// torchedge::to_blocked.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)
// torchedge::from_blocked.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)
//
// The channel-blocked layout's changes (NCHW16c,
// python/torchedge/passes/conv2d_blocked_op.py): to_blocked turns a float32
// [N, C, H, W] into [N, C / 16, H, W, 16], element (n, c, h, w) at
// [n, c / 16, h, w, c % 16]; from_blocked is its inverse. Both are one
// strided copy: the NCHW side's view splits C into (C / 16, 16) and moves
// the 16 last, so the two views match dim for dim. Either side may have any
// dim order. Errors: input not float32 of the right rank, C not a multiple
// of 16 (to_blocked), a last dim other than 16 (from_blocked), out not
// float32, input overlapping out.
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/strided_copy.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr int64_t kBlock = 16;

// The blocked view [N, C / 16, H, W, 16] of an NCHW tensor.
StridedView blocked_view_of_nchw(const Tensor& t) {
  StridedView v = view_of(t);
  const int64_t c_stride = v.strides[1];
  v.rank = 5;
  v.sizes[1] /= kBlock;
  v.strides[1] = c_stride * kBlock;
  v.sizes[4] = kBlock;
  v.strides[4] = c_stride;
  return v;
}

// The two tensors, both float32 (`input_what` / `out_what` name them in errors).
Error read_io(Span<EValue*> args, const char* input_what, const char* out_what, Tensor** input,
              Tensor** out) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(*input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(*out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_dtype(**input, ScalarType::Float, input_what));
  return expect_dtype(**out, ScalarType::Float, out_what);
}

Error check_no_overlap(const Tensor& input, const Tensor& out, const char* op) {
  TE_CHECK_OR_RETURN(!bytes_overlap(input, out), Error::InvalidArgument,
                     "%s: input must not overlap out", op);
  return Error::Ok;
}

}  // namespace

Error to_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  constexpr const char* kOp = "to_blocked.out";
  Tensor* input = nullptr;
  Tensor* out = nullptr;
  TE_RETURN_IF_ERROR(
      read_io(args, "to_blocked.out: input", "to_blocked.out: out", &input, &out));
  TE_CHECK_OR_RETURN(input->dim() == 4 && input->size(1) % kBlock == 0, Error::InvalidArgument,
                     "%s: input must be [N, C, H, W] with C a multiple of 16, got %d dims "
                     "(C %lld)",
                     kOp, input->dim(),
                     static_cast<long long>(input->dim() > 1 ? input->size(1) : 0));
  const int64_t sizes[5] = {input->size(0), input->size(1) / kBlock, input->size(2),
                            input->size(3), kBlock};
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, 5}));
  TE_RETURN_IF_ERROR(check_no_overlap(*input, *out, kOp));
  return copy_view(blocked_view_of_nchw(*input), view_of(*out));
}

Error from_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  (void)ctx;
  constexpr const char* kOp = "from_blocked.out";
  Tensor* input = nullptr;
  Tensor* out = nullptr;
  TE_RETURN_IF_ERROR(
      read_io(args, "from_blocked.out: input", "from_blocked.out: out", &input, &out));
  TE_CHECK_OR_RETURN(input->dim() == 5 && input->size(4) == kBlock, Error::InvalidArgument,
                     "%s: input must be blocked [N, C/16, H, W, 16], got %d dims (last %lld)",
                     kOp, input->dim(),
                     static_cast<long long>(input->dim() > 0 ? input->size(input->dim() - 1)
                                                             : 0));
  const int64_t sizes[4] = {input->size(0), input->size(1) * kBlock, input->size(2),
                            input->size(3)};
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, 4}));
  TE_RETURN_IF_ERROR(check_no_overlap(*input, *out, kOp));
  return copy_view(view_of(*input), blocked_view_of_nchw(*out));
}

}  // namespace native
}  // namespace torchedge
