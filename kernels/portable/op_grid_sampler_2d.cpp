// aten::grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//     bool align_corners, *, Tensor(a!) out) -> Tensor(a!)
//
// Samples an [N, C, H, W] input at the normalized (x, y) points of an
// [N, OH, OW, 2] grid (-1 and 1 are the outer edges, or the outer pixel
// centres with align_corners), giving [N, C, OH, OW]. interpolation_mode:
// 0 bilinear, 1 nearest (round half to even); 2 (bicubic) is not supported.
// padding_mode: 0 zeros (outside pixels read 0), 1 border (coordinates
// clamped), 2 reflection (coordinates reflected at the edges, then
// clamped). Coordinates and weights follow ATen's scalar CPU kernel
// (grid_sampler_compute_source_index), in float (double for float64), and
// for float16 / bfloat16 rounded to the dtype after every operation as ATen
// computes them; a non-finite or huge coordinate becomes -100, i.e.
// outside. Floating dtypes; input, grid and out share one. Any dim order.
#include <algorithm>
#include <climits>
#include <cmath>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/grid_sample_index.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/portable/support/pooling.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "grid_sampler_2d.out";
using grid_index::kBorder;
using grid_index::kReflection;
using grid_index::kZeros;
using grid_index::r;
using grid_index::source_index;

template <typename T>
void grid_sample(const Tensor& input, const Tensor& grid, bool nearest, int64_t padding,
                 bool align_corners, Tensor& out) {
  using C = compute_t<T>;
  const PoolPlanes in = pool_planes(input);
  const PoolPlanes op = pool_planes(out);
  const T* x = input.data_as<T>();
  const T* g = grid.data_as<T>();
  T* y = out.mutable_data_as<T>();
  auto inside = [&](int64_t h, int64_t w) {
    return h >= 0 && h < in.height && w >= 0 && w < in.width;
  };
  for (int64_t n = 0; n < op.batch; ++n) {
    for (int64_t oh = 0; oh < op.height; ++oh) {
      for (int64_t ow = 0; ow < op.width; ++ow) {
        const T* point = g + n * grid.stride(0) + oh * grid.stride(1) + ow * grid.stride(2);
        const C ix = source_index<T>(static_cast<C>(point[0]), in.width, padding, align_corners);
        const C iy = source_index<T>(static_cast<C>(point[grid.stride(3)]), in.height, padding,
                                     align_corners);
        if (nearest) {
          const int64_t h = static_cast<int64_t>(std::nearbyint(iy));
          const int64_t w = static_cast<int64_t>(std::nearbyint(ix));
          for (int64_t c = 0; c < op.channels; ++c) {
            y[op.at(n, c, oh, ow)] = inside(h, w) ? x[in.at(n, c, h, w)] : T(0);
          }
          continue;
        }
        const int64_t w0 = static_cast<int64_t>(std::floor(ix));
        const int64_t h0 = static_cast<int64_t>(std::floor(iy));
        const C dx1 = r<T>(static_cast<C>(w0 + 1) - ix), dx0 = r<T>(ix - static_cast<C>(w0));
        const C dy1 = r<T>(static_cast<C>(h0 + 1) - iy), dy0 = r<T>(iy - static_cast<C>(h0));
        const C weights[4] = {r<T>(dx1 * dy1), r<T>(dx0 * dy1), r<T>(dx1 * dy0), r<T>(dx0 * dy0)};
        const int64_t hs[4] = {h0, h0, h0 + 1, h0 + 1}, ws[4] = {w0, w0 + 1, w0, w0 + 1};
        for (int64_t c = 0; c < op.channels; ++c) {
          C res = 0;  // nw, ne, sw, se in ATen's order; outside corners add nothing
          for (int k = 0; k < 4; ++k) {
            if (inside(hs[k], ws[k])) {
              res = r<T>(res + r<T>(static_cast<C>(x[in.at(n, c, hs[k], ws[k])]) * weights[k]));
            }
          }
          y[op.at(n, c, oh, ow)] = static_cast<T>(res);
        }
      }
    }
  }
}

Error check_args(const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding) {
  TE_CHECK_OR_RETURN(input.dim() == 4 && grid.dim() == 4, Error::InvalidArgument,
                     "%s: expected a 4-d input and a 4-d grid, got %d-d and %d-d", kOp,
                     input.dim(), grid.dim());
  TE_CHECK_OR_RETURN(grid.size(0) == input.size(0) && grid.size(3) == 2, Error::InvalidArgument,
                     "%s: expected grid of shape [%d, H, W, 2]", kOp, input.size(0));
  TE_CHECK_OR_RETURN(input.size(2) > 0 && input.size(3) > 0, Error::InvalidArgument,
                     "%s: expected input to have non-empty spatial dimensions", kOp);
  const Error bad_mode = mode == 2 ? Error::NotSupported : Error::InvalidArgument;
  TE_CHECK_OR_RETURN(mode == 0 || mode == 1, bad_mode,
                     "%s: interpolation_mode %lld is not supported (0 bilinear, 1 nearest)", kOp,
                     static_cast<long long>(mode));
  TE_CHECK_OR_RETURN(padding >= kZeros && padding <= kReflection, Error::InvalidArgument,
                     "%s: padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got %lld",
                     kOp, static_cast<long long>(padding));
  return expect_same_dtype(input, grid, "input", "grid");
}

}  // namespace

Error grid_sampler_2d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(grid_index::SamplerArgs a, grid_index::sampler_args(args));
  TE_RETURN_IF_ERROR(check_args(*a.input, *a.grid, a.mode, a.padding));
  TE_RETURN_IF_ERROR(expect_same_dtype(*a.input, *a.out, "input", "out"));
  const int64_t sizes[] = {a.input->size(0), a.input->size(1), a.grid->size(1), a.grid->size(2)};
  TE_RETURN_IF_ERROR(resize_to(*a.out, sizes));
  return switch_dtype_only<kFloatingTypes>(a.input->dtype(), kOp, [&](auto tag) {
    grid_sample<decltype(tag)>(*a.input, *a.grid, a.mode == 1, a.padding, a.align_corners, *a.out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
