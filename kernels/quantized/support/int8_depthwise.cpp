#include "kernels/quantized/support/int8_depthwise.h"

#include <algorithm>
#include <cmath>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/quantized/support/affine.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {
namespace {

Error check_tensors(const Int8DepthwiseArgs& a, const char* op) {
  const Tensor& in = *a.input;
  TE_CHECK_OR_RETURN(in.dtype() == ScalarType::Char && in.dim() == 4, Error::InvalidArgument,
                     "%s: input must be int8 [N, C, H, W], got %s %d-d", op,
                     to_string(in.dtype()), in.dim());
  TE_RETURN_IF_ERROR(expect_row_major(in, "input", op));
  const int64_t c = in.size(1);
  const Tensor& w = *a.weight;
  TE_CHECK_OR_RETURN(w.dtype() == ScalarType::Char && w.dim() == 4, Error::InvalidArgument,
                     "%s: weight must be int8 [C, 1, KH, KW], got %s %d-d", op,
                     to_string(w.dtype()), w.dim());
  TE_CHECK_OR_RETURN(w.size(0) == c && w.size(1) == 1 && w.size(2) >= 1 && w.size(3) >= 1,
                     Error::InvalidArgument,
                     "%s: weight must be [C, 1, KH, KW] with C = %lld (the input's channels; "
                     "depthwise: groups == Cin == Cout), got [%d, %d, %d, %d]",
                     op, static_cast<long long>(c), w.size(0), w.size(1), w.size(2), w.size(3));
  TE_RETURN_IF_ERROR(expect_row_major(w, "weight", op));
  const Tensor& s = *a.weight_scales;
  TE_CHECK_OR_RETURN(s.dtype() == ScalarType::Float && s.dim() == 1 && s.size(0) == c,
                     Error::InvalidArgument,
                     "%s: weight_scales must be float32 [%lld] (C), got %s %d-d", op,
                     static_cast<long long>(c), to_string(s.dtype()), s.dim());
  if (a.bias != nullptr) {
    TE_CHECK_OR_RETURN(a.bias->dtype() == ScalarType::Float && a.bias->dim() == 1 &&
                           a.bias->size(0) == c,
                       Error::InvalidArgument, "%s: bias must be float32 [%lld] (C), got %s %d-d",
                       op, static_cast<long long>(c), to_string(a.bias->dtype()), a.bias->dim());
  }
  TE_RETURN_IF_ERROR(expect_dtype(*a.out, ScalarType::Char, "out"));
  return expect_row_major(*a.out, "out", op);
}

// One worker per thread at most, each owning a contiguous run of planes
// and its own slice of scratch.
int64_t workers_of(const Int8DepthwiseProblem& p) {
  return std::max<int64_t>(1, std::min<int64_t>(p.planes(), static_cast<int64_t>(num_threads())));
}

#if defined(TORCHEDGE_QUANTIZED_ARM)
// The NEON channel blocks' units (image, band of 16 channels) and workers
// (one per thread at most).
int64_t neon_band_units(const Int8DepthwiseProblem& p) {
  return p.batch * ((p.channels + kInt8DepthwiseNeonBand - 1) / kInt8DepthwiseNeonBand);
}
int64_t neon_band_workers(const Int8DepthwiseProblem& p) {
  return std::max<int64_t>(
      1, std::min<int64_t>(neon_band_units(p), static_cast<int64_t>(num_threads())));
}
#endif

// The loops run_int8_depthwise takes.
enum class Loops { kScalar, kPlanes, kChannels, kPlanesU8, kChannelsDot };

// What `path` resolves to for `p` on this CPU (kAuto: the u8 planes where
// they win, else channels-last where they win, else the int16 planes; a
// forced path falls back to the int16 planes where it is not available).
// Resolved once per call of int8_depthwise_scratch_bytes and of
// run_int8_depthwise (the u8 test scans the C * 9 weight bytes, microseconds).
Loops loops_of(const Int8DepthwiseProblem& p, Int8DepthwisePath path) {
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() == QuantIsa::kScalar) return Loops::kScalar;
  switch (path) {
    case Int8DepthwisePath::kAuto:
      if (int8_depthwise_u8_wins(p)) return Loops::kPlanesU8;
      return int8_depthwise_channels_win(p) ? Loops::kChannels : Loops::kPlanes;
    case Int8DepthwisePath::kPlanes: return Loops::kPlanes;
    case Int8DepthwisePath::kChannels:
      return p.taps() <= kInt8DepthwiseChannelsMaxTaps ? Loops::kChannels : Loops::kPlanes;
    case Int8DepthwisePath::kPlanesU8:
      return int8_depthwise_u8_applies(p) ? Loops::kPlanesU8 : Loops::kPlanes;
  }
#endif
#if defined(TORCHEDGE_QUANTIZED_ARM)
  // NEON channel blocks where they apply (int8_depthwise_neon_channels),
  // unless the planes are forced; else the NEON planes.
  // At dot-product, its channel blocks where they apply (3x3 filters).
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd &&
      path != Int8DepthwisePath::kPlanes && int8_depthwise_dotprod_channels_applies(p)) {
    return Loops::kChannelsDot;
  }
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kNeon) {
    if (path != Int8DepthwisePath::kPlanes && int8_depthwise_neon_channels_applies(p)) {
      return Loops::kChannels;
    }
    if (int8_depthwise_neon_applies(p)) return Loops::kPlanes;
  }
#endif
  (void)p;
  (void)path;
  return Loops::kScalar;
}

#if defined(TORCHEDGE_QUANTIZED_X86)
// The channels-last work: units (int8_depthwise_channel_row_blocks) and one
// worker slot per thread at most.
struct ChannelWork {
  int64_t row_blocks, units, workers;
};

ChannelWork channel_work(const Int8DepthwiseProblem& p) {
  const int64_t threads = static_cast<int64_t>(num_threads());
  const int64_t bands = (p.channels + kInt8DepthwiseChannelBand - 1) / kInt8DepthwiseChannelBand;
  ChannelWork w;
  w.row_blocks = int8_depthwise_channel_row_blocks(p, threads);
  w.units = p.batch * bands * w.row_blocks;
  w.workers = std::max<int64_t>(1, std::min(w.units, threads));
  return w;
}
#endif

}  // namespace

bool int8_depthwise_channels_win(const Int8DepthwiseProblem& p) {
#if defined(TORCHEDGE_QUANTIZED_X86)
  // int8_depthwise_bench on the 2-vCPU Ice Lake Xeon, MobileNetV2's layers
  // (3x3, padding 1), us per plane -> channels-last, min over alternating
  // runs (7 rounds of best-of-100 each):
  //   C @ map, s    VNNI 1T     VNNI 2T     AVX2 1T     AVX2 2T
  //   32 @ 112, 1   181 -> 140   93 -> 70   191 -> 214   97 -> 111
  //   96 @ 112, 2   252 -> 168  130 -> 83   320 -> 239  162 -> 125
  //  144 @ 56, 1    238 -> 176  120 -> 87   253 -> 261  129 -> 135
  //  144 @ 56, 2    129 -> 59    66 -> 33   153 -> 95    78 -> 51
  //  192 @ 28, 1     95 -> 46    49 -> 25    93 -> 79    48 -> 42
  //  192 @ 28, 2     52 -> 19    27 -> 11    71 -> 30    36 -> 16
  //  384 @ 14, 1     53 -> 25    27 -> 14    65 -> 42    33 -> 23
  //  576 @ 14, 1     80 -> 38    41 -> 20    97 -> 63    50 -> 32
  //  576 @ 14, 2     74 -> 17    38 -> 9     74 -> 25    38 -> 13
  //  960 @ 7, 1      77 -> 20    40 -> 11    77 -> 32    40 -> 16
  // With 5x5 kernels (padding 2) the channels-last loops win on every
  // shape above (1.5-4x). The one loss is AVX2's 3x3 stride 1 on maps over
  // 28x28, where the per-plane path shares the interleaves of two output
  // rows (TwoRows3x3). A band always computes 32 lanes: with fewer
  // channels the per-plane path catches up (C = 16: 0.9x at 56x56, 1.0x at
  // 28x28, 1.9x at 7x7 on VNNI; on AVX2 0.6x at 28x28, C = 24 0.86x), hence
  // the share of used lanes asked for.
  if (quant_isa() == QuantIsa::kScalar || p.taps() > kInt8DepthwiseChannelsMaxTaps) return false;
  constexpr int64_t kSmallMap = 28 * 28;
  const bool small = p.out_height * p.out_width <= kSmallMap;
  const int64_t lanes = (p.channels + kInt8DepthwiseChannelBand - 1) /
                        kInt8DepthwiseChannelBand * kInt8DepthwiseChannelBand;
  const bool most_lanes = 8 * p.channels >= 7 * lanes;
  if (quant_isa() == QuantIsa::kAvx512Vnni) return most_lanes || (small && 2 * p.channels >= lanes);
  const bool two_rows_3x3 = p.kernel_h == 3 && p.kernel_w == 3 && p.stride_h == 1 &&
                            p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1;
  return most_lanes && (small || !two_rows_3x3);
#else
  (void)p;
  return false;
#endif
}

bool int8_depthwise_u8_applies(const Int8DepthwiseProblem& p) {
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kAvx2 || p.kernel_h != 3 || p.kernel_w != 3 ||
      p.dilation_h != 1 || p.dilation_w != 1 || (p.stride_w != 1 && p.stride_w != 2)) {
    return false;
  }
  const int64_t count = p.channels * p.taps();
  bool fits = true;  // every weight in [-64, 63]; no early exit: vectorizes
  for (int64_t i = 0; i < count; ++i) fits &= p.weight[i] >= -64 && p.weight[i] <= 63;
  return fits;
#else
  (void)p;
  return false;
#endif
}

bool int8_depthwise_u8_wins(const Int8DepthwiseProblem& p) {
  // int8_depthwise_bench on the 2-vCPU AMD EPYC (Zen 3, AVX2), MobileNetV2's
  // layers with 7-bit weights, us, min over 5 rotating rounds of best-of-20
  // (planes / channels-last / u8 planes):
  //   C @ map, s    1T                     2T
  //   32 @ 112, 1   219 / 237 / 170        167 / 182 / 112
  //   96 @ 112, 2   352 / 257 / 186        274 / 196 / 139
  //  144 @ 56, 1    281 / 292 / 203        233 / 206 / 148
  //  144 @ 56, 2    159 / 108 / 81         133 / 88 / 66
  //  192 @ 28, 1    106 / 88 / 83           86 / 64 / 60
  //  192 @ 28, 2     75 / 33 / 55           66 / 29 / 43
  //  384 @ 14, 1     72 / 47 / 89           56 / 39 / 66
  // A block computes 32 output pixels of one row: from 28 wide on, most
  // lanes are used; narrower maps go to the channels-last loops.
  constexpr int64_t kMinWidth = 28;
  return p.out_width >= kMinWidth && int8_depthwise_u8_applies(p);
}

bool int8_depthwise_channel_is_bounded(const Int8DepthwiseProblem& p, int64_t c) {
  const float scale = p.in_scale * p.w_scales[c];
  const float bias = p.bias != nullptr ? p.bias[c] : 0.0f;
  if (!std::isfinite(scale) || !std::isfinite(bias)) return false;
  // sum |w| in integers (exact, and vectorizes; <= 128 * 65536 taps).
  int32_t weights = 0;
  const int8_t* k = p.weight + c * p.taps();
  for (int64_t t = 0; t < p.taps(); ++t) weights += k[t] < 0 ? -k[t] : k[t];
  const double bound =
      (255.0 * static_cast<double>(weights) * std::fabs(static_cast<double>(scale)) +
       std::fabs(static_cast<double>(bias))) *
          static_cast<double>(p.inv_out_scale) * 1.01 +
      1.0;
  return bound < 16384.0;
}

Error read_int8_depthwise_args(Span<EValue*> args, Int8DepthwiseArgs* out) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 14));
  Int8DepthwiseArgs a{};
  TE_ASSIGN_OR_RETURN(a.input, tensor_arg(args, 0, "input"));
  TE_ASSIGN_OR_RETURN(a.input_scale, double_arg(args, 1, "input_scale"));
  TE_ASSIGN_OR_RETURN(a.input_zero_point, int_arg(args, 2, "input_zero_point"));
  TE_ASSIGN_OR_RETURN(a.weight, tensor_arg(args, 3, "weight"));
  TE_ASSIGN_OR_RETURN(a.weight_scales, tensor_arg(args, 4, "weight_scales"));
  TE_ASSIGN_OR_RETURN(a.bias, optional_tensor_arg(args, 5, "bias"));
  TE_ASSIGN_OR_RETURN(a.stride, int_list_arg(args, 6, "stride"));
  TE_ASSIGN_OR_RETURN(a.padding, int_list_arg(args, 7, "padding"));
  TE_ASSIGN_OR_RETURN(a.dilation, int_list_arg(args, 8, "dilation"));
  TE_ASSIGN_OR_RETURN(a.output_scale, double_arg(args, 9, "output_scale"));
  TE_ASSIGN_OR_RETURN(a.output_zero_point, int_arg(args, 10, "output_zero_point"));
  TE_ASSIGN_OR_RETURN(a.output_min, int_arg(args, 11, "output_min"));
  TE_ASSIGN_OR_RETURN(a.output_max, int_arg(args, 12, "output_max"));
  TE_ASSIGN_OR_RETURN(a.out, tensor_arg(args, 13, "out"));
  *out = a;
  return Error::Ok;
}

Error prepare_int8_depthwise(const Int8DepthwiseArgs& a, Int8DepthwiseProblem* p,
                             const char* op) {
  TE_RETURN_IF_ERROR(check_tensors(a, op));
  TE_RETURN_IF_ERROR(check_int_pair(a.stride, "stride", 1, op));
  TE_RETURN_IF_ERROR(check_int_pair(a.padding, "padding", 0, op));
  TE_RETURN_IF_ERROR(check_int_pair(a.dilation, "dilation", 1, op));
  TE_RETURN_IF_ERROR(check_positive_scale(a.input_scale, "input_scale", op));
  TE_RETURN_IF_ERROR(check_positive_scale(a.output_scale, "output_scale", op));
  TE_RETURN_IF_ERROR(check_int8_value(a.input_zero_point, "input_zero_point", op));
  TE_RETURN_IF_ERROR(check_int8_value(a.output_zero_point, "output_zero_point", op));
  TE_RETURN_IF_ERROR(check_quant_range(a.output_min, a.output_max, ScalarType::Char, op));
  const Tensor& in = *a.input;
  const Tensor& w = *a.weight;
  Int8DepthwiseProblem& q = *p;
  q = Int8DepthwiseProblem{};
  q.batch = in.size(0);
  q.channels = in.size(1);
  q.height = in.size(2);
  q.width = in.size(3);
  q.kernel_h = w.size(2);
  q.kernel_w = w.size(3);
  q.stride_h = a.stride[0];
  q.stride_w = a.stride[1];
  q.pad_h = a.padding[0];
  q.pad_w = a.padding[1];
  q.dilation_h = a.dilation[0];
  q.dilation_w = a.dilation[1];
  TE_CHECK_OR_RETURN(q.taps() <= kMaxInt8DepthwiseTaps, Error::InvalidArgument,
                     "%s: KH * KW = %lld exceeds %lld (int32 sums could overflow)", op,
                     static_cast<long long>(q.taps()),
                     static_cast<long long>(kMaxInt8DepthwiseTaps));
  TE_RETURN_IF_ERROR(set_window_output_size(&q, op));
  const int64_t sizes[4] = {q.batch, q.channels, q.out_height, q.out_width};
  TE_RETURN_IF_ERROR(resize_to(*a.out, {sizes, 4}));
  q.input = in.data_as<int8_t>();
  q.weight = w.data_as<int8_t>();
  q.w_scales = a.weight_scales->data_as<float>();
  q.bias = a.bias != nullptr ? a.bias->data_as<float>() : nullptr;
  q.out = a.out->mutable_data_as<int8_t>();
  set_int8_requantization(a, &q);
  return Error::Ok;
}

void int8_depthwise_scalar(const Int8DepthwiseProblem& p, int64_t plane_begin,
                           int64_t plane_end) {
  const int64_t plane_in = p.height * p.width, plane_out = p.out_height * p.out_width;
  const int64_t sw = p.stride_w, pw = p.pad_w;
  // Per output row, sums of up to kChunk pixels tap by tap over the pixels
  // whose input column is inside the row (padding adds 0), so the inner
  // loop has no bounds checks and vectorizes for the baseline ISA.
  constexpr int64_t kChunk = 256;
  int32_t acc[kChunk];
  for (int64_t plane = plane_begin; plane < plane_end; ++plane) {
    const int64_t c = plane % p.channels;
    const int8_t* x = p.input + plane * plane_in;
    const int8_t* w = p.weight + c * p.taps();
    int8_t* out = p.out + plane * plane_out;
    const float scale = p.in_scale * p.w_scales[c];  // as requantize()
    const float bias = p.bias != nullptr ? p.bias[c] : 0.0f;
    for (int64_t oh = 0; oh < p.out_height; ++oh) {
      for (int64_t ow0 = 0; ow0 < p.out_width; ow0 += kChunk) {
        const int64_t count = std::min(kChunk, p.out_width - ow0);
        for (int64_t i = 0; i < count; ++i) acc[i] = 0;
        for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
          const int64_t ih = oh * p.stride_h - p.pad_h + kh * p.dilation_h;
          if (ih < 0 || ih >= p.height) continue;
          const int8_t* row = x + ih * p.width;
          for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const int32_t wv = w[kh * p.kernel_w + kw];
            const int64_t shift = kw * p.dilation_w - pw;  // iw = ow * sw + shift
            // ow with 0 <= ow * sw + shift < width, within this chunk.
            int64_t lo = shift >= 0 ? 0 : (-shift + sw - 1) / sw;
            int64_t hi = p.width - shift <= 0 ? 0 : (p.width - shift - 1) / sw + 1;
            lo = std::max(lo, ow0) - ow0;
            hi = std::min(hi, ow0 + count) - ow0;
            if (lo >= hi) continue;
            const int8_t* in = row + (ow0 + lo) * sw + shift;  // pixel ow0 + lo's input
            int32_t* sums = acc + lo;
            const int32_t zx = p.in_zero_point;
            if (sw == 1) {
              for (int64_t i = 0; i < hi - lo; ++i) sums[i] += (in[i] - zx) * wv;
            } else {
              for (int64_t i = 0; i < hi - lo; ++i) sums[i] += (in[i * sw] - zx) * wv;
            }
          }
        }
        int8_t* dst = out + oh * p.out_width + ow0;
        // requantize() (support/int8_gemm.cpp) with the same affine.h
        // helpers, over the chunk: branch-free selects that vectorize.
        for (int64_t i = 0; i < count; ++i) {
          float y = static_cast<float>(acc[i]) * scale;
          if (p.bias != nullptr) y += bias;
          const float r = round_half_even(y * p.inv_out_scale) + p.out_zero_point;
          dst[i] = to_quant<int8_t>(clamp_nan(r, p.quant_min, p.quant_max));
        }
      }
    }
  }
}

size_t int8_depthwise_scratch_bytes(const Int8DepthwiseProblem& p, Int8DepthwisePath path) {
  if (p.planes() == 0) return 0;
#if defined(TORCHEDGE_QUANTIZED_X86)
  switch (loops_of(p, path)) {
    case Loops::kScalar:
    case Loops::kChannelsDot:  // AArch64 only
      return 0;
    case Loops::kPlanes:
      return static_cast<size_t>(workers_of(p)) * int8_depthwise_avx2_worker_bytes(p);
    case Loops::kPlanesU8:
      return static_cast<size_t>(workers_of(p)) * int8_depthwise_u8_avx2_worker_bytes(p);
    case Loops::kChannels: {
      const ChannelWork w = channel_work(p);
      return static_cast<size_t>(w.workers) *
             int8_depthwise_channels_worker_bytes(p, w.row_blocks);
    }
  }
#endif
#if defined(TORCHEDGE_QUANTIZED_ARM)
  switch (loops_of(p, path)) {
    case Loops::kPlanes:
      return static_cast<size_t>(workers_of(p)) * int8_depthwise_neon_worker_bytes(p);
    case Loops::kChannels:
      return static_cast<size_t>(neon_band_workers(p)) *
             int8_depthwise_neon_channels_worker_bytes(p);
    case Loops::kChannelsDot:
      return static_cast<size_t>(neon_band_workers(p)) *
             int8_depthwise_dotprod_channels_worker_bytes(p);
    default:
      return 0;
  }
#endif
  (void)path;
  return 0;
}

void run_int8_depthwise(const Int8DepthwiseProblem& p, void* scratch, Int8DepthwisePath path) {
  const int64_t planes = p.planes();
  if (planes == 0 || p.out_height * p.out_width == 0) return;
  const Loops loops = loops_of(p, path);
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (loops == Loops::kChannels) {
    // As below: worker slot `slot` owns units [slot * units / workers, ...)
    // and scratch slice `slot`.
    const ChannelWork w = channel_work(p);
    const size_t bytes = int8_depthwise_channels_worker_bytes(p, w.row_blocks);
    parallel_for(0, w.workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t slot = begin; slot < end; ++slot) {
        int8_depthwise_channels(p, w.row_blocks, slot * w.units / w.workers,
                                (slot + 1) * w.units / w.workers,
                                static_cast<char*>(scratch) + slot * bytes);
      }
    });
    return;
  }
#endif
#if defined(TORCHEDGE_QUANTIZED_ARM)
  if (loops == Loops::kChannels || loops == Loops::kChannelsDot) {
    // Worker slot `slot` owns units [slot * units / workers, ...) and
    // scratch slice `slot`.
    const bool dot = loops == Loops::kChannelsDot;
    const int64_t units = neon_band_units(p), workers = neon_band_workers(p);
    const size_t bytes = dot ? int8_depthwise_dotprod_channels_worker_bytes(p)
                             : int8_depthwise_neon_channels_worker_bytes(p);
    const auto run = dot ? &int8_depthwise_dotprod_channels : &int8_depthwise_neon_channels;
    parallel_for(0, workers, 1, [&](int64_t begin, int64_t end) {
      for (int64_t slot = begin; slot < end; ++slot) {
        run(p, slot * units / workers, (slot + 1) * units / workers,
            static_cast<char*>(scratch) + slot * bytes);
      }
    });
    return;
  }
#endif
  const int64_t workers = workers_of(p);
  (void)loops;
  (void)scratch;
  // parallel_for over worker slots: each slot owns planes
  // [slot * planes / workers, (slot + 1) * planes / workers) and, on AVX2,
  // scratch slice `slot` (the slots of one chunk run one after another).
  parallel_for(0, workers, 1, [&](int64_t begin, int64_t end) {
    for (int64_t slot = begin; slot < end; ++slot) {
      const int64_t b = slot * planes / workers, e = (slot + 1) * planes / workers;
#if defined(TORCHEDGE_QUANTIZED_X86)
      if (loops == Loops::kPlanesU8) {
        const size_t bytes = int8_depthwise_u8_avx2_worker_bytes(p);
        int8_depthwise_u8_avx2(p, b, e, static_cast<char*>(scratch) + slot * bytes);
        continue;
      }
      if (loops == Loops::kPlanes) {
        const size_t bytes = int8_depthwise_avx2_worker_bytes(p);
        int8_depthwise_avx2(p, b, e, static_cast<char*>(scratch) + slot * bytes);
        continue;
      }
#endif
#if defined(TORCHEDGE_QUANTIZED_ARM)
      if (loops == Loops::kPlanes) {
        const size_t bytes = int8_depthwise_neon_worker_bytes(p);
        int8_depthwise_neon(p, b, e, static_cast<char*>(scratch) + slot * bytes);
        continue;
      }
#endif
      int8_depthwise_scalar(p, b, e);
    }
  });
}

}  // namespace quantized
}  // namespace torchedge
