// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
//     -> Tensor(a!)
//
// out[*, N] = input[*, K] @ weight[N, K]^T + bias. A 1-d weight [K] gives
// out[*] (a dot product per row, as in ATen). bias: None, 0-d, [1] or [N].
// The leading dims of input are merged into the GEMM's rows where their
// strides allow and looped over otherwise. Dtypes as mm.out (all tensors
// share one dtype).
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/matmul.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// input's leading (row) dims, merged where both input and out are dense
// across them: the last one becomes the GEMM's M, the others are a batch.
struct RowDims {
  int count = 0;
  int64_t size[kTensorDimensionLimit];
  int64_t in_stride[kTensorDimensionLimit];
  int64_t out_stride[kTensorDimensionLimit];

  void init(const Tensor& in, const Tensor& out) {
    count = 0;
    for (int d = 0; d + 1 < in.dim(); ++d) {
      const int64_t sz = in.size(d), is = in.stride(d), os = out.stride(d);
      if (count > 0 && in_stride[count - 1] == is * sz && out_stride[count - 1] == os * sz) {
        size[count - 1] *= sz;
        in_stride[count - 1] = is;
        out_stride[count - 1] = os;
      } else {
        size[count] = sz;
        in_stride[count] = is;
        out_stride[count] = os;
        ++count;
      }
    }
    if (count == 0) {  // 1-d input: one row
      size[0] = 1;
      in_stride[0] = 0;
      out_stride[0] = 0;
      count = 1;
    }
  }
  int64_t batch() const {
    int64_t b = 1;
    for (int i = 0; i + 1 < count; ++i) b *= size[i];
    return b;
  }
  // Offsets of batch entry `b` (row-major over the batch dims).
  void offsets(int64_t b, int64_t* in_off, int64_t* out_off) const {
    *in_off = 0;
    *out_off = 0;
    for (int i = count - 2; i >= 0; --i) {
      const int64_t idx = b % size[i];
      b /= size[i];
      *in_off += idx * in_stride[i];
      *out_off += idx * out_stride[i];
    }
  }
};

Error check_shapes(const Tensor& in, const Tensor& w, const Tensor* bias) {
  TE_CHECK_OR_RETURN(in.dim() >= 1 && (w.dim() == 1 || w.dim() == 2), Error::InvalidArgument,
                     "linear.out: expected input of rank >= 1 and a 1-d or 2-d weight, got %d-d "
                     "and %d-d",
                     in.dim(), w.dim());
  TE_CHECK_OR_RETURN(in.size(-1) == w.size(-1), Error::InvalidArgument,
                     "linear.out: input has %d features but weight expects %d", in.size(-1),
                     w.size(-1));
  if (bias != nullptr) {
    const int64_t n = w.dim() == 2 ? w.size(0) : 1;
    TE_CHECK_OR_RETURN(bias->dim() == 0 || (bias->dim() == 1 && (bias->size(0) == n ||
                                                                 bias->size(0) == 1)),
                       Error::InvalidArgument,
                       "linear.out: bias must be 0-d or 1-d with 1 or %lld elements",
                       static_cast<long long>(n));
  }
  return Error::Ok;
}

}  // namespace

Error linear_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 4));
  TE_ASSIGN_OR_RETURN(Tensor* in, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(Tensor* w, tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(Tensor* bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 3, "out"));
  TE_RETURN_IF_ERROR(check_shapes(*in, *w, bias));
  TE_RETURN_IF_ERROR(expect_same_dtype(*in, *w, "input", "weight"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*in, *out, "input", "out"));
  if (bias != nullptr) TE_RETURN_IF_ERROR(expect_same_dtype(*in, *bias, "input", "bias"));
  const bool vector_weight = w->dim() == 1;
  const int64_t k = in->size(-1), n = vector_weight ? 1 : w->size(0);
  int64_t out_sizes[kTensorDimensionLimit];
  for (int d = 0; d + 1 < in->dim(); ++d) out_sizes[d] = in->size(d);
  if (!vector_weight) out_sizes[in->dim() - 1] = n;
  const size_t out_rank = static_cast<size_t>(in->dim() - (vector_weight ? 1 : 0));
  TE_RETURN_IF_ERROR(resize_to(*out, {out_sizes, out_rank}));
  RowDims rows;
  rows.init(*in, *out);
  const int64_t m = rows.size[rows.count - 1];
  return switch_dtype_only<kRealTypes>(out->dtype(), "linear.out", [&](auto tag) {
    using T = decltype(tag);
    // weight^T as a [K, N] view; a vector weight is one column.
    const MatrixRef<const T> wt{w->data_as<T>(), w->stride(-1),
                                vector_weight ? 0 : w->stride(0)};
    MatrixRef<const T> addend{nullptr, 0, 0};
    if (bias != nullptr) {
      const bool per_column = bias->dim() == 1 && bias->size(0) > 1;
      addend = {bias->data_as<T>(), 0, per_column ? bias->stride(0) : 0};
    }
    const int64_t in_row = rows.in_stride[rows.count - 1];
    const int64_t out_row = rows.out_stride[rows.count - 1];
    const int64_t out_col = vector_weight ? 0 : out->stride(-1);
    gemm::acc_t<T>* strip = gemm::partial_strip<T>(ctx, m, k);
    for (int64_t b = 0, batch = rows.batch(); b < batch; ++b) {
      int64_t in_off = 0, out_off = 0;
      rows.offsets(b, &in_off, &out_off);
      matmul<T>(m, n, k, {in->data_as<T>() + in_off, in_row, in->stride(-1)}, wt,
                {out->mutable_data_as<T>() + out_off, out_row, out_col}, addend, {}, strip);
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
