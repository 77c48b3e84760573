// aten::grid_sampler_3d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//     bool align_corners, *, Tensor(a!) out) -> Tensor(a!)
//
// Samples an [N, C, D, H, W] input at the normalized (x, y, z) points of an
// [N, OD, OH, OW, 3] grid, giving [N, C, OD, OH, OW]: grid_sampler_2d one
// dimension up (support/grid_sample_index.h places the coordinates).
// interpolation_mode: 0 trilinear, 1 nearest (round half to even); 2
// (bicubic) is undefined for 3-d in eager. padding_mode: 0 zeros, 1 border,
// 2 reflection. float32 and float64; input, grid and out share the dtype.
// Any dim order.
#include <cmath>

#include "kernels/portable/support/elementwise.h"  // switch_dtype_only
#include "kernels/portable/support/grid_sample_index.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
namespace {

constexpr const char* kOp = "grid_sampler_3d.out";
constexpr DtypeSet kFloat32And64 = dtype_bit(ScalarType::Float) | dtype_bit(ScalarType::Double);

// Element offset of (n, c, d, h, w) in a 5-d tensor.
struct Volume {
  const Tensor& t;
  int64_t at(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
    return n * t.stride(0) + c * t.stride(1) + d * t.stride(2) + h * t.stride(3) + w * t.stride(4);
  }
  bool inside(int64_t d, int64_t h, int64_t w) const {
    return d >= 0 && d < t.size(2) && h >= 0 && h < t.size(3) && w >= 0 && w < t.size(4);
  }
};

template <typename T>
void grid_sample(const Tensor& input, const Tensor& grid, bool nearest, int64_t padding,
                 bool align_corners, Tensor& out) {
  const Volume in{input}, op{out};
  const T* x = input.data_as<T>();
  const T* g = grid.data_as<T>();
  T* y = out.mutable_data_as<T>();
  const int64_t channels = input.size(1);
  for (int64_t n = 0; n < out.size(0); ++n) {
    for (int64_t od = 0; od < out.size(2); ++od) {
      for (int64_t oh = 0; oh < out.size(3); ++oh) {
        for (int64_t ow = 0; ow < out.size(4); ++ow) {
          const T* p = g + n * grid.stride(0) + od * grid.stride(1) + oh * grid.stride(2) + ow * grid.stride(3);
          const T ix = grid_index::source_index<T>(p[0], input.size(4), padding, align_corners);
          const T iy = grid_index::source_index<T>(p[grid.stride(4)], input.size(3), padding, align_corners);
          const T iz = grid_index::source_index<T>(p[2 * grid.stride(4)], input.size(2), padding, align_corners);
          if (nearest) {
            const int64_t d = static_cast<int64_t>(std::nearbyint(iz));
            const int64_t h = static_cast<int64_t>(std::nearbyint(iy));
            const int64_t w = static_cast<int64_t>(std::nearbyint(ix));
            for (int64_t c = 0; c < channels; ++c) {
              y[op.at(n, c, od, oh, ow)] = in.inside(d, h, w) ? x[in.at(n, c, d, h, w)] : T(0);
            }
            continue;
          }
          const int64_t w0 = static_cast<int64_t>(std::floor(ix));
          const int64_t h0 = static_cast<int64_t>(std::floor(iy));
          const int64_t d0 = static_cast<int64_t>(std::floor(iz));
          const T fx[2] = {static_cast<T>(w0 + 1) - ix, ix - static_cast<T>(w0)};
          const T fy[2] = {static_cast<T>(h0 + 1) - iy, iy - static_cast<T>(h0)};
          const T fz[2] = {static_cast<T>(d0 + 1) - iz, iz - static_cast<T>(d0)};
          for (int64_t c = 0; c < channels; ++c) {
            T res = 0;  // the 8 corners; outside ones add nothing
            for (int k = 0; k < 8; ++k) {
              const int a = k >> 2, b = (k >> 1) & 1, e = k & 1;
              if (in.inside(d0 + a, h0 + b, w0 + e)) {
                res += x[in.at(n, c, d0 + a, h0 + b, w0 + e)] * (fz[a] * fy[b] * fx[e]);
              }
            }
            y[op.at(n, c, od, oh, ow)] = res;
          }
        }
      }
    }
  }
}

}  // namespace

Error grid_sampler_3d_out(KernelContext& ctx, Span<EValue*> args) {
  TE_ASSIGN_OR_RETURN(grid_index::SamplerArgs a, grid_index::sampler_args(args));
  const Tensor& input = *a.input;
  const Tensor& grid = *a.grid;
  TE_CHECK_OR_RETURN(input.dim() == 5 && grid.dim() == 5 && grid.size(0) == input.size(0) && grid.size(4) == 3,
                     Error::InvalidArgument, "%s: expected input [N, C, D, H, W] and grid [N, D, H, W, 3]", kOp);
  TE_CHECK_OR_RETURN(input.size(2) > 0 && input.size(3) > 0 && input.size(4) > 0, Error::InvalidArgument,
                     "%s: expected input to have non-empty spatial dimensions", kOp);
  TE_CHECK_OR_RETURN(a.mode == 0 || a.mode == 1, Error::InvalidArgument,
                     "%s: interpolation_mode must be 0 (trilinear) or 1 (nearest), got %lld", kOp,
                     static_cast<long long>(a.mode));
  TE_CHECK_OR_RETURN(a.padding >= grid_index::kZeros && a.padding <= grid_index::kReflection,
                     Error::InvalidArgument, "%s: padding_mode must be 0, 1 or 2, got %lld", kOp,
                     static_cast<long long>(a.padding));
  TE_RETURN_IF_ERROR(expect_same_dtype(input, grid, "input", "grid"));
  TE_RETURN_IF_ERROR(expect_same_dtype(input, *a.out, "input", "out"));
  const int64_t sizes[] = {input.size(0), input.size(1), grid.size(1), grid.size(2), grid.size(3)};
  TE_RETURN_IF_ERROR(resize_to(*a.out, sizes));
  return switch_dtype_only<kFloat32And64>(input.dtype(), kOp, [&](auto tag) {
    grid_sample<decltype(tag)>(input, grid, a.mode == 1, a.padding, a.align_corners, *a.out);
    return Error::Ok;
  });
}

}  // namespace native
}  // namespace torchedge
