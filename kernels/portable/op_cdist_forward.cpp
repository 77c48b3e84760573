// aten::_cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *,
//     Tensor(a!) out) -> Tensor(a!)
//
// Pairwise p-norm distances (support/p_norm_distance.h) between the rows of
// x1 [*B1, P, M] and x2 [*B2, R, M]: out [*B, P, R] with B the broadcast of
// B1 and B2. p >= 0; compute_mode is None, 0, 1 or 2 (it only chooses
// eager's matmul formulation for p = 2, which this kernel does not use: the
// direct sum is the exact form of the same value). float32 and float64 (as
// eager on CPU); x1, x2 and out share one.
#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/p_norm_distance.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "_cdist_forward.out";
constexpr DtypeSet kCdistTypes = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double);

// The element offset of batch `b` (row-major over out's batch dims) in `t`,
// whose batch dims align with out's from the right and broadcast when 1.
int64_t batch_offset(const Tensor& t, const Tensor& out, int64_t b) {
  const int out_batch = out.dim() - 2, t_batch = t.dim() - 2;
  int64_t offset = 0;
  for (int d = out_batch - 1; d >= 0; --d) {
    const int64_t index = b % out.size(d);
    b /= out.size(d);
    const int td = d - (out_batch - t_batch);
    if (td >= 0 && t.size(td) != 1) offset += index * t.stride(td);
  }
  return offset;
}

template <typename T>
void cdist(const Tensor& x1, const Tensor& x2, double p, Tensor& out) {
  const int r = out.dim();
  const int64_t rows1 = x1.size(-2), rows2 = x2.size(-2), m = x1.size(-1);
  int64_t batches = 1;
  for (int d = 0; d < r - 2; ++d) batches *= out.size(d);
  T* y = out.mutable_data_as<T>();
  for (int64_t b = 0; b < batches; ++b) {
    const T* a = x1.data_as<T>() + batch_offset(x1, out, b);
    const T* c = x2.data_as<T>() + batch_offset(x2, out, b);
    const int64_t out_base = batch_offset(out, out, b);
    for (int64_t i = 0; i < rows1; ++i) {
      for (int64_t j = 0; j < rows2; ++j) {
        const double dist = p_norm_distance(a + i * x1.stride(-2), x1.stride(-1),
                                            c + j * x2.stride(-2), x2.stride(-1), m, p);
        y[out_base + i * out.stride(-2) + j * out.stride(-1)] = static_cast<T>(dist);
      }
    }
  }
}

}  // namespace

Error cdist_forward_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* x1, tensor_arg(args, 0, "x1"));
  TE_ASSIGN_OR_RETURN(Tensor* x2, tensor_arg(args, 1, "x2"));
  TE_ASSIGN_OR_RETURN(double p, double_arg(args, 2, "p"));
  TE_ASSIGN_OR_RETURN(int64_t mode, optional_int_arg(args, 3, "compute_mode", 0));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_CHECK_OR_RETURN(p >= 0, Error::InvalidArgument, "%s: p must be non-negative, got %g", kOp,
                     p);
  TE_CHECK_OR_RETURN(mode >= 0 && mode <= 2, Error::InvalidArgument,
                     "%s: compute_mode must be None, 0, 1 or 2, got %lld", kOp,
                     static_cast<long long>(mode));
  TE_CHECK_OR_RETURN(x1->dim() >= 2 && x2->dim() >= 2, Error::InvalidArgument,
                     "%s: x1 and x2 must have at least 2 dims, got %d and %d", kOp, x1->dim(),
                     x2->dim());
  TE_CHECK_OR_RETURN(x1->size(-1) == x2->size(-1), Error::InvalidArgument,
                     "%s: x1 and x2 must have the same number of columns, got %d and %d", kOp,
                     x1->size(-1), x2->size(-1));
  TE_RETURN_IF_ERROR(expect_same_dtype(*x1, *x2, "x1", "x2"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*x1, *out, "x1", "out"));
  const int batch1 = x1->dim() - 2, batch2 = x2->dim() - 2;
  const int batch = batch1 > batch2 ? batch1 : batch2;
  int64_t sizes[kTensorDimensionLimit];
  for (int d = 0; d < batch; ++d) {  // broadcast the batch dims, aligned right
    const int d1 = d - (batch - batch1), d2 = d - (batch - batch2);
    const int64_t s1 = d1 >= 0 ? x1->size(d1) : 1, s2 = d2 >= 0 ? x2->size(d2) : 1;
    TE_CHECK_OR_RETURN(s1 == s2 || s1 == 1 || s2 == 1, Error::InvalidArgument,
                       "%s: batch dims of x1 and x2 do not broadcast (%lld vs %lld at dim %d)",
                       kOp, static_cast<long long>(s1), static_cast<long long>(s2), d);
    sizes[d] = s1 == 1 ? s2 : s1;
  }
  sizes[batch] = x1->size(-2);
  sizes[batch + 1] = x2->size(-2);
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(batch + 2)}));
  return switch_dtype_only<kCdistTypes>(x1->dtype(), kOp, [&](auto tag) {
    cdist<decltype(tag)>(*x1, *x2, p, *out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
