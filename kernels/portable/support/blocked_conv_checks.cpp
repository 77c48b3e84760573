#include "kernels/portable/support/blocked_conv_checks.h"

#include <cmath>
#include <cstdio>

#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

// expect_dtype's message, "<op>: <name>: expected dtype Float, got ...".
Error expect_float(const Tensor& t, const char* op, const char* name) {
  char what[96];
  std::snprintf(what, sizeof(what), "%s: %s", op, name);
  return expect_dtype(t, ScalarType::Float, what);
}

}  // namespace

Error check_blocked_input(const Tensor& x, const char* op) {
  TE_RETURN_IF_ERROR(expect_float(x, op, "input"));
  TE_CHECK_OR_RETURN(x.dim() == 5 && x.size(4) == kChannelBlock, Error::InvalidArgument,
                     "%s: input must be blocked [N, C/16, H, W, 16], got %d dims (last %lld)", op,
                     x.dim(), static_cast<long long>(x.dim() > 0 ? x.size(x.dim() - 1) : 0));
  return Error::Ok;
}

Error check_blocked_out_channels(int64_t out_channels, const char* op) {
  TE_CHECK_OR_RETURN(out_channels >= kChannelBlock && out_channels % kChannelBlock == 0,
                     Error::InvalidArgument,
                     "%s: out_channels must be a positive multiple of 16, got %lld", op,
                     static_cast<long long>(out_channels));
  return Error::Ok;
}

Error check_padded_input(const Tensor& x, int64_t pad_h, int64_t pad_w, int64_t kh, int64_t kw,
                         const char* op) {
  const int64_t h = x.size(2) + 2 * pad_h, w = x.size(3) + 2 * pad_w;
  TE_CHECK_OR_RETURN(h >= kh && w >= kw, Error::InvalidArgument,
                     "%s: the padded input (%lld x %lld) is smaller than the %lld x %lld filter",
                     op, static_cast<long long>(h), static_cast<long long>(w),
                     static_cast<long long>(kh), static_cast<long long>(kw));
  return Error::Ok;
}

Error check_blocked_bias(const Tensor* bias, int64_t out_channels, const char* op) {
  if (bias == nullptr) return Error::Ok;
  TE_RETURN_IF_ERROR(expect_float(*bias, op, "bias"));
  TE_CHECK_OR_RETURN(bias->dim() == 1 && bias->size(0) == out_channels, Error::InvalidArgument,
                     "%s: bias must be [%lld] (out_channels)", op,
                     static_cast<long long>(out_channels));
  return Error::Ok;
}

Error read_clamp_bounds(double output_min, double output_max, const char* op, float* lo,
                        float* hi) {
  TE_CHECK_OR_RETURN(!std::isnan(output_min) && !std::isnan(output_max) &&
                         output_min <= output_max,
                     Error::InvalidArgument, "%s: need output_min <= output_max, got %g and %g",
                     op, output_min, output_max);
  *lo = static_cast<float>(output_min);
  *hi = static_cast<float>(output_max);
  return Error::Ok;
}

Error prepare_blocked_output(const Tensor& x, const Tensor* residual, Tensor& out,
                             const int64_t sizes[5], const char* op,
                             bool out_may_be_residual) {
  TE_RETURN_IF_ERROR(expect_float(out, op, "out"));
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, 5}));
  TE_CHECK_OR_RETURN(out.is_contiguous(), Error::InvalidArgument, "%s: out must be contiguous",
                     op);
  TE_CHECK_OR_RETURN(!bytes_overlap(x, out), Error::InvalidArgument,
                     "%s: input must not overlap out", op);
  if (residual == nullptr) return Error::Ok;
  const Tensor& r = *residual;
  TE_RETURN_IF_ERROR(expect_float(r, op, "residual"));
  bool same = r.dim() == 5 && r.is_contiguous();
  for (int d = 0; same && d < 5; ++d) same = r.size(d) == sizes[d];
  TE_CHECK_OR_RETURN(same, Error::InvalidArgument,
                     "%s: residual must be a contiguous [%lld, %lld, %lld, %lld, 16] (the output)",
                     op, static_cast<long long>(sizes[0]), static_cast<long long>(sizes[1]),
                     static_cast<long long>(sizes[2]), static_cast<long long>(sizes[3]));
  const bool in_place = out_may_be_residual && r.data() == out.data();
  TE_CHECK_OR_RETURN(in_place || !bytes_overlap(r, out), Error::InvalidArgument,
                     "%s: residual must not overlap out%s", op,
                     out_may_be_residual ? " (it may be out itself)" : "");
  return Error::Ok;
}

}  // namespace torchedge
