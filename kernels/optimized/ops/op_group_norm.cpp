// aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
//     SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//
// Fast case: float32 input, out0 and statistics contiguous, weight / bias
// absent or dense float32 [C], N, C, HxW matching the input, C divisible by
// `group`. Each (sample, group) is one contiguous run of C / group * HxW
// floats: its statistics come from the vec table's row_moments (mean in
// double, centered variance), then each channel's HxW positions are one
// vectorized pass y = x * scale + shift while the run is still in cache,
// the statistics and the affine folded as the portable kernel and ATen
// fold them (scale = rstd * weight[c], shift = bias[c] - mean * scale, in
// double). (sample, group) pairs are split across threads. wav2vec2's
// group norm (512 groups of one channel over 3199 positions) ran 4.6 ms in
// the portable kernel's double-precision loops at 1 thread, 2.5-5.6 ms as
// the layer-norm row (three passes) plus a scalar affine pass per channel.
// Everything else goes to the portable kernel, which also reports the
// errors.
//
// torchedge::group_norm_blocked.out(input, weight?, bias?, group, eps, gelu, *, out):
// the same statistics and scale-shift, then the vec table's GELU, on 256
// positions of one 16-channel block at a time in a scratch tile (16 KB, on
// the stack) that channel_block_to_blocked stores in NCHW16c, so every
// value is bit for bit the unfused group norm -> to_blocked -> gelu's, with
// one read of the input (from cache: a block's rows are read for its
// statistics just before) and one blocked write instead of three passes.
// Fast case: float32, contiguous [N, C, L] / [N, C, H, W] input, C a
// multiple of 16 with each block holding whole groups (16 % (C / group)
// == 0: wav2vec2's one channel per group); (image, block) pairs are split
// across threads. Other cases go to the portable kernel.
#include "kernels/optimized/conv/blocked_layout.h"
#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

bool is_channel_param(const EValue* v, int64_t channels) {
  if (v->is_none()) return true;
  return is_dense_float_arg(v) && v->to_tensor().dim() == 1 && v->to_tensor().size(0) == channels;
}

}  // namespace

Error native_group_norm_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 11 || !is_dense_float_arg(args[0]) || !is_dense_float_arg(args[8]) ||
      !is_dense_float_arg(args[9]) || !is_dense_float_arg(args[10]) || !args[7]->is_double()) {
    return native::native_group_norm_out(ctx, args);
  }
  Result<int64_t> n = int_arg(args, 3, "N"), c = int_arg(args, 4, "C"),
                  hxw = int_arg(args, 5, "HxW"), groups = int_arg(args, 6, "group");
  if (!n.ok() || !c.ok() || !hxw.ok() || !groups.ok()) {
    return native::native_group_norm_out(ctx, args);
  }
  const Tensor& x = args[0]->to_tensor();
  const int64_t batch = n.get(), channels = c.get(), positions = hxw.get(), g = groups.get();
  if (x.dim() < 2 || x.size(0) != batch || x.size(1) != channels || g <= 0 ||
      channels % g != 0 || static_cast<int64_t>(x.numel()) != batch * channels * positions ||
      positions == 0 || channels == 0 || !is_channel_param(args[1], channels) ||
      !is_channel_param(args[2], channels)) {
    return native::native_group_norm_out(ctx, args);
  }
  Tensor& out = args[8]->to_tensor();
  Tensor& mean = args[9]->to_tensor();
  Tensor& rstd = args[10]->to_tensor();
  TE_RETURN_IF_ERROR(resize_like(out, x));
  const int64_t stat_sizes[] = {batch, g};
  TE_RETURN_IF_ERROR(resize_to(mean, stat_sizes));
  TE_RETURN_IF_ERROR(resize_to(rstd, stat_sizes));

  const float* in = x.data_as<float>();
  const float* w = args[1]->is_none() ? nullptr : args[1]->to_tensor().data_as<float>();
  const float* b = args[2]->is_none() ? nullptr : args[2]->to_tensor().data_as<float>();
  const double eps = args[7]->to_double();
  float* y = out.mutable_data_as<float>();
  float* mu = mean.mutable_data_as<float>();
  float* rs = rstd.mutable_data_as<float>();
  const VecKernels& k = active_vec_kernels();
  const int64_t per_group = channels / g, run = per_group * positions;
  parallel_for(0, batch * g, rows_per_chunk(run, kElementGrain), [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t offset = item * run;
      double mu_d, rstd_d;
      k.row_moments(in + offset, run, eps, &mu_d, &rstd_d);
      mu[item] = static_cast<float>(mu_d);
      rs[item] = static_cast<float>(rstd_d);
      const int64_t c0 = (item % g) * per_group;
      for (int64_t ch = 0; ch < per_group; ++ch) {
        const double gamma = w == nullptr ? 1.0 : w[c0 + ch];
        const double beta = b == nullptr ? 0.0 : b[c0 + ch];
        const int64_t at = offset + ch * positions;
        k.scale_shift(in + at, static_cast<float>(rstd_d * gamma),
                      static_cast<float>(beta - mu_d * rstd_d * gamma), y + at, positions);
      }
    }
  });
  return Error::Ok;
}

Error group_norm_blocked_out(KernelContext& ctx, Span<EValue*> args) {
  constexpr int64_t kBlock = 16, kChunk = 256;
  if (args.size() != 7 || !is_dense_float_arg(args[0]) || !is_dense_float_arg(args[6]) ||
      !args[4]->is_double() || !args[5]->is_bool()) {
    return native::group_norm_blocked_out(ctx, args);
  }
  Result<int64_t> groups_arg = int_arg(args, 3, "group");
  const Tensor& x = args[0]->to_tensor();
  if (!groups_arg.ok() || (x.dim() != 3 && x.dim() != 4)) {
    return native::group_norm_blocked_out(ctx, args);
  }
  const int64_t batch = x.size(0), channels = x.size(1), g = groups_arg.get();
  if (channels % kBlock != 0 || g <= 0 || channels % g != 0 || kBlock % (channels / g) != 0 ||
      !is_channel_param(args[1], channels) || !is_channel_param(args[2], channels)) {
    return native::group_norm_blocked_out(ctx, args);
  }
  const int64_t height = x.dim() == 3 ? 1 : x.size(2), width = x.size(x.dim() - 1);
  Tensor& out = args[6]->to_tensor();
  const int64_t sizes[5] = {batch, channels / kBlock, height, width, kBlock};
  TE_RETURN_IF_ERROR(resize_to(out, {sizes, 5}));
  if (bytes_overlap(x, out)) return native::group_norm_blocked_out(ctx, args);

  const float* in = x.data_as<float>();
  const float* w = args[1]->is_none() ? nullptr : args[1]->to_tensor().data_as<float>();
  const float* b = args[2]->is_none() ? nullptr : args[2]->to_tensor().data_as<float>();
  const double eps = args[4]->to_double();
  const bool gelu = args[5]->to_bool();
  float* y = out.mutable_data_as<float>();
  const VecKernels& k = active_vec_kernels();
  const int64_t positions = height * width, per_group = channels / g;
  const int64_t blocks = batch * (channels / kBlock);
  parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    alignas(64) float tile[kBlock * kChunk];
    float scale[kBlock], shift[kBlock];
    for (int64_t block = begin; block < end; ++block) {
      const float* rows = in + block * kBlock * positions;  // blocks of one image follow each other
      const int64_t c0 = (block % (channels / kBlock)) * kBlock;
      for (int64_t j = 0; j < kBlock; j += per_group) {  // whole groups: their statistics
        double mu, rstd;
        k.row_moments(rows + j * positions, per_group * positions, eps, &mu, &rstd);
        for (int64_t ch = j; ch < j + per_group; ++ch) {
          const double gamma = w == nullptr ? 1.0 : w[c0 + ch];
          const double beta = b == nullptr ? 0.0 : b[c0 + ch];
          scale[ch] = static_cast<float>(rstd * gamma);
          shift[ch] = static_cast<float>(beta - mu * rstd * gamma);
        }
      }
      float* dst = y + block * kBlock * positions;
      for (int64_t p0 = 0; p0 < positions; p0 += kChunk) {
        const int64_t count = positions - p0 < kChunk ? positions - p0 : kChunk;
        for (int64_t ch = 0; ch < kBlock; ++ch) {
          float* row = tile + ch * count;
          k.scale_shift(rows + ch * positions + p0, scale[ch], shift[ch], row, count);
          if (gelu) k.gelu_erf(row, row, count);
        }
        channel_block_to_blocked(tile, count, dst + p0 * kBlock);
      }
    }
  });
  return Error::Ok;
}

}  // namespace optimized
}  // namespace torchedge
