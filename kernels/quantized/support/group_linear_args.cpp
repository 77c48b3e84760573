#include "kernels/quantized/support/group_linear_args.h"

#include "kernels/optimized/threadpool/threadpool.h"

#include "kernels/quantized/support/quant_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace quantized {
namespace {

Error expect_matrix(const Tensor& t, ScalarType dtype, int64_t rows, int64_t cols, const char* what,
                    const char* op) {
  TE_CHECK_OR_RETURN(t.dtype() == dtype && t.dim() == 2 && t.size(0) == rows && t.size(1) == cols,
                     Error::InvalidArgument, "%s: %s must be %s [%lld, %lld], got %s %d-d", op,
                     what, to_string(dtype), static_cast<long long>(rows),
                     static_cast<long long>(cols), to_string(t.dtype()), t.dim());
  return expect_row_major(t, what, op);
}

// What both ops share: the input (any rank, K features), group_size,
// activation_bits, bias and out (resized to [..., N]).
struct Common {
  const Tensor* input;
  int64_t k, group_size, activation_bits;
  const Tensor* bias;
  Tensor* out;
};

Error check_common(const Common& c, int64_t n, const char* weight_name, const char* op) {
  const Tensor& in = *c.input;
  TE_CHECK_OR_RETURN(in.dtype() == ScalarType::Float && in.dim() >= 1 && in.size(-1) == c.k,
                     Error::InvalidArgument,
                     "%s: input must be float32 [..., %lld] (the features of %s), got %s %d-d "
                     "with %lld features",
                     op, static_cast<long long>(c.k), weight_name, to_string(in.dtype()), in.dim(),
                     static_cast<long long>(in.dim() >= 1 ? in.size(-1) : 0));
  TE_RETURN_IF_ERROR(expect_row_major(in, "input", op));
  TE_CHECK_OR_RETURN(
      c.group_size == 32 || c.group_size == 64 || c.group_size == 128 || c.group_size == 256,
      Error::InvalidArgument, "%s: group_size must be 32, 64, 128 or 256, got %lld", op,
      static_cast<long long>(c.group_size));
  TE_CHECK_OR_RETURN(c.k % c.group_size == 0, Error::InvalidArgument,
                     "%s: input features (%lld) must be a multiple of group_size (%lld)", op,
                     static_cast<long long>(c.k), static_cast<long long>(c.group_size));
  TE_CHECK_OR_RETURN(c.activation_bits == 8 || c.activation_bits == 32, Error::InvalidArgument,
                     "%s: activation_bits must be 8 or 32, got %lld", op,
                     static_cast<long long>(c.activation_bits));
  if (c.bias != nullptr) {
    TE_CHECK_OR_RETURN(
        c.bias->dtype() == ScalarType::Float && c.bias->dim() == 1 && c.bias->size(0) == n,
        Error::InvalidArgument, "%s: bias must be float32 [%lld], got %s %d-d", op,
        static_cast<long long>(n), to_string(c.bias->dtype()), c.bias->dim());
  }
  TE_RETURN_IF_ERROR(expect_dtype(*c.out, ScalarType::Float, "out"));
  TE_RETURN_IF_ERROR(expect_row_major(*c.out, "out", op));
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d + 1 < in.dim(); ++d) sizes[d] = in.size(d);
  sizes[in.dim() - 1] = n;
  TE_RETURN_IF_ERROR(resize_to(*c.out, {sizes, static_cast<size_t>(in.dim())}));
  TE_CHECK_OR_RETURN(!bytes_overlap(*c.out, in), Error::InvalidArgument, "%s: out overlaps input",
                     op);
  return Error::Ok;
}

GroupLinearCall call_of(const Common& c, GroupLinearWeight weight) {
  GroupLinearCall call;
  call.x = c.input->data_as<float>();
  call.m = c.k > 0 ? static_cast<int64_t>(c.input->numel()) / c.k : 1;
  for (int d = 0; c.k == 0 && d + 1 < c.input->dim(); ++d) call.m *= c.input->size(d);
  call.activation_bits = static_cast<int>(c.activation_bits);
  call.weight = weight;
  call.bias = c.bias != nullptr ? c.bias->data_as<float>() : nullptr;
  call.out = c.out->mutable_data_as<float>();
  return call;
}

}  // namespace

Result<GroupLinearCall> parse_linear_q4a_args(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 8));
  Common c{};
  TE_ASSIGN_OR_RETURN(c.input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* packed, tensor_arg(args, 1, "packed_weight"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 2, "scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* mins, tensor_arg(args, 3, "mins"));
  TE_ASSIGN_OR_RETURN(c.group_size, int_arg(args, 4, "group_size"));
  TE_ASSIGN_OR_RETURN(c.activation_bits, int_arg(args, 5, "activation_bits"));
  TE_ASSIGN_OR_RETURN(c.bias, optional_tensor_arg(args, 6, "bias"));
  TE_ASSIGN_OR_RETURN(c.out, tensor_arg(args, 7, "out"));
  TE_CHECK_OR_RETURN(packed->dtype() == ScalarType::Byte && packed->dim() == 2,
                     Error::InvalidArgument,
                     "%s: packed_weight must be uint8 [N, K/2], got %s %d-d", op,
                     to_string(packed->dtype()), packed->dim());
  const int64_t n = packed->size(0);
  c.k = 2 * packed->size(1);
  TE_RETURN_IF_ERROR(expect_row_major(*packed, "packed_weight", op));
  TE_RETURN_IF_ERROR(check_common(c, n, "packed_weight [N, K/2]", op));
  const int64_t groups = c.k / c.group_size;
  TE_RETURN_IF_ERROR(expect_matrix(*scales, ScalarType::Half, n, groups, "scales", op));
  TE_RETURN_IF_ERROR(expect_matrix(*mins, ScalarType::Half, n, groups, "mins", op));
  GroupLinearWeight w{GroupWeightFormat::kAffine4,
                      packed->data_as<uint8_t>(),
                      scales->data_as<uint16_t>(),
                      mins->data_as<uint16_t>(),
                      nullptr,
                      n,
                      c.k,
                      c.group_size};
  return call_of(c, w);
}

Result<GroupLinearCall> parse_linear_q8c_args(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  Common c{};
  TE_ASSIGN_OR_RETURN(c.input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* weight, tensor_arg(args, 1, "weight_q"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 2, "scales"));
  TE_ASSIGN_OR_RETURN(c.group_size, int_arg(args, 3, "group_size"));
  TE_ASSIGN_OR_RETURN(c.activation_bits, int_arg(args, 4, "activation_bits"));
  TE_ASSIGN_OR_RETURN(c.bias, optional_tensor_arg(args, 5, "bias"));
  TE_ASSIGN_OR_RETURN(c.out, tensor_arg(args, 6, "out"));
  TE_CHECK_OR_RETURN(weight->dtype() == ScalarType::Char && weight->dim() == 2,
                     Error::InvalidArgument, "%s: weight_q must be int8 [N, K], got %s %d-d", op,
                     to_string(weight->dtype()), weight->dim());
  const int64_t n = weight->size(0);
  c.k = weight->size(1);
  TE_RETURN_IF_ERROR(expect_row_major(*weight, "weight_q", op));
  TE_RETURN_IF_ERROR(check_common(c, n, "weight_q [N, K]", op));
  TE_CHECK_OR_RETURN(
      scales->dtype() == ScalarType::Float && scales->dim() == 1 && scales->size(0) == n,
      Error::InvalidArgument, "%s: scales must be float32 [%lld], got %s %d-d", op,
      static_cast<long long>(n), to_string(scales->dtype()), scales->dim());
  GroupLinearWeight w{GroupWeightFormat::kInt8Channel,
                      weight->data_as<uint8_t>(),
                      nullptr,
                      nullptr,
                      scales->data_as<float>(),
                      n,
                      c.k,
                      c.group_size};
  return call_of(c, w);
}

Error run_group_linear_kernel(KernelContext& ctx, const GroupLinearCall& call, const char* op) {
  const QuantIsa isa = quant_isa();
  const size_t threads = num_threads();
  const size_t bytes = group_linear_scratch_bytes(call, isa, threads);
  void* scratch = bytes > 0 ? ctx.allocate_temp(bytes, 64) : nullptr;
  TE_CHECK_OR_RETURN(bytes == 0 || scratch != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch (temp allocator)", op, bytes);
  run_group_linear(call, isa, threads, scratch);
  return Error::Ok;
}

}  // namespace quantized
}  // namespace torchedge
