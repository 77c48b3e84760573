// torchedge/kernels/quantized/support/int8_conv.h
//
// Static int8 2-D convolution with exact int32 sums and a float
// requantization epilogue: the compute of torchedge::conv2d_int8.out.
//
//   acc[n, m, p] = sum_{c, kh, kw} (x[n, g Cin_g + c, ih, iw] - zx) * w[m, c, kh, kw]
//                  (int32, exact; padding positions count as x == zx)
//   y  = float(acc) * (in_scale * w_scales[m])   then + bias[m]   (no FMA)
//   out = clamp(round_half_even(y * inv_out_scale) + out_zp, qmin, qmax)  (int8)
// the requantize() formula of support/int8_gemm.h, so every ISA agrees bit
// for bit (NaN, from a NaN bias, gives 0 as eager's .to(int8) does).
//
// Weights come in the "panel layout" (int8 [groups, ceil(Cout_g / 6),
// ceil(K / 4), 6, 4], int8_conv_weight_index): per group, the output channels in
// panels of 6 rows, K = Cin_g * KH * KW in quads (Kq: K rounded up to 4),
// per quad the 6 rows, per row the quad's four k; padding rows and k >= K
// hold 0. A row's quad is one vpdpbusd lane's 4 weights (AVX-512 VNNI reads
// the panels as they are); the AVX2 path widens each quad's two pairs to
// the int16 pair layout of support/x86/int8_tile_avx2.h.
// AVX2 (support/x86/int8_conv_avx2.cpp): per (image, group, chunk of
// 16-pixel output strips) a GEMM M = Cout_g, N = pixels, K: K in blocks of
// kInt8ConvBlockPairs pairs; the weight panels are widened to int16 once
// per call (shared by the workers), the input is copied once per image
// with zero-point padding, and each strip's block of im2col columns is
// packed from it as int16 (x - zx) in the tile's B layout; int32 partial
// sums wait in a [chunk][Cout_g][16] buffer; the epilogue writes each
// output channel's 16 contiguous pixels. AVX2 with 7-bit weights
// (weight_bits == 7): support/x86/int8_conv_u8_avx2.cpp, the VNNI path's u8
// quads multiplied by vpmaddubsw + vpmaddwd (exact for |w| <= 64).
// Scalar: direct loops.
//
// Residual add (torchedge::conv2d_add_int8: `residual` set): each output
// element's int8 value above is not written but goes, with the residual's
// element at the same index, through support/int8_add.h's formula
// (residual_add: a = the conv value with the conv's output parameters,
// b = the residual), and that result is written: bit for bit what
// add_int8(conv2d_int8(...), residual) computes, in one pass over the
// output. The AVX2 epilogue adds 16 pixels of two channels at once
// (x86/int8_add_avx2.h), the other paths each finished output plane
// (int8_add_per_tensor_simd: NEON conversions on AArch64, the scalar loops
// elsewhere), so they agree bit for bit as the add's paths do.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized/support/int8_add.h"
#include "runtime/core/error.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace quantized {

constexpr int64_t kInt8ConvPanelRows = 6;
constexpr int64_t kInt8ConvStrip = 16;
/// |x - zx| <= 255, |w| <= 128: K * 255 * 128 < 2^31.
constexpr int64_t kMaxInt8ConvK = 65536;

struct Int8ConvProblem {
  const int8_t* input;     // [batch, in_channels, height, width]; not owned
  const int8_t* weight;    // panel layout (above); not owned
  const float* w_scales;   // [out_channels]; not owned
  const float* bias;       // [out_channels] or nullptr; not owned
  int8_t* out;             // [batch, out_channels, out_height, out_width]; not owned
  int64_t batch = 0, in_channels = 0, height = 0, width = 0;
  int64_t out_channels = 0, out_height = 0, out_width = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
  // 8, or 7 when every weight is in [-64, 63] (the caller's promise, made
  // at export from the weights: torchedge's reduce_range quantization);
  // lets AVX2 without VNNI multiply u8 x s8 (int8_conv_u8_avx2) instead of
  // int16 pairs. The sums, and so the output, do not depend on it.
  int32_t weight_bits = 8;
  // [out_channels]: sum_k w[m, k] of each output channel (the program's
  // weight_sums, stored at export; trusted like the weights), or nullptr.
  // The dot-product path starts each sum at -in_zero_point * weight_sums[m],
  // and the x86 quads paths (VNNI, 7-bit u8) take their row sums from it,
  // instead of summing the weight panels on every call; the output does not
  // depend on it.
  const int32_t* weight_sums = nullptr;
  int32_t in_zero_point = 0;
  float in_scale = 1.0f;
  float inv_out_scale = 1.0f;  // float(1.0 / double(output_scale))
  float out_zero_point = 0.0f;
  float quant_min = -128.0f, quant_max = 127.0f;
  // The residual add (above): nullptr for a plain convolution; else int8
  // like `out` (same shape, row-major), not owned, not overlapping `out`.
  const int8_t* residual = nullptr;
  // Its scales, zero points and output parameters (a, b, out, count unused).
  Int8AddProblem residual_add{};

  int64_t cin_g() const { return in_channels / groups; }
  int64_t cout_g() const { return out_channels / groups; }
  int64_t k() const { return cin_g() * kernel_h * kernel_w; }
  int64_t k_pairs() const { return (k() + 1) / 2; }
  int64_t k_quads() const { return (k() + 3) / 4; }
  /// Bytes of one weight panel (6 rows x Kq).
  int64_t panel_bytes() const { return 4 * k_quads() * kInt8ConvPanelRows; }
  int64_t panels() const { return (cout_g() + kInt8ConvPanelRows - 1) / kInt8ConvPanelRows; }
  int64_t pixels() const { return out_height * out_width; }
};

/// Index of weight (row m of a group, input k of that group) inside the
/// group's panels (add g * panels * panel_bytes() for group g).
inline int64_t int8_conv_weight_index(int64_t m, int64_t k, int64_t k_total) {
  const int64_t kq = (k_total + 3) & ~int64_t{3};
  return (m / kInt8ConvPanelRows) * kq * kInt8ConvPanelRows +
         (k & ~int64_t{3}) * kInt8ConvPanelRows + (m % kInt8ConvPanelRows) * 4 + (k & 3);
}

/// The operator's arguments as the kernel receives them (tensors not owned).
struct Int8ConvArgs {
  const Tensor* input;
  double input_scale;
  int64_t input_zero_point;
  const Tensor* weight_panels;
  const Tensor* weight_scales;
  const Tensor* bias;  // nullptr for None
  Span<const int64_t> kernel_size, stride, padding, dilation;
  int64_t groups;
  int64_t weight_bits = 8;  // 7 or 8 (Int8ConvProblem::weight_bits)
  const Tensor* weight_sums = nullptr;  // int32 [Cout] or nullptr (Int8ConvProblem::weight_sums)
  double output_scale;
  int64_t output_zero_point, output_min, output_max;
  Tensor* out;
  // How errors name output_scale / output_zero_point (conv2d_add_int8 calls
  // its conv's output parameters conv_scale / conv_zero_point).
  const char* output_scale_name = "output_scale";
  const char* output_zero_point_name = "output_zero_point";
};

/// Checks every argument (InvalidArgument naming `op` and the argument:
/// dtypes, ranks, row-major layout, panel shape, weight_sums int32 [Cout]
/// when given, groups, list lengths and
/// signs, an empty output, scales finite > 0, zero points and the output
/// range in int8, K <= kMaxInt8ConvK), resizes `out` to
/// [N, Cout, OH, OW] and fills `p`.
Error prepare_int8_conv(const Int8ConvArgs& args, Int8ConvProblem* p, const char* op);

/// Bytes of scratch run_int8_conv needs on the current ISA and thread
/// setting (0 on the scalar path).
size_t int8_conv_scratch_bytes(const Int8ConvProblem& p);

/// Computes `p` with the best ISA over the shared thread pool. `scratch`:
/// int8_conv_scratch_bytes(p) bytes, 64-byte aligned, owned by the caller.
void run_int8_conv(const Int8ConvProblem& p, void* scratch);

/// The same with its scratch from ctx's temp allocator (the operators' entry
/// point): MemoryAllocationFailed naming `op` when the allocator is short.
Error run_int8_conv(KernelContext& ctx, const Int8ConvProblem& p, const char* op);

/// The scalar path for output channels [m_begin, m_end) of group g of image
/// n, residual add included (any CPU; tests compare the SIMD path to it bit
/// for bit).
void int8_conv_scalar(const Int8ConvProblem& p, int64_t n, int64_t g, int64_t m_begin,
                      int64_t m_end);

/// The AVX2 path widens the weight panels to int16 once per call into
/// scratch shared by its workers when they fit this budget (the runtime's
/// default temp arena is 8 MiB); larger weights are widened per K block and
/// chunk by each worker instead.
constexpr size_t kInt8ConvSharedWeightBytes = size_t{6} << 20;
inline size_t int8_conv_widened_bytes(const Int8ConvProblem& p) {
  return static_cast<size_t>(p.groups * p.panels() * 2 * p.k_pairs() * kInt8ConvPanelRows) *
         sizeof(int16_t);
}

#if defined(TORCHEDGE_QUANTIZED_X86)
/// K pairs per block: 12 KiB of packed strip per block.
constexpr int64_t kInt8ConvBlockPairs = 192;
/// Strips per int8_conv_avx2 call at most.
constexpr int64_t kInt8ConvMaxChunkStrips = 8;
#endif

#if defined(TORCHEDGE_QUANTIZED_X86) || defined(TORCHEDGE_QUANTIZED_ARM)

/// Where the AVX2 packer reads one image's input planes: either the input
/// itself (a 1x1, stride 1, unpadded conv: the plane is the B matrix, row
/// stride W) or a copy padded with the zero point (int8_conv_pad_image), so
/// that every 16-pixel run of a row is one unchecked load. Row r, column c
/// of padded plane i is planes[i * plane_stride + r * row_stride + c]; the
/// copy has kInt8ConvPadSlack readable bytes before and after it, which
/// the packer's loads may touch for lanes it then discards.
struct Int8ConvSource {
  const int8_t* planes;
  int64_t row_stride, plane_stride;
  bool flat;  // the input itself (1x1, stride 1, padding 0)
};
constexpr int64_t kInt8ConvPadSlack = 128;

/// True when the packer reads the input directly (no padded copy).
bool int8_conv_is_flat(const Int8ConvProblem& p);

/// Bytes of the padded copy of one image (0 when flat), with its slack.
size_t int8_conv_padded_bytes(const Int8ConvProblem& p);

/// Writes planes [c_begin, c_end) of image n, padded, into the copy that
/// starts at `buffer` (int8_conv_padded_bytes; the slack too, by the calls
/// that write the first and the last plane).
void int8_conv_pad_image(const Int8ConvProblem& p, int64_t n, int64_t c_begin, int64_t c_end,
                         int8_t* buffer);

/// The source that reads the padded copy at `buffer`.
Int8ConvSource int8_conv_padded_source(const Int8ConvProblem& p, const int8_t* buffer);
#endif

#if defined(TORCHEDGE_QUANTIZED_X86)

/// Panels [panel_begin, panel_end) (over all groups) of the weights,
/// sign-extended to int16 (same layout), into `widened`
/// (int8_conv_widened_bytes).
void int8_conv_widen_weights(const Int8ConvProblem& p, int64_t panel_begin, int64_t panel_end,
                             int16_t* widened);

/// Bytes of one AVX2 worker's scratch for chunks of `chunk_strips` strips
/// (less with shared widened weights), and the AVX2 path for strips
/// [strip_begin, strip_end) (at most chunk_strips, <= kInt8ConvMaxChunkStrips) and
/// weight panels [panel_begin, panel_end) (output channels 6 * panel_begin
/// up to 6 * panel_end, capped at Cout_g) of group g of image n, reading
/// `src` (that image's planes) and `widened` (or nullptr: the worker widens
/// each K block of its panels itself).
size_t int8_conv_avx2_worker_bytes(const Int8ConvProblem& p, int64_t chunk_strips,
                                   bool shared_weights);
void int8_conv_avx2(const Int8ConvProblem& p, const Int8ConvSource& src, const int16_t* widened,
                    int64_t n, int64_t g, int64_t strip_begin, int64_t strip_end,
                    int64_t panel_begin, int64_t panel_end, void* worker_scratch);

/// The AVX-512 VNNI path (support/x86/int8_conv_avx512vnni.cpp; only when
/// quant_isa() is kAvx512Vnni): the same chunks as int8_conv_avx2, reading
/// the panels as they are. Its u8 x s8 products need each weight row's sum
/// when the input zero point is not -128: int8_conv_vnni_row_sums writes
/// those of panels [panel_begin, panel_end) (over all groups) into `sums`
/// (int8_conv_row_sums_bytes: 0 when zx == -128; then pass nullptr).
/// Worker scratch: int8_conv_avx512vnni_worker_bytes. The same exact sums
/// and the AVX2 epilogue: bit for bit the other paths' output.
size_t int8_conv_row_sums_bytes(const Int8ConvProblem& p);
void int8_conv_vnni_row_sums(const Int8ConvProblem& p, int64_t panel_begin, int64_t panel_end,
                             int32_t* sums);
size_t int8_conv_avx512vnni_worker_bytes(const Int8ConvProblem& p, int64_t chunk_strips);
void int8_conv_avx512vnni(const Int8ConvProblem& p, const Int8ConvSource& src,
                          const int32_t* row_sums, int64_t n, int64_t g, int64_t strip_begin,
                          int64_t strip_end, int64_t panel_begin, int64_t panel_end,
                          void* worker_scratch);

/// The AVX2 path for 7-bit weights (support/x86/int8_conv_u8_avx2.cpp; when
/// quant_isa() is kAvx2 and p.weight_bits == 7): the VNNI path's chunks,
/// u8 quads and row sums, multiplied by vpmaddubsw + vpmaddwd (exact for
/// weights in [-64, 63]); `requantize` is int8_conv_requantize_run_for(p).
/// Row sums as for VNNI (int8_conv_row_sums_bytes; nullptr when zx ==
/// -128), written by int8_conv_u8_row_sums with AVX2 code.
void int8_conv_u8_row_sums(const Int8ConvProblem& p, int64_t panel_begin, int64_t panel_end,
                           int32_t* sums);
size_t int8_conv_u8_avx2_worker_bytes(const Int8ConvProblem& p, int64_t chunk_strips);
using Int8RequantizeRun = void (*)(const Int8ConvProblem& p, const int32_t* cs,
                                   int64_t channel0, int64_t count, int64_t n, int64_t pixel0,
                                   int64_t cols);
void int8_conv_u8_avx2(const Int8ConvProblem& p, const Int8ConvSource& src,
                       const int32_t* row_sums, int64_t n, int64_t g, int64_t strip_begin,
                       int64_t strip_end, int64_t panel_begin, int64_t panel_end,
                       Int8RequantizeRun requantize, void* worker_scratch);

/// The AVX2 epilogue on exact sums from elsewhere: run(p, cs, channel0,
/// count, n, pixel0, cols) requantizes cs ([count][16] int32: output
/// channels channel0 + row of one group, image n, pixels pixel0 + j of the
/// output plane for j < cols <= 16) into p.out (residual add included), bit
/// for bit as int8_conv_avx2 does; count <= 2 rows per call pair best.
Int8RequantizeRun int8_conv_requantize_run_for(const Int8ConvProblem& p);

/// Winograd F(2x2, 3x3) in integers (support/x86/int8_winograd_avx2.cpp):
/// the same exact sums as the direct convolution with 2.25x fewer
/// multiply-adds, then the AVX2 requantizer (int8_conv_requantize_run_for),
/// so the output is bit for bit the other paths'. Applies to single-group 3x3 stride-1 convolutions with
/// 8-1024 input and >= 8 output channels, an output of at least 8x8 and
/// Cin * Cout <= 256 * 256 (either weight_bits), on AVX2 without VNNI, unless
/// TORCHEDGE_WINOGRAD=0.
bool int8_winograd_applies(const Int8ConvProblem& p);
size_t int8_winograd_scratch_bytes(const Int8ConvProblem& p);
/// scratch: int8_winograd_scratch_bytes(p) bytes, 64-byte aligned.
void run_int8_winograd(const Int8ConvProblem& p, void* scratch);
#endif

}  // namespace quantized
}  // namespace torchedge
