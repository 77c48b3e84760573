// torchedge::embedding_int8.out(Tensor weight_q, Tensor weight_scales, Tensor indices, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// An embedding table stored as int8 rows with one float32 scale per row
// (symmetric, torchedge.quantization.quantize_embeddings): for every index i,
//   out[..., j] = float(weight_q[i, j]) * weight_scales[i]
// one float32 multiply per element, exactly the eager reference's
// (python/torchedge/quantization/embedding_quantization.py). Only the rows the
// indices name are dequantized, so a 30k-row vocabulary costs what a plain
// gather costs while the file holds a quarter of the float bytes.
// weight_q int8 [V, D] and out float32 [*indices.shape, D] row-major,
// weight_scales float32 [V], indices int64 or int32 (contiguous) in [0, V).
#include "kernels/quantized/support/quant_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "embedding_int8.out";

int64_t index_at(const Tensor& indices, size_t i) {
  return indices.dtype() == ScalarType::Long ? indices.data_as<int64_t>()[i]
                                             : indices.data_as<int32_t>()[i];
}

Error check_arguments(const Tensor& weight, const Tensor& scales, const Tensor& indices) {
  TE_CHECK_OR_RETURN(weight.dtype() == ScalarType::Char && weight.dim() == 2, Error::InvalidType,
                     "%s: weight_q must be int8 [V, D], got %s %d-d", kOp,
                     to_string(weight.dtype()), weight.dim());
  TE_CHECK_OR_RETURN(scales.dtype() == ScalarType::Float && scales.dim() == 1 &&
                         scales.size(0) == weight.size(0),
                     Error::InvalidArgument, "%s: weight_scales must be float32 [%d]", kOp,
                     weight.size(0));
  TE_CHECK_OR_RETURN(indices.dtype() == ScalarType::Long || indices.dtype() == ScalarType::Int,
                     Error::InvalidType, "%s: indices must be int64 or int32, got %s", kOp,
                     to_string(indices.dtype()));
  TE_CHECK_OR_RETURN(indices.dim() < kTensorDimensionLimit, Error::InvalidArgument,
                     "%s: indices rank %d leaves no room for the row dim", kOp, indices.dim());
  TE_RETURN_IF_ERROR(quantized::expect_row_major(weight, "weight_q", kOp));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(indices, "indices", kOp));
  const int64_t rows = weight.size(0);
  for (size_t i = 0; i < indices.numel(); ++i) {
    const int64_t row = index_at(indices, i);
    TE_CHECK_OR_RETURN(row >= 0 && row < rows, Error::InvalidArgument,
                       "%s: index %lld out of range for %lld embeddings", kOp,
                       static_cast<long long>(row), static_cast<long long>(rows));
  }
  return Error::Ok;
}

}  // namespace

Error embedding_int8_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(const Tensor* weight, tensor_arg(args, 0, "weight_q"));
  TE_ASSIGN_OR_RETURN(const Tensor* scales, tensor_arg(args, 1, "weight_scales"));
  TE_ASSIGN_OR_RETURN(const Tensor* indices, tensor_arg(args, 2, "indices"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(check_arguments(*weight, *scales, *indices));
  TE_RETURN_IF_ERROR(expect_dtype(*out, ScalarType::Float, "out"));
  const int64_t width = weight->size(1);
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < indices->dim(); ++d) sizes[d] = indices->size(d);
  sizes[indices->dim()] = width;
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(indices->dim() + 1)}));
  TE_RETURN_IF_ERROR(quantized::expect_row_major(*out, "out", kOp));
  const int8_t* w = weight->data_as<int8_t>();
  const float* s = scales->data_as<float>();
  float* y = out->mutable_data_as<float>();
  for (size_t i = 0; i < indices->numel(); ++i) {
    const int64_t row = index_at(*indices, i);
    const int8_t* src = w + row * width;
    const float scale = s[row];
    float* dst = y + static_cast<int64_t>(i) * width;
    for (int64_t j = 0; j < width; ++j) dst[j] = static_cast<float>(src[j]) * scale;
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
