// torchedge/kernels/portable/support/matrix_batch.h
//
// Moving batches of small matrices between tensors and double scratch, for
// the dense linear-algebra kernels (op_linalg_*.cpp). A tensor holds a
// batch of matrices [..., rows, cols] (or vectors [..., n]) in any dense
// dim order (eager's LAPACK results are column-major, and export records
// that layout): elements are addressed through the tensor's strides, and
// the batch dimensions broadcast against the result's batch shape.
// Scratch is row-major double: the factorizations (dense_linalg.h) work
// in double whatever the tensor dtype, so float32 results carry float64
// accuracy until the final rounding.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "kernels/portable/support/elementwise.h"  // convert_element
#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {

/// The batch shape of a result: up to kMaxBatchRank leading dimensions.
struct BatchShape {
  static constexpr int kMaxBatchRank = 16;
  int rank = 0;
  int64_t sizes[kMaxBatchRank] = {};
  int64_t count() const {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= sizes[d];
    return n;
  }
};

/// The leading dims of `t` that precede its `trailing` matrix / vector dims.
inline BatchShape batch_shape_of(const Tensor& t, int trailing) {
  BatchShape shape;
  shape.rank = t.dim() - trailing;
  for (int d = 0; d < shape.rank; ++d) shape.sizes[d] = t.size(d);
  return shape;
}

/// Element offset of batch entry `b` (row-major over `batch`) in `t`, whose
/// own batch dims (its leading dim() - trailing) broadcast to `batch`.
inline int64_t batch_offset(const Tensor& t, int trailing, const BatchShape& batch, int64_t b) {
  const int own = t.dim() - trailing;
  int64_t offset = 0;
  for (int d = batch.rank - 1; d >= 0; --d) {
    const int64_t i = b % batch.sizes[d];
    b /= batch.sizes[d];
    const int td = d - (batch.rank - own);
    if (td >= 0 && t.size(td) != 1) offset += i * t.strides()[td];
  }
  return offset;
}

/// A rows x cols matrix view into a tensor's data at `base` (for a vector,
/// cols == 1 and the column stride is unused).
struct MatrixAt {
  int64_t base, rows, cols, row_stride, col_stride;
};

inline MatrixAt matrix_at(const Tensor& t, int64_t base) {
  return {base, t.size(-2), t.size(-1), t.strides()[t.dim() - 2], t.strides()[t.dim() - 1]};
}
inline MatrixAt vector_at(const Tensor& t, int64_t base) {
  return {base, t.size(-1), 1, t.strides()[t.dim() - 1], 0};
}

/// dst[i * m.cols + j] = t[m](i, j), as double.
template <typename T>
void load_matrix(const Tensor& t, const MatrixAt& m, double* dst) {
  const T* data = t.data_as<T>();
  for (int64_t i = 0; i < m.rows; ++i) {
    for (int64_t j = 0; j < m.cols; ++j) {
      dst[i * m.cols + j] = convert_element<double>(data[m.base + i * m.row_stride + j * m.col_stride]);
    }
  }
}

/// t[m](i, j) = src[i * src_cols + j] rounded to T, for i < m.rows, j < m.cols.
template <typename T, typename S>
void store_matrix(Tensor& t, const MatrixAt& m, const S* src, int64_t src_cols) {
  T* data = t.mutable_data_as<T>();
  for (int64_t i = 0; i < m.rows; ++i) {
    for (int64_t j = 0; j < m.cols; ++j) {
      data[m.base + i * m.row_stride + j * m.col_stride] = convert_element<T>(src[i * src_cols + j]);
    }
  }
}

}  // namespace torchedge

namespace torchedge {

/// Scratch for `count` doubles from the kernel's temp allocator (at least one).
inline Result<double*> double_scratch(KernelContext& ctx, int64_t count, const char* op) {
  void* p = ctx.allocate_temp(sizeof(double) * static_cast<size_t>(count > 0 ? count : 1));
  TE_CHECK_OR_RETURN(p != nullptr, Error::MemoryAllocationFailed,
                     "%s: no temp memory for %lld doubles of scratch", op, static_cast<long long>(count));
  return static_cast<double*>(p);
}

/// Fails unless `t` is a batch of matrices (dim >= 2), square when `square`.
inline Error expect_matrices(const Tensor& t, const char* op, const char* name, bool square) {
  TE_CHECK_OR_RETURN(t.dim() >= 2, Error::InvalidArgument,
                     "%s: %s must have at least 2 dimensions, got %d", op, name, t.dim());
  TE_CHECK_OR_RETURN(!square || t.size(-1) == t.size(-2), Error::InvalidArgument,
                     "%s: %s must be batches of square matrices, got %lld x %lld", op, name,
                     static_cast<long long>(t.size(-2)), static_cast<long long>(t.size(-1)));
  return Error::Ok;
}

/// Resizes `out` to batch + trailing (`count` trailing sizes).
inline Error resize_batched(Tensor& out, const BatchShape& batch, std::initializer_list<int64_t> trailing) {
  int64_t sizes[BatchShape::kMaxBatchRank + 2];
  int rank = 0;
  for (int d = 0; d < batch.rank; ++d) sizes[rank++] = batch.sizes[d];
  for (int64_t s : trailing) sizes[rank++] = s;
  return resize_to(out, {sizes, static_cast<size_t>(rank)});
}

/// args[first + i] as the tensor named names[i], into tensors[i] (a kernel's
/// out arguments, in schema order).
inline Error tensor_args(Span<EValue*> args, size_t first, std::initializer_list<const char*> names,
                         Tensor** tensors) {
  size_t i = 0;
  for (const char* name : names) {
    TE_ASSIGN_OR_RETURN(tensors[i], tensor_arg(args, first + i, name));
    ++i;
  }
  return Error::Ok;
}

/// The arguments of a linear-algebra kernel
/// `<op>(Tensor in0, [Tensor in1,] bool flag0, ..., *, Tensor(a!) out0, ...)`.
struct FactorizationArgs {
  const Tensor* inputs[2] = {nullptr, nullptr};
  bool flags[3] = {false, false, false};
  Tensor* outs[3] = {nullptr, nullptr, nullptr};
};

/// Reads the tensors named `inputs`, the bools named `flags` right after them
/// and the out tensors named `outs` from index `first_out` on (at most 2
/// inputs, 3 flags and 3 outs; other arguments are the caller's to read).
inline Result<FactorizationArgs> factorization_args(Span<EValue*> args, std::initializer_list<const char*> inputs,
                                                    std::initializer_list<const char*> flags, size_t first_out,
                                                    std::initializer_list<const char*> outs) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, first_out + outs.size()));
  FactorizationArgs a;
  size_t i = 0;
  for (const char* name : inputs) {
    TE_ASSIGN_OR_RETURN(a.inputs[i], tensor_arg(args, i, name));
    ++i;
  }
  size_t f = 0;
  for (const char* name : flags) {
    TE_ASSIGN_OR_RETURN(a.flags[f], bool_arg(args, i + f, name));
    ++f;
  }
  TE_RETURN_IF_ERROR(tensor_args(args, first_out, outs, a.outs));
  return a;
}

/// Fails unless every tensor in `others` has `like`'s dtype.
inline Error expect_dtype_of(const Tensor& like, std::initializer_list<const Tensor*> others, const char* op) {
  for (const Tensor* t : others) {
    TE_CHECK_OR_RETURN(t->dtype() == like.dtype(), Error::InvalidType, "%s: expected dtype %s, got %s", op,
                       to_string(like.dtype()), to_string(t->dtype()));
  }
  return Error::Ok;
}

/// Resizes `out` to [0] (an output eager leaves empty, e.g. eigenvectors
/// with compute_v=False).
inline Error resize_empty(Tensor& out) {
  const int64_t zero[1] = {0};
  return resize_to(out, {zero, 1});
}

}  // namespace torchedge
