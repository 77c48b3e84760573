// aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
//     bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out) -> Tensor(a!)
//
// out[*idx, :] = weight[indices[*idx], :]: out has indices' shape plus
// weight's row size. weight is 2-d of any dtype (rows are copied, so the
// dtype does not matter); indices are int64 or int32, each in
// [0, num_embeddings) (an out-of-range index is an error, before anything
// is written). padding_idx, scale_grad_by_freq and sparse only affect
// gradients and are ignored, as in ATen's forward.
#include <cstring>

#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "embedding.out";

// Row-major walk over indices' elements: its offset and out's row offset.
struct IndexWalk {
  int rank = 0;
  int64_t size[kTensorDimensionLimit], idx_stride[kTensorDimensionLimit],
      out_stride[kTensorDimensionLimit], pos[kTensorDimensionLimit] = {};
  int64_t idx_off = 0, out_off = 0;

  IndexWalk(const Tensor& indices, const Tensor& out) : rank(indices.dim()) {
    for (int d = 0; d < rank; ++d) {
      size[d] = indices.size(d);
      idx_stride[d] = indices.stride(d);
      out_stride[d] = out.stride(d);
    }
  }
  void next() {
    for (int d = rank - 1; d >= 0; --d) {
      idx_off += idx_stride[d];
      out_off += out_stride[d];
      if (++pos[d] < size[d]) return;
      idx_off -= size[d] * idx_stride[d];
      out_off -= size[d] * out_stride[d];
      pos[d] = 0;
    }
  }
};

int64_t index_at(const Tensor& indices, int64_t offset) {
  return indices.dtype() == ScalarType::Long ? indices.data_as<int64_t>()[offset]
                                             : indices.data_as<int32_t>()[offset];
}

}  // namespace

Error embedding_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  TE_ASSIGN_OR_RETURN(Tensor* weight, tensor_arg(args, 0, "weight"));
  TE_ASSIGN_OR_RETURN(Tensor* indices, tensor_arg(args, 1, "indices"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 5, "out"));
  TE_CHECK_OR_RETURN(weight->dim() == 2, Error::InvalidArgument,
                     "%s: weight must be 2-d, got %d-d", kOp, weight->dim());
  TE_CHECK_OR_RETURN(indices->dtype() == ScalarType::Long || indices->dtype() == ScalarType::Int,
                     Error::InvalidType, "%s: indices must be int64 or int32, got %s", kOp,
                     to_string(indices->dtype()));
  TE_CHECK_OR_RETURN(indices->dim() < kTensorDimensionLimit, Error::InvalidArgument,
                     "%s: indices rank %d leaves no room for the row dim", kOp, indices->dim());
  TE_RETURN_IF_ERROR(expect_same_dtype(*weight, *out, "weight", "out"));
  const int64_t rows = weight->size(0), width = weight->size(1);
  const int64_t count = static_cast<int64_t>(indices->numel());
  {
    IndexWalk walk(*indices, *indices);
    for (int64_t i = 0; i < count; ++i, walk.next()) {
      const int64_t row = index_at(*indices, walk.idx_off);
      TE_CHECK_OR_RETURN(row >= 0 && row < rows, Error::InvalidArgument,
                         "%s: index %lld out of range for %lld embeddings", kOp,
                         static_cast<long long>(row), static_cast<long long>(rows));
    }
  }
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < indices->dim(); ++d) sizes[d] = indices->size(d);
  sizes[indices->dim()] = width;
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(indices->dim() + 1)}));
  const size_t elem = element_size(weight->dtype());
  const int64_t w_col = weight->stride(1), o_col = out->stride(indices->dim());
  const char* w = static_cast<const char*>(weight->data());
  char* y = static_cast<char*>(out->mutable_data());
  IndexWalk walk(*indices, *out);
  for (int64_t i = 0; i < count; ++i, walk.next()) {
    const char* src = w + index_at(*indices, walk.idx_off) * weight->stride(0) * elem;
    char* dst = y + walk.out_off * elem;
    if (w_col == 1 && o_col == 1) {
      memcpy(dst, src, static_cast<size_t>(width) * elem);
    } else {
      for (int64_t j = 0; j < width; ++j) {
        memcpy(dst + j * o_col * elem, src + j * w_col * elem, elem);
      }
    }
  }
  return Error::Ok;
}

}  // namespace native
}  // namespace torchedge
