// torchedge/kernels/portable/support/grid_sample_index.h
//
// Where a normalized grid coordinate lands in an input of `size` pixels,
// shared by grid_sampler_2d and grid_sampler_3d: ATen's scalar CPU
// grid_sampler_compute_source_index with its padding modes, computed in
// compute_t<T> and, for float16 / bfloat16, rounded to T after every
// operation as ATen computes them.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace grid_index {

enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

/// Rounds a computed value to T's precision. ATen computes float16 and
// bfloat16 grid samples in T itself, rounding after every operation, which
// moves coordinates by far more than the output tolerance; r() reproduces
// that (and is the identity for float and double).
template <typename T>
compute_t<T> r(compute_t<T> v) {
  return static_cast<compute_t<T>>(static_cast<T>(v));
}

template <typename T>
compute_t<T> reflect(compute_t<T> in, int64_t twice_low, int64_t twice_high) {
  using C = compute_t<T>;
  if (twice_low == twice_high) return C(0);
  const C min = r<T>(static_cast<C>(twice_low) / 2);
  const C span = r<T>(static_cast<C>(twice_high - twice_low) / 2);
  in = r<T>(std::fabs(r<T>(in - min)));
  const C extra = r<T>(std::fmod(in, span));
  const int flips = static_cast<int>(std::floor(r<T>(in / span)));
  return flips % 2 == 0 ? r<T>(extra + min) : r<T>(r<T>(span - extra) + min);
}

// ATen's grid_sampler_compute_source_index (argument order of std::min /
// std::max kept: it decides where a NaN goes).
template <typename T>
compute_t<T> source_index(compute_t<T> coord, int64_t size, int64_t padding, bool align_corners) {
  using C = compute_t<T>;
  const C one = C(1);
  coord = align_corners ? r<T>(r<T>(r<T>(coord + one) / 2) * static_cast<C>(size - 1))
                        : r<T>(r<T>(r<T>(r<T>(coord + one) * static_cast<C>(size)) - one) / 2);
  if (padding == kBorder || padding == kReflection) {
    if (padding == kReflection) {
      coord = align_corners ? reflect<T>(coord, 0, 2 * (size - 1))
                            : reflect<T>(coord, -1, 2 * size - 1);
    }
    coord = std::min(static_cast<C>(size - 1), std::max(coord, C(0)));
  }
  if (coord > static_cast<C>(INT_MAX - 1) || coord < static_cast<C>(INT_MIN) ||
      !std::isfinite(static_cast<double>(coord))) {
    return C(-100);
  }
  return coord;
}

/// The arguments of grid_sampler_{2,3}d.out(Tensor input, Tensor grid,
/// int interpolation_mode, int padding_mode, bool align_corners, *, Tensor(a!) out).
struct SamplerArgs {
  Tensor* input;
  Tensor* grid;
  int64_t mode;
  int64_t padding;
  bool align_corners;
  Tensor* out;
};

inline Result<SamplerArgs> sampler_args(Span<EValue*> args) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 6));
  SamplerArgs a{};
  TE_ASSIGN_OR_RETURN(a.input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a.grid, tensor_arg(args, 1, "grid"));
  TE_ASSIGN_OR_RETURN(a.mode, int_arg(args, 2, "interpolation_mode"));
  TE_ASSIGN_OR_RETURN(a.padding, int_arg(args, 3, "padding_mode"));
  TE_ASSIGN_OR_RETURN(a.align_corners, bool_arg(args, 4, "align_corners"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, 5, "out"));
  return a;
}

}  // namespace grid_index
}  // namespace torchedge
