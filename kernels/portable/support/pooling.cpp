#include "kernels/portable/support/pooling.h"

#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {

Error pool_input_planes(const Tensor& in, const char* op, PoolPlanes* planes) {
  TE_CHECK_OR_RETURN(in.dim() == 3 || in.dim() == 4, Error::InvalidArgument,
                     "%s: expected a 3-d or 4-d input, got %d-d", op, in.dim());
  const int first = in.dim() - 3;
  for (int d = first; d < in.dim(); ++d) {
    TE_CHECK_OR_RETURN(in.size(d) > 0, Error::InvalidArgument,
                       "%s: input dim %d is empty (only the batch dim may be)", op, d);
  }
  *planes = pool_planes(in);
  return Error::Ok;
}

size_t pool_output_sizes(const Tensor& in, int64_t out_h, int64_t out_w, int64_t* sizes) {
  const int rank = in.dim();
  for (int d = 0; d < rank - 2; ++d) sizes[d] = in.size(d);
  sizes[rank - 2] = out_h;
  sizes[rank - 1] = out_w;
  return static_cast<size_t>(rank);
}

PoolPlanes pool_planes(const Tensor& t) {
  PoolPlanes p;
  const int first = t.dim() - 3;
  if (first == 1) {
    p.batch = t.size(0);
    p.stride_n = t.stride(0);
  }
  p.channels = t.size(first);
  p.height = t.size(first + 1);
  p.width = t.size(first + 2);
  p.stride_c = t.stride(first);
  p.stride_h = t.stride(first + 1);
  p.stride_w = t.stride(first + 2);
  return p;
}

Error read_pool_pair(Span<EValue*> args, size_t index, const char* name, const int64_t* fallback,
                     int64_t min, const char* op, int64_t* pair) {
  TE_ASSIGN_OR_RETURN(Span<const int64_t> list, int_list_arg(args, index, name));
  if (list.empty() && fallback != nullptr) {
    pair[0] = fallback[0];
    pair[1] = fallback[1];
    return Error::Ok;
  }
  TE_CHECK_OR_RETURN(list.size() == 1 || list.size() == 2, Error::InvalidArgument,
                     "%s: %s must have 1 or 2 values, got %zu", op, name, list.size());
  pair[0] = list[0];
  pair[1] = list[list.size() - 1];
  TE_CHECK_OR_RETURN(pair[0] >= min && pair[1] >= min, Error::InvalidArgument,
                     "%s: %s must be >= %lld, got [%lld, %lld]", op, name,
                     static_cast<long long>(min), static_cast<long long>(pair[0]),
                     static_cast<long long>(pair[1]));
  return Error::Ok;
}

Error read_max_pool_window(Span<EValue*> args, const char* op, MaxPoolWindow* w) {
  TE_RETURN_IF_ERROR(read_pool_pair(args, 1, "kernel_size", nullptr, 1, op, w->kernel));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 2, "stride", w->kernel, 1, op, w->stride));
  TE_RETURN_IF_ERROR(read_pool_pair(args, 3, "padding", nullptr, 0, op, w->padding));
  return read_pool_pair(args, 4, "dilation", nullptr, 1, op, w->dilation);
}

Error pool_output_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                       bool ceil_mode, const char* op, int64_t* out) {
  const int64_t span = dilation * (kernel - 1) + 1;
  TE_CHECK_OR_RETURN(pad * 2 <= span, Error::InvalidArgument,
                     "%s: pad should be at most half of effective kernel size, got pad=%lld, "
                     "kernel_size=%lld and dilation=%lld",
                     op, static_cast<long long>(pad), static_cast<long long>(kernel),
                     static_cast<long long>(dilation));
  const int64_t numerator = in + 2 * pad - span + (ceil_mode ? stride - 1 : 0);
  // Floor division (numerator may be negative for a too-small input).
  int64_t size = (numerator >= 0 ? numerator / stride : -((-numerator + stride - 1) / stride)) + 1;
  // With ceil_mode the last window must start inside the input or left padding.
  if (ceil_mode && (size - 1) * stride >= in + pad) --size;
  TE_CHECK_OR_RETURN(size > 0, Error::InvalidArgument,
                     "%s: output size %lld is too small (input %lld, kernel %lld, pad %lld)", op,
                     static_cast<long long>(size), static_cast<long long>(in),
                     static_cast<long long>(kernel), static_cast<long long>(pad));
  *out = size;
  return Error::Ok;
}

}  // namespace torchedge
