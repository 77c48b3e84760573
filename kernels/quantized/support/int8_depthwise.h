// torchedge/kernels/quantized/support/int8_depthwise.h
//
// Static int8 depthwise 2-D convolution (groups == Cin == Cout == C, one
// filter per channel): the compute of torchedge::depthwise_conv2d_int8.out.
//
//   acc[n, c, oh, ow] = sum_{kh, kw} (x[n, c, ih, iw] - zx) * w[c, 0, kh, kw]
//                       (int32, exact; padding positions count as x == zx)
//   y   = float(acc) * (in_scale * w_scales[c])   then + bias[c]   (no FMA)
//   out = clamp(round_half_even(y * inv_out_scale) + out_zp, qmin, qmax)  (int8)
// the requantize() formula of support/int8_gemm.h, so every ISA agrees bit
// for bit (a NaN, from a NaN bias, gives 0 as eager's .to(int8) does).
//
// AVX2 (support/x86/int8_depthwise_avx2.cpp): per (image, channel) plane,
// the plane is widened once into the worker's int16 buffer holding x - zx
// with zero padding, split by column phase (col % stride_w), so the 16
// output pixels of every tap read 16 contiguous int16; taps go in pairs
// (interleave + vpmaddwd with the pair's two weights). Any kernel size,
// stride, padding and dilation. Scalar: per output row, tap by tap over
// the pixels whose input is inside the row (no bounds checks inside).
// AVX-512 VNNI (support/x86/int8_depthwise_avx512vnni.cpp): the AVX2
// path's widened planes, 32 pixels per step with vpdpwssd, for maps at
// least kInt8DepthwiseVnniMinWidth wide.
// Work is split over the shared thread pool by (image, channel) planes.
// u8 planes (support/x86/int8_depthwise_u8_avx2.cpp, AVX2 without VNNI):
// 3x3 filters whose weights all fit 7 bits (static_config(weight_bits=7))
// keep the plane in bytes (x + 128) and take a row's three taps per output
// from one 32-byte load of 8 quads (vpmaddubsw + vpmaddwd, no interleaves),
// 32 output pixels per step; kAuto takes them on maps at least 28 wide.
// Channels-last (support/x86/int8_depthwise_channels_avx2.cpp, AVX2, and
// *_avx512vnni.cpp): where the per-plane work above dominates
// (int8_depthwise_channels_win), 32 channels of one image at a time are
// transposed into an int16 [rows][W + 2 pad_w][32] buffer (x - zx, zero
// padding; a window of at most 128 KiB of padded rows), each output pixel's
// 32 sums are taken along channels (the same tap pairs and epilogue), and
// the int8 results transposed back into NCHW 16 (AVX2) or 32 (VNNI) pixels
// at a time; work split by (image, 32-channel band, block of output rows).
// Any kernel (up to kInt8DepthwiseChannelsMaxTaps taps), stride, padding
// and dilation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace quantized {

/// |x - zx| <= 255, |w| <= 128: taps * 255 * 128 < 2^31.
constexpr int64_t kMaxInt8DepthwiseTaps = 65536;

struct Int8DepthwiseProblem {
  const int8_t* input;    // [batch, channels, height, width]; not owned
  const int8_t* weight;   // [channels, kernel_h, kernel_w]; not owned
  const float* w_scales;  // [channels]; not owned
  const float* bias;      // [channels] or nullptr; not owned
  int8_t* out;            // [batch, channels, out_height, out_width]; not owned
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t out_height = 0, out_width = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int32_t in_zero_point = 0;
  float in_scale = 1.0f;
  float inv_out_scale = 1.0f;  // float(1.0 / double(output_scale))
  float out_zero_point = 0.0f;
  float quant_min = -128.0f, quant_max = 127.0f;

  int64_t taps() const { return kernel_h * kernel_w; }
  int64_t planes() const { return batch * channels; }
};

/// The operator's arguments as the kernel receives them (tensors not owned).
struct Int8DepthwiseArgs {
  const Tensor* input;
  double input_scale;
  int64_t input_zero_point;
  const Tensor* weight;
  const Tensor* weight_scales;
  const Tensor* bias;  // nullptr for None
  Span<const int64_t> stride, padding, dilation;
  double output_scale;
  int64_t output_zero_point, output_min, output_max;
  Tensor* out;
};

/// Checks every argument (InvalidArgument naming `op` and the argument:
/// dtypes, ranks, row-major layout, weight [C, 1, KH, KW] with C the
/// input's channels, weight_scales/bias [C], list lengths and signs, the
/// kernel fitting the padded input, scales finite > 0, zero points and the
/// output range in int8, KH * KW <= kMaxInt8DepthwiseTaps), resizes `out`
/// to [N, C, OH, OW] and fills `p`.
Error prepare_int8_depthwise(const Int8DepthwiseArgs& args, Int8DepthwiseProblem* p,
                             const char* op);

/// Reads torchedge::depthwise_conv2d_int8.out's 14 boxed arguments (input,
/// input_scale, input_zero_point, weight, weight_scales, bias?, stride,
/// padding, dilation, output_scale, output_zero_point, output_min,
/// output_max, out) into `args`; InvalidArgument naming the one of the
/// wrong kind. Shared by every kernel of the op (quantized, cortex_m).
Error read_int8_depthwise_args(Span<EValue*> boxed, Int8DepthwiseArgs* args);

/// Which loops run_int8_depthwise takes. kAuto: the u8 planes where
/// int8_depthwise_u8_wins(), else channels-last where
/// int8_depthwise_channels_win(), else per plane. kPlanes / kChannels /
/// kPlanesU8 force one (tests, the bench); kChannels and kPlanesU8 fall back
/// to kPlanes where they are not available (kChannels: no AVX2, or more
/// than kInt8DepthwiseChannelsMaxTaps taps; kPlanesU8: where
/// int8_depthwise_u8_applies() is false).
enum class Int8DepthwisePath { kAuto, kPlanes, kChannels, kPlanesU8 };

/// Bytes of scratch run_int8_depthwise needs on the current ISA and thread
/// setting for `path` (0 on the scalar path).
size_t int8_depthwise_scratch_bytes(const Int8DepthwiseProblem& p,
                                    Int8DepthwisePath path = Int8DepthwisePath::kAuto);

/// Computes `p` with the best ISA over the shared thread pool. `scratch`:
/// int8_depthwise_scratch_bytes(p, path) bytes, 64-byte aligned, owned by
/// the caller (read in the same thread setting).
void run_int8_depthwise(const Int8DepthwiseProblem& p, void* scratch,
                        Int8DepthwisePath path = Int8DepthwisePath::kAuto);

/// Whether kAuto takes the channels-last loops for `p` on this CPU (only
/// geometry, ISA and channel count matter; measurements in the .cpp).
bool int8_depthwise_channels_win(const Int8DepthwiseProblem& p);

/// Whether the u8 per-plane loops (support/x86/int8_depthwise_u8_avx2.cpp)
/// can compute `p` exactly: an AVX2 CPU without AVX-512 VNNI, a 3x3 filter,
/// dilation 1, stride_w 1 or 2, and every weight in [-64, 63] (7 bits, as
/// static_config(weight_bits=7) quantizes them; checked here, C * 9 bytes).
bool int8_depthwise_u8_applies(const Int8DepthwiseProblem& p);

/// Whether kAuto takes the u8 per-plane loops for `p` (they apply, and the
/// map is wide enough for them to win; measurements in the .cpp).
bool int8_depthwise_u8_wins(const Int8DepthwiseProblem& p);

/// The scalar path for planes [plane_begin, plane_end) (plane = n * C + c;
/// any CPU; tests compare the SIMD path to it bit for bit).
void int8_depthwise_scalar(const Int8DepthwiseProblem& p, int64_t plane_begin,
                           int64_t plane_end);

#if defined(TORCHEDGE_QUANTIZED_ARM)
/// AArch64 NEON per-plane loops (support/arm/int8_depthwise_neon.cpp: the
/// plane widened to int16 x - zx with zero borders, 8 output pixels per
/// step, the scalar path's sums and requantization bit for bit), taken by
/// every path when best_arm_isa() >= kNeon and the stride along the width
/// is 1 or 2. Planes [plane_begin, plane_end); scratch:
/// int8_depthwise_neon_worker_bytes(p) bytes, 64-byte aligned.
bool int8_depthwise_neon_applies(const Int8DepthwiseProblem& p);
size_t int8_depthwise_neon_worker_bytes(const Int8DepthwiseProblem& p);
void int8_depthwise_neon(const Int8DepthwiseProblem& p, int64_t plane_begin, int64_t plane_end,
                         void* scratch);

/// AArch64 NEON channel blocks (support/arm/int8_depthwise_channels_neon.cpp):
/// per unit (image, band of kInt8DepthwiseNeonBand channels) the band's
/// planes transposed into an int16 [H + 2 pad_h][W + 2 pad_w][16] buffer
/// (x - zx, zero padding), 16 sums per output pixel by widening
/// multiply-adds, requantized once per 16 channels and transposed back 16
/// pixels at a time; bit for bit the scalar path. Any stride, padding and
/// dilation; applies up to kInt8DepthwiseNeonChannelsMaxTaps taps and a
/// padded band of kInt8DepthwiseNeonChannelsMaxBytes (larger maps take the
/// per-plane loops, whose set-up is small beside them). kAuto and
/// kChannels take it where it applies, kPlanes the per-plane loops. Units
/// [unit_begin, unit_end) (unit u: image u / bands, band u % bands);
/// scratch: int8_depthwise_neon_channels_worker_bytes(p), 64-byte aligned.
constexpr int64_t kInt8DepthwiseNeonBand = 16;
constexpr int64_t kInt8DepthwiseNeonChannelsMaxTaps = 64;
constexpr size_t kInt8DepthwiseNeonChannelsMaxBytes = size_t{512} << 10;
bool int8_depthwise_neon_channels_applies(const Int8DepthwiseProblem& p);
size_t int8_depthwise_neon_channels_worker_bytes(const Int8DepthwiseProblem& p);
void int8_depthwise_neon_channels(const Int8DepthwiseProblem& p, int64_t unit_begin,
                                  int64_t unit_end, void* worker_scratch);

/// AArch64 dot-product channel blocks (support/arm/int8_depthwise_channels_dotprod.cpp,
/// best_arm_isa() >= kDotProd): the units, bands and output transposes of
/// the NEON channel blocks above, the input as raw int8 bytes (zx padding)
/// regrouped per output column into sdot quads of 4 consecutive pixels
/// ([H + 2 pad_h][OW][16 x 4] bytes), the sums started at -zx * sum w, 12
/// sdot per output pixel and the integer epilogue with every factor in
/// registers; bit for bit the scalar path. Applies to undilated 3x3
/// filters (any stride and padding) whose padded band and quads fit
/// kInt8DepthwiseNeonChannelsMaxBytes; kAuto and kChannels take it there.
/// scratch: int8_depthwise_dotprod_channels_worker_bytes(p), 64-byte aligned.
bool int8_depthwise_dotprod_channels_applies(const Int8DepthwiseProblem& p);
size_t int8_depthwise_dotprod_channels_worker_bytes(const Int8DepthwiseProblem& p);
void int8_depthwise_dotprod_channels(const Int8DepthwiseProblem& p, int64_t unit_begin,
                                     int64_t unit_end, void* worker_scratch);
#endif
/// Whether |y * inv_out_scale| < 2^14 for every sum channel c can produce
/// (|acc| <= 255 * sum |w|, with a wide margin) and y is never NaN: then
/// the SIMD paths may requantize in integers (cvtps2dq rounds half to even,
/// saturating packs clamp) with the float formula's exact result.
bool int8_depthwise_channel_is_bounded(const Int8DepthwiseProblem& p, int64_t c);

#if defined(TORCHEDGE_QUANTIZED_X86)
/// Bytes of one AVX2 worker's scratch (64-byte multiple), and the AVX2
/// path for planes [plane_begin, plane_end) using that scratch.
size_t int8_depthwise_avx2_worker_bytes(const Int8DepthwiseProblem& p);
void int8_depthwise_avx2(const Int8DepthwiseProblem& p, int64_t plane_begin, int64_t plane_end,
                         void* worker_scratch);

/// The u8 per-plane loops (int8_depthwise_u8_applies): one worker's
/// scratch (64-byte multiple: the padded u8 plane), and planes
/// [plane_begin, plane_end) using it.
size_t int8_depthwise_u8_avx2_worker_bytes(const Int8DepthwiseProblem& p);
void int8_depthwise_u8_avx2(const Int8DepthwiseProblem& p, int64_t plane_begin,
                            int64_t plane_end, void* worker_scratch);

/// With AVX-512 VNNI (quant_isa()), maps at least kInt8DepthwiseVnniMinWidth
/// wide take their taps 32 pixels at a time, and maps wider than 8 (the AVX2
/// path's own two-rows-per-vector maps) but at most
/// kInt8DepthwiseVnniTwoRowsMaxWidth two output rows per 32 lanes; widths
/// in between stay on AVX2 (32 lanes would be mostly idle).
constexpr int64_t kInt8DepthwiseVnniMinWidth = 24;
constexpr int64_t kInt8DepthwiseVnniTwoRowsMaxWidth = 16;

/// One (image, channel) plane as the AVX2 path widened it: padded row r at
/// rows + r * row_elems, tap t of output row oh at rows + oh * stride_h *
/// row_elems + tap_offsets[t] (+ the pixel), taps paired with weights[i] =
/// (w_2i & 0xffff) | (w_2i+1 << 16); room for 32-lane reads past the width.
struct Int8DepthwisePlane {
  const int16_t* rows;
  int64_t row_elems;
  const int64_t* tap_offsets;  // [2 * pairs]
  const int32_t* weights;      // [pairs]
  int64_t pairs;
};

/// The taps and epilogue of one widened plane of channel c
/// (support/x86/int8_depthwise_avx512vnni.cpp; `bounded`: the AVX2 path's
/// int8_depthwise_channel_is_bounded, which allows the integer epilogue).
void int8_depthwise_plane_avx512vnni(const Int8DepthwiseProblem& p, const Int8DepthwisePlane& w,
                                     int8_t* out, int64_t c, bool bounded);

/// Channels-last loops (support/x86/int8_depthwise_channels_avx2.cpp).
/// Channels per band (the int16 pixel is 64 bytes) and the largest kernel
/// (the band's paired weights take 128 bytes per pair of taps).
constexpr int64_t kInt8DepthwiseChannelBand = 32;
constexpr int64_t kInt8DepthwiseChannelsMaxTaps = 256;

/// Units of work for `threads` threads: batch x bands x row blocks (output
/// rows split further only when the bands alone would balance badly);
/// unit u is row block u % row_blocks of band (u / row_blocks) % bands of
/// image u / (row_blocks * bands).
int64_t int8_depthwise_channel_row_blocks(const Int8DepthwiseProblem& p, int64_t threads);

/// Bytes of one worker's scratch (64-byte multiple; the padded input rows
/// of one row block), and units [unit_begin, unit_end) with `row_blocks`
/// (above) using that scratch.
size_t int8_depthwise_channels_worker_bytes(const Int8DepthwiseProblem& p, int64_t row_blocks);
void int8_depthwise_channels(const Int8DepthwiseProblem& p, int64_t row_blocks,
                             int64_t unit_begin, int64_t unit_end, void* worker_scratch);

/// One band as the channels-last loops lay it out: padded input pixel
/// (r, col) at pixels + ((r - first_row) * row_pixels + col) * 32 (int16
/// x - zx, zero padding; the rows one unit reads); tap t at
/// + tap_offsets[t] (int16 units) from output pixel (oh, ow)'s first input
/// (oh * stride_h, ow * stride_w), taps paired; per pair 16 int32 weights
/// for the "lo" lanes then 16 for the "hi" lanes (lane i of lo: channel
/// 8 * (i / 4) + i % 4, of hi: that + 4, as vpunpck{l,h}wd leave them),
/// each (w_2i & 0xffff) | (w_2i+1 << 16); scale and bias the epilogue's
/// per-channel factors in that lane order ([lo 16][hi 16]); bounded: every
/// channel is (the integer epilogue). All in the worker's scratch.
struct Int8DepthwiseBand {
  int16_t* pixels;     // padded row first_row (a window of the rows)
  int64_t row_pixels;  // W + 2 pad_w
  int64_t first_row;
  const int64_t* tap_offsets;  // [2 * pairs]
  const int32_t* weights;      // [pairs][32]
  const float* scale;          // [32]
  const float* bias;           // [32]
  int64_t pairs;
  bool bounded;
};

/// With AVX-512 VNNI (support/x86/int8_depthwise_channels_avx512vnni.cpp),
/// 32 pixels a step: input pixels [q_begin, q_end) (flat ih * W + iw) of
/// channels [0, cn) at x (channel k at x + k * H * W) into b.pixels; and
/// output pixels [q_begin, q_end) (flat oh * OW + ow) of channels [0, cn)
/// into out (channel k at out + k * OH * OW), through `tile` (32 x 32
/// bytes of the worker's scratch).
void int8_depthwise_channel_input_avx512vnni(const Int8DepthwiseProblem& p,
                                             const Int8DepthwiseBand& b, const int8_t* x,
                                             int64_t cn, int64_t q_begin, int64_t q_end);
void int8_depthwise_channel_output_avx512vnni(const Int8DepthwiseProblem& p,
                                              const Int8DepthwiseBand& b, int8_t* out,
                                              int64_t cn, int64_t q_begin, int64_t q_end,
                                              int8_t* tile);
#endif

}  // namespace quantized
}  // namespace torchedge
