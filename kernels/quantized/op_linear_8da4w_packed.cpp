// torchedge::linear_8da4w_packed.out(Tensor input, Tensor packed_weight,
//     int out_features, int group_size, Tensor? bias, *, Tensor(a!) out)
//
// linear_8da4w.out for a symmetric weight stored ahead of time in the
// blocked layout of support/int4_packed.h (uint8 [ceil(N / 16), K / g,
// 64 + 8 g]: 16 rows' scales and their nibbles per group; written by
// python/torchedge/quantization/groupwise.py, pack_int4_blocked). Each input
// row is quantized to asymmetric int8 exactly as the eager reference does
// (support/activation_quant.h), then
//   out[m, n] = x_scale[m] * sum_g w_scale[n, g] * I[m, n, g] + bias[n],
//   I = sum_{k in g} (xq[m, k] - x_zp[m]) * q[n, k]   (exact int32)
// as linear_8da4w.out computes it on the same weight, up to float rounding.
// Inner loops: AVX-512 VNNI, AVX2 or scalar (quant_isa()); row blocks split
// across the shared thread pool. Scratch (temp allocator): M * (K + 4 K/g
// + 8) bytes for the quantized rows.
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int4_packed.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "linear_8da4w_packed.out";

struct PackedCall {
  const float* x;
  int64_t m;
  quantized::Int4PackedWeight weight;
  const float* bias;
  float* out;
};

Result<PackedCall> parse_args(Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(const Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(const Tensor* packed, tensor_arg(args, 1, "packed_weight"));
  TE_ASSIGN_OR_RETURN(int64_t n, int_arg(args, 2, "out_features"));
  TE_ASSIGN_OR_RETURN(int64_t g, int_arg(args, 3, "group_size"));
  TE_ASSIGN_OR_RETURN(const Tensor* bias, optional_tensor_arg(args, 4, "bias"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 5, "out"));
  TE_CHECK_OR_RETURN(in->dtype() == ScalarType::Float && in->dim() >= 1, Error::InvalidArgument,
                     "%s: input must be float32 of rank >= 1, got %s %d-d", kOp,
                     to_string(in->dtype()), in->dim());
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*in, "input", kOp));
  TE_CHECK_OR_RETURN(g == 32 || g == 64 || g == 128 || g == 256, Error::InvalidArgument,
                     "%s: group_size must be 32, 64, 128 or 256, got %lld", kOp,
                     static_cast<long long>(g));
  const int64_t k = in->size(-1);
  TE_CHECK_OR_RETURN(k % g == 0, Error::InvalidArgument,
                     "%s: input features (%lld) must be a multiple of group_size (%lld)", kOp,
                     static_cast<long long>(k), static_cast<long long>(g));
  TE_CHECK_OR_RETURN(n >= 0, Error::InvalidArgument, "%s: out_features must be >= 0, got %lld",
                     kOp, static_cast<long long>(n));
  const int64_t blocks = (n + quantized::kInt4PackedRows - 1) / quantized::kInt4PackedRows;
  const int64_t record = quantized::kInt4PackedHeader + 8 * g;
  TE_CHECK_OR_RETURN(packed->dtype() == ScalarType::Byte && packed->dim() == 3 &&
                         packed->size(0) == blocks && packed->size(1) == k / g &&
                         packed->size(2) == record,
                     Error::InvalidArgument,
                     "%s: packed_weight must be uint8 [%lld, %lld, %lld] (%lld outputs, %lld "
                     "inputs, group %lld), got %s %d-d", kOp, static_cast<long long>(blocks),
                     static_cast<long long>(k / g), static_cast<long long>(record),
                     static_cast<long long>(n), static_cast<long long>(k),
                     static_cast<long long>(g), to_string(packed->dtype()), packed->dim());
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*packed, "packed_weight", kOp));
  if (bias != nullptr) {
    TE_CHECK_OR_RETURN(bias->dtype() == ScalarType::Float && bias->dim() == 1 &&
                           bias->size(0) == n,
                       Error::InvalidArgument, "%s: bias must be float32 [%lld]", kOp,
                       static_cast<long long>(n));
  }
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Float, "out"));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*out, "out", kOp));
  int64_t sizes[kTensorDimensionLimit];
  int64_t m = 1;
  for (int d = 0; d + 1 < in->dim(); ++d) {
    sizes[d] = in->size(d);
    m *= in->size(d);
  }
  sizes[in->dim() - 1] = n;
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(in->dim())}));
  TE_CHECK_OR_RETURN(!bytes_overlap(*out, *in), Error::InvalidArgument,
                     "%s: out overlaps input", kOp);
  return PackedCall{in->data_as<float>(), m, {packed->data_as<uint8_t>(), n, k, g},
                    bias != nullptr ? bias->data_as<float>() : nullptr,
                    out->mutable_data_as<float>()};
}

}  // namespace

Error linear_8da4w_packed_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(const PackedCall call, parse_args(args));
  const quantized::Int4PackedWeight& w = call.weight;
  if (call.m == 0 || w.n == 0) return Error::Ok;
  const int64_t groups = w.groups();
  const size_t m = static_cast<size_t>(call.m);
  int8_t* q = static_cast<int8_t*>(ctx.allocate_temp(m * static_cast<size_t>(w.k) + 1, 64));
  float* scales = static_cast<float*>(ctx.allocate_temp(m * sizeof(float)));
  int32_t* zero_points = static_cast<int32_t*>(ctx.allocate_temp(m * sizeof(int32_t)));
  int32_t* group_sums = static_cast<int32_t*>(
      ctx.allocate_temp(m * static_cast<size_t>(groups) * sizeof(int32_t) + sizeof(int32_t)));
  TE_CHECK_OR_RETURN(q != nullptr && scales != nullptr && zero_points != nullptr &&
                         group_sums != nullptr,
                     Error::MemoryAllocationFailed,
                     "%s: needs about %zu bytes of kernel scratch (temp allocator)", kOp,
                     m * static_cast<size_t>(w.k + 4 * groups + 8));
  if (w.k == 0) {  // no features: the output is the bias
    for (size_t r = 0; r < m; ++r) {
      for (int64_t n = 0; n < w.n; ++n) call.out[r * w.n + n] = call.bias ? call.bias[n] : 0.0f;
    }
    return Error::Ok;
  }
  // Rows are independent: prefill's hundreds of rows split across threads.
  parallel_for(0, call.m, (int64_t{1} << 14) / w.k + 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      quantized::quantize_row_int8_per_token(call.x + r * w.k, w.k, w.group_size, q + r * w.k,
                                             &scales[r], &zero_points[r], group_sums + r * groups);
    }
  });
  quantized::run_int8_int4_packed_linear({q, scales, zero_points, group_sums, call.m}, w,
                                         call.bias, call.out);
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
