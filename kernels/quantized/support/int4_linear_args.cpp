#include "kernels/quantized/support/int4_linear_args.h"

#include "kernels/quantized/support/quant_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace quantized {
namespace {

Error expect_matrix(const Tensor& t, ScalarType dtype, int64_t rows, int64_t cols,
                    const char* what, const char* op) {
  TE_CHECK_OR_RETURN(t.dtype() == dtype && t.dim() == 2 && t.size(0) == rows &&
                         t.size(1) == cols,
                     Error::InvalidArgument, "%s: %s must be %s [%lld, %lld], got %s %d-d", op,
                     what, to_string(dtype), static_cast<long long>(rows),
                     static_cast<long long>(cols), to_string(t.dtype()), t.dim());
  return expect_row_major(t, what, op);
}

}  // namespace

Result<Int4LinearCall> parse_int4_linear_args(Span<EValue*> args, const char* op) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 7));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* packed, tensor_arg(args, 1, "packed_weight"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 2, "scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* zero_points, optional_tensor_arg(args, 3, "zero_points"));
  TE_ASSIGN_OR_RETURN(int64_t group_size, int_arg(args, 4, "group_size"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 5, "bias"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 6, "out"));
  TE_CHECK_OR_RETURN(in->dtype() == ScalarType::Float && in->dim() >= 1, Error::InvalidArgument,
                     "%s: input must be float32 of rank >= 1, got %s %d-d", op,
                     to_string(in->dtype()), in->dim());
  TE_RETURN_IF_ERROR(expect_row_major(*in, "input", op));
  TE_CHECK_OR_RETURN(group_size == 32 || group_size == 64 || group_size == 128 ||
                         group_size == 256,
                     Error::InvalidArgument, "%s: group_size must be 32, 64, 128 or 256, got %lld",
                     op, static_cast<long long>(group_size));
  const int64_t k = in->size(-1);
  TE_CHECK_OR_RETURN(k % group_size == 0, Error::InvalidArgument,
                     "%s: input features (%lld) must be a multiple of group_size (%lld)", op,
                     static_cast<long long>(k), static_cast<long long>(group_size));
  TE_CHECK_OR_RETURN(packed->dim() == 2, Error::InvalidArgument,
                     "%s: packed_weight must be uint8 [N, K/2], got %d-d", op, packed->dim());
  const int64_t n = packed->size(0), groups = k / group_size;
  TE_RETURN_IF_ERROR(expect_matrix(*packed, ScalarType::Byte, n, k / 2, "packed_weight", op));
  TE_RETURN_IF_ERROR(expect_matrix(*scales, ScalarType::Float, n, groups, "scales", op));
  if (zero_points != nullptr) {
    TE_RETURN_IF_ERROR(expect_matrix(*zero_points, ScalarType::Char, n, groups, "zero_points", op));
  }
  if (bias != nullptr) {
    TE_CHECK_OR_RETURN(bias->dtype() == ScalarType::Float && bias->dim() == 1 &&
                           bias->size(0) == n,
                       Error::InvalidArgument, "%s: bias must be float32 [%lld]", op,
                       static_cast<long long>(n));
  }
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Float, "out"));
  TE_RETURN_IF_ERROR(expect_row_major(*out, "out", op));
  int64_t sizes[kTensorDimensionLimit];
  int64_t m = 1;
  for (int d = 0; d + 1 < in->dim(); ++d) {
    sizes[d] = in->size(d);
    m *= in->size(d);
  }
  sizes[in->dim() - 1] = n;
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(in->dim())}));
  Int4LinearCall call;
  call.x = in->data_as<float>();
  call.m = m;
  call.weight = {packed->data_as<uint8_t>(), scales->data_as<float>(),
                 zero_points != nullptr ? zero_points->data_as<int8_t>() : nullptr, n, k,
                 group_size};
  call.bias = bias != nullptr ? bias->data_as<float>() : nullptr;
  call.out = out->mutable_data_as<float>();
  return call;
}

}  // namespace quantized
}  // namespace torchedge
