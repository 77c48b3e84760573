// aten::_fft_r2c.out(Tensor self, int[] dim, int normalization, bool onesided, *, Tensor(a!) out)
// aten::_fft_c2c.out(Tensor self, SymInt[] dim, int normalization, bool forward, *, Tensor(a!) out)
// aten::_fft_c2r.out(Tensor self, int[] dim, int normalization, SymInt last_dim_size, *,
//     Tensor(a!) out)
//
// The primitives torch.fft lowers to, over any set of dims (support/fft.h):
//   r2c: real self -> complex out, forward transform over `dim`; with
//        onesided, the last of `dim` keeps n / 2 + 1 bins (the rest are the
//        conjugates of those).
//   c2c: complex self -> complex out of the same shape, forward (sign -1)
//        or backward (sign +1) over `dim`.
//   c2r: complex self holding the onesided half of a Hermitian spectrum
//        along the last of `dim` -> real out, whose size along that dim is
//        last_dim_size: backward c2c over the other dims, then the real
//        inverse along the last (bins past self's size are zero).
// normalization: 0 none, 1 divide by sqrt(n), 2 divide by n, with n the
// product of the signal sizes over `dim` (out's sizes for c2r). float32
// pairs with complex64, float64 with complex128; the transform runs in
// double in kernel scratch (numel of the full-size complex signal).
#include <cmath>

#include "kernels/portable/support/complex.h"
#include "kernels/portable/support/fft.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {

struct FftDims {
  bool selected[kTensorDimensionLimit] = {};
  int order[kTensorDimensionLimit] = {};  // in the order given
  int count = 0;
  int last = -1;
};

Result<FftDims> read_dims(Span<const int64_t> dims, int rank, const char* op) {
  FftDims result;
  TE_CHECK_OR_RETURN(!dims.empty() && static_cast<int>(dims.size()) <= rank,
                     Error::InvalidArgument, "%s: expected 1 to %d dims, got %zu", op, rank,
                     dims.size());
  for (int64_t raw : dims) {
    TE_ASSIGN_OR_RETURN(int d, normalize_dim(raw, rank, "fft dim"));
    TE_CHECK_OR_RETURN(!result.selected[d], Error::InvalidArgument, "%s: dim %d listed twice", op,
                       d);
    result.selected[d] = true;
    result.order[result.count++] = d;
  }
  result.last = result.order[result.count - 1];
  return result;
}

Error check_normalization(int64_t normalization, const char* op) {
  TE_CHECK_OR_RETURN(normalization >= 0 && normalization <= 2, Error::InvalidArgument,
                     "%s: normalization must be 0 (none), 1 (by sqrt(n)) or 2 (by n), got %lld",
                     op, static_cast<long long>(normalization));
  return Error::Ok;
}

double scale_of(int64_t normalization, double n) {
  if (normalization == 1) return 1.0 / std::sqrt(n);
  if (normalization == 2) return 1.0 / n;
  return 1.0;
}

// Kernel scratch: the dense complex signal of `sizes`, one line and the
// 1-d transform's scratch for the longest transformed dim.
struct Workspace {
  ComplexAccumulator* signal = nullptr;
  ComplexAccumulator* line = nullptr;
  ComplexAccumulator* scratch = nullptr;
};

Result<Workspace> allocate(KernelContext& ctx, const int64_t* sizes, int rank, const FftDims& dims,
                           const char* op) {
  size_t numel = 1, longest = 1, scratch = 1;
  for (int d = 0; d < rank; ++d) numel *= static_cast<size_t>(sizes[d]);
  for (int i = 0; i < dims.count; ++i) {
    const int64_t n = sizes[dims.order[i]];
    if (n > 0 && static_cast<size_t>(n) > longest) longest = static_cast<size_t>(n);
    if (n > 0 && fft_scratch_elements(n) > scratch) scratch = fft_scratch_elements(n);
  }
  const size_t total = numel + longest + scratch;
  Workspace w;
  w.signal = static_cast<ComplexAccumulator*>(
      ctx.allocate_temp(total * sizeof(ComplexAccumulator), alignof(ComplexAccumulator)));
  TE_CHECK_OR_RETURN(w.signal != nullptr, Error::MemoryAllocationFailed,
                     "%s: needs %zu bytes of kernel scratch", op,
                     total * sizeof(ComplexAccumulator));
  w.line = w.signal + numel;
  w.scratch = w.line + longest;
  return w;
}

// Element `linear` (row-major over `sizes`) of tensor t, by its strides.
int64_t offset_of(int64_t linear, const int64_t* sizes, const Tensor& t) {
  int64_t offset = 0;
  for (int d = t.dim() - 1; d >= 0; --d) {
    offset += (linear % sizes[d]) * t.stride(d);
    linear /= sizes[d];
  }
  return offset;
}

// signal (dense, `sizes`) = t at the same logical index where both have
// one; zero where t has none; t's elements outside `sizes` are dropped.
Error load_signal(const Tensor& t, const int64_t* sizes, ComplexAccumulator* signal,
                  const char* op) {
  int64_t numel = 1, t_sizes[kTensorDimensionLimit];
  for (int d = 0; d < t.dim(); ++d) numel *= sizes[d], t_sizes[d] = t.size(d);
  for (int64_t i = 0; i < numel; ++i) signal[i] = ComplexAccumulator(0.0, 0.0);
  const int64_t t_numel = static_cast<int64_t>(t.numel());
  auto target = [&](int64_t linear) {  // t's linear index -> signal's, -1 if clipped
    int64_t index = 0, stride = 1;
    for (int d = t.dim() - 1; d >= 0; --d) {
      const int64_t at = linear % t_sizes[d];
      if (at >= sizes[d]) return int64_t{-1};
      index += at * stride;
      linear /= t_sizes[d];
      stride *= sizes[d];
    }
    return index;
  };
  if (is_complex(t.dtype())) {
    return switch_complex(t.dtype(), op, [&](auto tag) {
      using C = decltype(tag);
      const C* data = t.data_as<C>();
      for (int64_t i = 0; i < t_numel; ++i) {
        const int64_t at = target(i);
        if (at >= 0) signal[at] = load_complex<C>(data, offset_of(i, t_sizes, t));
      }
      return Error::Ok;
    });
  }
  if (t.dtype() == ScalarType::Float) {
    const float* data = t.data_as<float>();
    for (int64_t i = 0; i < t_numel; ++i) {
      const int64_t at = target(i);
      if (at >= 0) signal[at] = data[offset_of(i, t_sizes, t)];
    }
    return Error::Ok;
  }
  if (t.dtype() == ScalarType::Double) {
    const double* data = t.data_as<double>();
    for (int64_t i = 0; i < t_numel; ++i) {
      const int64_t at = target(i);
      if (at >= 0) signal[at] = data[offset_of(i, t_sizes, t)];
    }
    return Error::Ok;
  }
  record_error_message("%s: unsupported dtype %s (expected float32, float64, complex64 or "
                       "complex128)", op, to_string(t.dtype()));
  return Error::InvalidType;
}

// out at each of its logical indices = scale * signal at the same index
// (signal has `sizes`, each >= out's); real outs take the real part.
Error store_signal(const ComplexAccumulator* signal, const int64_t* sizes, double scale,
                   Tensor& out, const char* op) {
  int64_t out_sizes[kTensorDimensionLimit];
  for (int d = 0; d < out.dim(); ++d) out_sizes[d] = out.size(d);
  auto source = [&](int64_t linear) {
    int64_t index = 0, stride = 1;
    for (int d = out.dim() - 1; d >= 0; --d) {
      index += (linear % out_sizes[d]) * stride;
      linear /= out_sizes[d];
      stride *= sizes[d];
    }
    return index;
  };
  const int64_t n = static_cast<int64_t>(out.numel());
  if (is_complex(out.dtype())) {
    return switch_complex(out.dtype(), op, [&](auto tag) {
      using C = decltype(tag);
      C* data = out.mutable_data_as<C>();
      for (int64_t i = 0; i < n; ++i) {
        store_complex<C>(data, offset_of(i, out_sizes, out), signal[source(i)] * scale);
      }
      return Error::Ok;
    });
  }
  if (out.dtype() == ScalarType::Float) {
    float* data = out.mutable_data_as<float>();
    for (int64_t i = 0; i < n; ++i) {
      data[offset_of(i, out_sizes, out)] = static_cast<float>(signal[source(i)].real() * scale);
    }
    return Error::Ok;
  }
  double* data = out.mutable_data_as<double>();
  for (int64_t i = 0; i < n; ++i) data[offset_of(i, out_sizes, out)] = signal[source(i)].real() * scale;
  return Error::Ok;
}

// The complex dtype of a transform of real dtype `real` (float32/float64).
Error expect_pair(ScalarType real, ScalarType complex, const char* op) {
  const bool ok = (real == ScalarType::Float && complex == ScalarType::ComplexFloat) ||
                  (real == ScalarType::Double && complex == ScalarType::ComplexDouble);
  TE_CHECK_OR_RETURN(ok, Error::InvalidType,
                     "%s: expected float32 with complex64 or float64 with complex128, got %s "
                     "and %s", op, to_string(real), to_string(complex));
  return Error::Ok;
}

Error expect_complex_pair(const Tensor& self, const Tensor& out, const char* op) {
  const bool ok = self.dtype() == out.dtype() && (self.dtype() == ScalarType::ComplexFloat ||
                                                 self.dtype() == ScalarType::ComplexDouble);
  TE_CHECK_OR_RETURN(ok, Error::InvalidType,
                     "%s: expected complex64 or complex128 self and out of one dtype, got %s and "
                     "%s", op, to_string(self.dtype()), to_string(out.dtype()));
  return Error::Ok;
}

}  // namespace

Error _fft_r2c_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_fft_r2c.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dim, int_list_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t normalization, int_arg(args, 2, "normalization"));
  TE_ASSIGN_OR_RETURN(bool onesided, bool_arg(args, 3, "onesided"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_pair(self->dtype(), out->dtype(), kOp));
  TE_RETURN_IF_ERROR(check_normalization(normalization, kOp));
  TE_ASSIGN_OR_RETURN(FftDims dims, read_dims(dim, self->dim(), kOp));
  int64_t sizes[kTensorDimensionLimit], out_sizes[kTensorDimensionLimit];
  double n = 1.0;
  for (int d = 0; d < self->dim(); ++d) {
    sizes[d] = out_sizes[d] = self->size(d);
    if (dims.selected[d]) n *= static_cast<double>(sizes[d]);
  }
  if (onesided) out_sizes[dims.last] = sizes[dims.last] / 2 + 1;
  TE_RETURN_IF_ERROR(resize_to(*out, {out_sizes, static_cast<size_t>(self->dim())}));
  if (out->numel() == 0) return Error::Ok;
  TE_ASSIGN_OR_RETURN(Workspace w, allocate(ctx, sizes, self->dim(), dims, kOp));
  TE_RETURN_IF_ERROR(load_signal(*self, sizes, w.signal, kOp));
  for (int i = 0; i < dims.count; ++i) {
    fft_along_dim(w.signal, sizes, self->dim(), dims.order[i], -1, w.line, w.scratch);
  }
  return store_signal(w.signal, sizes, scale_of(normalization, n), *out, kOp);
}

Error _fft_c2c_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_fft_c2c.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dim, int_list_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t normalization, int_arg(args, 2, "normalization"));
  TE_ASSIGN_OR_RETURN(bool forward, bool_arg(args, 3, "forward"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_complex_pair(*self, *out, kOp));
  TE_RETURN_IF_ERROR(check_normalization(normalization, kOp));
  TE_ASSIGN_OR_RETURN(FftDims dims, read_dims(dim, self->dim(), kOp));
  int64_t sizes[kTensorDimensionLimit];
  double n = 1.0;
  for (int d = 0; d < self->dim(); ++d) {
    sizes[d] = self->size(d);
    if (dims.selected[d]) n *= static_cast<double>(sizes[d]);
  }
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  if (out->numel() == 0) return Error::Ok;
  TE_ASSIGN_OR_RETURN(Workspace w, allocate(ctx, sizes, self->dim(), dims, kOp));
  TE_RETURN_IF_ERROR(load_signal(*self, sizes, w.signal, kOp));
  for (int i = 0; i < dims.count; ++i) {
    fft_along_dim(w.signal, sizes, self->dim(), dims.order[i], forward ? -1 : 1, w.line,
                  w.scratch);
  }
  return store_signal(w.signal, sizes, scale_of(normalization, n), *out, kOp);
}

Error _fft_c2r_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr const char* kOp = "_fft_c2r.out";
  TE_RETURN_IF_ERROR(expect_arg_count(args, 5));
  TE_ASSIGN_OR_RETURN(Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dim, int_list_arg(args, 1, "dim"));
  TE_ASSIGN_OR_RETURN(int64_t normalization, int_arg(args, 2, "normalization"));
  TE_ASSIGN_OR_RETURN(int64_t last_dim_size, int_arg(args, 3, "last_dim_size"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 4, "out"));
  TE_RETURN_IF_ERROR(expect_pair(out->dtype(), self->dtype(), kOp));
  TE_RETURN_IF_ERROR(check_normalization(normalization, kOp));
  TE_ASSIGN_OR_RETURN(FftDims dims, read_dims(dim, self->dim(), kOp));
  TE_CHECK_OR_RETURN(last_dim_size >= 1 && last_dim_size <= INT32_MAX, Error::InvalidArgument,
                     "%s: last_dim_size must be >= 1, got %lld", kOp,
                     static_cast<long long>(last_dim_size));
  const int last = dims.last;
  const int64_t half = last_dim_size / 2 + 1;  // bins the real inverse reads
  int64_t sizes[kTensorDimensionLimit];
  double n = 1.0;
  for (int d = 0; d < self->dim(); ++d) {
    sizes[d] = d == last ? last_dim_size : self->size(d);
    if (dims.selected[d]) n *= static_cast<double>(sizes[d]);
  }
  TE_RETURN_IF_ERROR(resize_to(*out, {sizes, static_cast<size_t>(self->dim())}));
  if (out->numel() == 0) return Error::Ok;
  TE_ASSIGN_OR_RETURN(Workspace w, allocate(ctx, sizes, self->dim(), dims, kOp));
  // Bins of self past `half` along `last` are dropped; missing ones are zero.
  TE_RETURN_IF_ERROR(load_signal(*self, sizes, w.signal, kOp));
  for (int i = 0; i + 1 < dims.count; ++i) {
    fft_along_dim(w.signal, sizes, self->dim(), dims.order[i], +1, w.line, w.scratch);
  }
  // Each line along `last`: complete the Hermitian spectrum, then invert.
  const int64_t m = last_dim_size;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < last; ++d) outer *= sizes[d];
  for (int d = last + 1; d < self->dim(); ++d) inner *= sizes[d];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      ComplexAccumulator* base = w.signal + o * m * inner + i;
      for (int64_t k = 0; k < m; ++k) {
        w.line[k] = k < half ? base[k * inner] : std::conj(base[(m - k) * inner]);
      }
      fft_1d(w.line, m, +1, w.scratch);
      for (int64_t k = 0; k < m; ++k) base[k * inner] = w.line[k];
    }
  }
  return store_signal(w.signal, sizes, scale_of(normalization, n), *out, kOp);
}

}  // namespace native
}  // namespace torchedge
