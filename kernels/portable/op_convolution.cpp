// aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
//     SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//     SymInt groups, *, Tensor(a!) out) -> Tensor(a!)
//
// 1-D, 2-D and 3-D convolution (input [N, C, *spatial]) with stride, padding,
// dilation and groups, plain or transposed (with output_padding); bias
// optional.
// input, weight, bias and out share one dtype: float32, float64, float16,
// bfloat16 (computed in float) or an integer type (computed in int64, wrapping
// like ATen). Algorithms: support/convolution.h. Scratch: none, except that
// 16-bit floats with more than one K block take (Cout / groups) * 16 floats
// from the temp allocator to round once; without it partial sums are
// rounded per K block.
#include "kernels/portable/support/conv_transpose.h"
#include "kernels/portable/support/convolution.h"
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

// Reads a per-spatial-dim list (length 1 broadcasts) into the last
// `spatial` slots of `dst`.
Error read_spatial_list(Span<const int64_t> list, int spatial, const char* name, int64_t min,
                        int64_t* dst) {
  TE_CHECK_OR_RETURN(list.size() == 1 || list.size() == static_cast<size_t>(spatial),
                     Error::InvalidArgument, "convolution.out: %s has %zu values, expected %d",
                     name, list.size(), spatial);
  for (int s = 0; s < spatial; ++s) {
    const int64_t v = list[list.size() == 1 ? 0 : s];
    TE_CHECK_OR_RETURN(v >= min, Error::InvalidArgument,
                       "convolution.out: %s must be >= %lld, got %lld", name,
                       static_cast<long long>(min), static_cast<long long>(v));
    dst[3 - spatial + s] = v;
  }
  return Error::Ok;
}

void copy_strides(const Tensor& t, int64_t* dst) {
  const int spatial = t.dim() - 2;
  dst[0] = t.stride(0);
  dst[1] = t.stride(1);
  for (int s = 0; s < 3; ++s) dst[2 + s] = s < 3 - spatial ? 0 : t.stride(2 + s - (3 - spatial));
}

// Output size on one spatial dim; an error when the (dilated) kernel does not
// fit or output_padding is out of range.
Error spatial_out_size(const ConvGeometry& g, int s, int d, bool transposed,
                       int64_t output_padding, int64_t* out) {
  const int64_t span = g.dilation[s] * (g.kernel[s] - 1) + 1;
  if (transposed) {
    TE_CHECK_OR_RETURN(output_padding < g.stride[s] || output_padding < g.dilation[s],
                       Error::InvalidArgument,
                       "convolution.out: output_padding %lld at dim %d must be smaller than "
                       "stride or dilation",
                       static_cast<long long>(output_padding), d);
    *out = (g.in_size[s] - 1) * g.stride[s] - 2 * g.padding[s] + span + output_padding;
    TE_CHECK_OR_RETURN(*out >= 0, Error::InvalidArgument,
                       "convolution.out: transposed output size at dim %d is negative (%lld)", d,
                       static_cast<long long>(*out));
    return Error::Ok;
  }
  const int64_t padded = g.in_size[s] + 2 * g.padding[s];
  TE_CHECK_OR_RETURN(padded >= span, Error::InvalidArgument,
                     "convolution.out: padded input size %lld at dim %d is smaller than the "
                     "dilated kernel size %lld",
                     static_cast<long long>(padded), d, static_cast<long long>(span));
  *out = (padded - span) / g.stride[s] + 1;
  return Error::Ok;
}

// Weight layout: [Cout, Cin / groups, *kernel] for a plain convolution,
// [Cin, Cout / groups, *kernel] for a transposed one.
Error make_geometry(Span<EValue*> args, const Tensor& x, const Tensor& w, const Tensor* bias,
                    bool transposed, ConvGeometry& g) {
  const int spatial = x.dim() - 2;
  TE_CHECK_OR_RETURN(spatial >= 1 && spatial <= 3 && w.dim() == x.dim(), Error::InvalidArgument,
                     "convolution.out: expected a 3-d, 4-d or 5-d input and a weight of the same "
                     "rank, got %d-d input and %d-d weight",
                     x.dim(), w.dim());
  TE_ASSIGN_OR_RETURN(Span<const int64_t> stride, int_list_arg(args, 3, "stride"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> padding, int_list_arg(args, 4, "padding"));
  TE_ASSIGN_OR_RETURN(Span<const int64_t> dilation, int_list_arg(args, 5, "dilation"));
  TE_ASSIGN_OR_RETURN(g.groups, int_arg(args, 8, "groups"));
  TE_RETURN_IF_ERROR(read_spatial_list(stride, spatial, "stride", 1, g.stride));
  TE_RETURN_IF_ERROR(read_spatial_list(padding, spatial, "padding", 0, g.padding));
  TE_RETURN_IF_ERROR(read_spatial_list(dilation, spatial, "dilation", 1, g.dilation));
  int64_t output_padding[3] = {0, 0, 0};
  if (transposed) {
    TE_ASSIGN_OR_RETURN(Span<const int64_t> list, int_list_arg(args, 7, "output_padding"));
    TE_RETURN_IF_ERROR(read_spatial_list(list, spatial, "output_padding", 0, output_padding));
  }
  g.batch = x.size(0);
  g.in_channels = x.size(1);
  g.out_channels = transposed ? static_cast<int64_t>(w.size(1)) * g.groups : w.size(0);
  const int64_t weight_in = transposed ? w.size(0) : static_cast<int64_t>(w.size(1)) * g.groups;
  TE_CHECK_OR_RETURN(g.groups >= 1 && g.out_channels % g.groups == 0 &&
                         g.in_channels % g.groups == 0 && weight_in == g.in_channels,
                     Error::InvalidArgument,
                     "convolution.out: groups=%lld, %sweight [%d, %d, ...] does not fit input "
                     "with %lld channels",
                     static_cast<long long>(g.groups), transposed ? "transposed " : "", w.size(0),
                     w.size(1), static_cast<long long>(g.in_channels));
  for (int s = 3 - spatial; s < 3; ++s) {
    const int d = 2 + s - (3 - spatial);
    g.in_size[s] = x.size(d);
    g.kernel[s] = w.size(d);
    TE_RETURN_IF_ERROR(
        spatial_out_size(g, s, d, transposed, output_padding[s], &g.out_size[s]));
  }
  if (bias != nullptr) {
    TE_CHECK_OR_RETURN(bias->dim() == 1 && bias->size(0) == g.out_channels,
                       Error::InvalidArgument,
                       "convolution.out: bias must be 1-d with %lld elements",
                       static_cast<long long>(g.out_channels));
    g.bias_stride = bias->stride(0);
  }
  copy_strides(x, g.x_strides);
  copy_strides(w, g.w_strides);
  return Error::Ok;
}

}  // namespace

Error convolution_out(KernelContext& ctx, Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 10));
  TE_ASSIGN_OR_RETURN(Tensor* x, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(Tensor* w, tensor_arg(args, 1, "weight"));
  TE_ASSIGN_OR_RETURN(Tensor* bias, optional_tensor_arg(args, 2, "bias"));
  TE_ASSIGN_OR_RETURN(bool transposed, bool_arg(args, 6, "transposed"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 9, "out"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*x, *w, "input", "weight"));
  TE_RETURN_IF_ERROR(expect_same_dtype(*x, *out, "input", "out"));
  if (bias != nullptr) TE_RETURN_IF_ERROR(expect_same_dtype(*x, *bias, "input", "bias"));
  ConvGeometry g;
  TE_RETURN_IF_ERROR(make_geometry(args, *x, *w, bias, transposed, g));
  const int spatial = x->dim() - 2;
  int64_t out_sizes[5] = {g.batch, g.out_channels};
  for (int s = 0; s < spatial; ++s) out_sizes[2 + s] = g.out_size[3 - spatial + s];
  TE_RETURN_IF_ERROR(resize_to(*out, {out_sizes, static_cast<size_t>(x->dim())}));
  copy_strides(*out, g.y_strides);
  return switch_dtype_only<kRealTypes>(x->dtype(), "convolution.out", [&](auto tag) {
    using T = decltype(tag);
    const T* b = bias == nullptr ? nullptr : bias->data_as<T>();
    if (transposed) {
      conv_transpose<T>(g, x->data_as<T>(), w->data_as<T>(), b, out->mutable_data_as<T>());
    } else if (g.in_channels == g.groups) {
      conv_depthwise<T>(g, x->data_as<T>(), w->data_as<T>(), b, out->mutable_data_as<T>());
    } else {
      const int64_t k = g.in_channels / g.groups * g.kernel_volume();
      gemm::acc_t<T>* strip = gemm::partial_strip<T>(ctx, g.out_channels / g.groups, k);
      conv_gemm<T>(g, x->data_as<T>(), w->data_as<T>(), b, out->mutable_data_as<T>(), strip);
    }
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
