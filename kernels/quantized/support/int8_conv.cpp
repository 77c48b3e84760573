#include "kernels/quantized/support/int8_conv.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/support/kernel_args.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/quantized/support/int8_conv_dot.h"
#include "kernels/quantized/support/int8_gemm.h"
#include "kernels/quantized/support/quant_args.h"
#include "kernels/quantized/support/quant_isa.h"

namespace torchedge {
namespace quantized {
namespace {

#if defined(TORCHEDGE_QUANTIZED_X86)
// Strips per int8_conv_avx2 call: enough to read each weight block once
// for 8 strips, few enough that their packed blocks and sums stay in L2.
constexpr int64_t kMaxChunkStrips = kInt8ConvMaxChunkStrips;

size_t round_up_64(size_t bytes) { return (bytes + 63) & ~size_t{63}; }

int64_t strips_of(const Int8ConvProblem& p) {
  return (p.pixels() + kInt8ConvStrip - 1) / kInt8ConvStrip;
}

// Each worker takes a contiguous, equal share of one image's (group, strip)
// pairs (balanced to one strip, unlike whole chunks: a 14x14 map has 13
// strips), in calls of at most kMaxChunkStrips strips of one group. Every
// worker then streams all the weights, so where they outweigh the packed
// columns (Cout_g > the padded pixel count: the late, small-map layers,
// e.g. ResNet-18's 512 x 49) the workers split the output channels instead
// (by_panels: each takes a share of the weight panels and all strips), as
// the float SGEMM splits the larger of M and N. ResNet-50 int8 at 2 threads
// (perf): the pixel split left these layers at ~1.2x of one thread.
struct Split {
  int64_t chunk_strips, total, workers;
  bool by_panels;
};

Split split_of(const Int8ConvProblem& p) {
  Split s;
  const int64_t threads = static_cast<int64_t>(num_threads());
  s.chunk_strips = std::min(kMaxChunkStrips, strips_of(p));
  s.by_panels = threads > 1 && p.groups == 1 && p.panels() >= 2 * threads &&
                p.cout_g() > strips_of(p) * kInt8ConvStrip;
  s.total = s.by_panels ? p.panels() : p.groups * strips_of(p);
  s.workers = std::max<int64_t>(1, std::min<int64_t>(s.total, threads));
  return s;
}
#endif  // TORCHEDGE_QUANTIZED_X86

Error check_tensors(const Int8ConvArgs& a, const char* op) {
  const Tensor& in = *a.input;
  TE_CHECK_OR_RETURN(in.dtype() == ScalarType::Char && in.dim() == 4, Error::InvalidArgument,
                     "%s: input must be int8 [N, Cin, H, W], got %s %d-d", op,
                     to_string(in.dtype()), in.dim());
  TE_RETURN_IF_ERROR(expect_row_major(in, "input", op));
  const Tensor& s = *a.weight_scales;
  TE_CHECK_OR_RETURN(s.dtype() == ScalarType::Float && s.dim() == 1, Error::InvalidArgument,
                     "%s: weight_scales must be float32 [Cout], got %s %d-d", op,
                     to_string(s.dtype()), s.dim());
  if (a.bias != nullptr) {
    TE_CHECK_OR_RETURN(a.bias->dtype() == ScalarType::Float && a.bias->dim() == 1 &&
                           a.bias->size(0) == s.size(0),
                       Error::InvalidArgument, "%s: bias must be float32 [%d] (Cout), got %s %d-d",
                       op, s.size(0), to_string(a.bias->dtype()), a.bias->dim());
  }
  if (a.weight_sums != nullptr) {
    TE_CHECK_OR_RETURN(a.weight_sums->dtype() == ScalarType::Int && a.weight_sums->dim() == 1 &&
                           a.weight_sums->size(0) == s.size(0),
                       Error::InvalidArgument,
                       "%s: weight_sums must be int32 [%d] (Cout), got %s %d-d", op, s.size(0),
                       to_string(a.weight_sums->dtype()), a.weight_sums->dim());
  }
  TE_RETURN_IF_ERROR(expect_dtype(*a.out, ScalarType::Char, "out"));
  return expect_row_major(*a.out, "out", op);
}

// The residual add of one finished output plane (at element `offset` of
// out), in place: the conv values become the add's first operand.
void add_residual(const Int8ConvProblem& p, int64_t offset, int8_t* plane) {
  Int8AddProblem add = p.residual_add;
  add.a = plane;
  add.b = p.residual + offset;
  add.out = plane;
  add.count = p.pixels();
  // The same bits as int8_add_scalar (int8_add.h); NEON conversions on AArch64.
  int8_add_per_tensor_simd(add, 0, add.count);
}

}  // namespace

Error prepare_int8_conv(const Int8ConvArgs& a, Int8ConvProblem* p, const char* op) {
  TE_RETURN_IF_ERROR(check_tensors(a, op));
  TE_RETURN_IF_ERROR(check_int_pair(a.kernel_size, "kernel_size", 1, op));
  TE_RETURN_IF_ERROR(check_int_pair(a.stride, "stride", 1, op));
  TE_RETURN_IF_ERROR(check_int_pair(a.padding, "padding", 0, op));
  TE_RETURN_IF_ERROR(check_int_pair(a.dilation, "dilation", 1, op));
  TE_RETURN_IF_ERROR(check_positive_scale(a.input_scale, "input_scale", op));
  TE_RETURN_IF_ERROR(check_positive_scale(a.output_scale, a.output_scale_name, op));
  TE_RETURN_IF_ERROR(check_int8_value(a.input_zero_point, "input_zero_point", op));
  TE_RETURN_IF_ERROR(check_int8_value(a.output_zero_point, a.output_zero_point_name, op));
  TE_RETURN_IF_ERROR(check_quant_range(a.output_min, a.output_max, ScalarType::Char, op));
  const Tensor& in = *a.input;
  const int64_t cin = in.size(1), cout = a.weight_scales->size(0), groups = a.groups;
  TE_CHECK_OR_RETURN(groups >= 1 && cin % groups == 0 && cout % groups == 0 && cin > 0,
                     Error::InvalidArgument,
                     "%s: groups must be >= 1 and divide Cin (%lld) and Cout (%lld), got %lld", op,
                     static_cast<long long>(cin), static_cast<long long>(cout),
                     static_cast<long long>(groups));
  Int8ConvProblem& q = *p;
  q = Int8ConvProblem{};
  q.batch = in.size(0);
  q.in_channels = cin;
  q.height = in.size(2);
  q.width = in.size(3);
  q.out_channels = cout;
  q.kernel_h = a.kernel_size[0];
  q.kernel_w = a.kernel_size[1];
  q.stride_h = a.stride[0];
  q.stride_w = a.stride[1];
  q.pad_h = a.padding[0];
  q.pad_w = a.padding[1];
  q.dilation_h = a.dilation[0];
  q.dilation_w = a.dilation[1];
  q.groups = groups;
  TE_CHECK_OR_RETURN(a.weight_bits == 7 || a.weight_bits == 8, Error::InvalidArgument,
                     "%s: weight_bits must be 7 (every weight in [-64, 63]) or 8, got %lld", op,
                     static_cast<long long>(a.weight_bits));
  q.weight_bits = static_cast<int32_t>(a.weight_bits);
  q.weight_sums = a.weight_sums != nullptr ? a.weight_sums->data_as<int32_t>() : nullptr;
  TE_RETURN_IF_ERROR(set_window_output_size(&q, op));
  TE_CHECK_OR_RETURN(q.k() <= kMaxInt8ConvK, Error::InvalidArgument,
                     "%s: K = Cin/groups * KH * KW = %lld exceeds %lld (int32 sums could overflow)",
                     op, static_cast<long long>(q.k()), static_cast<long long>(kMaxInt8ConvK));
  const Tensor& w = *a.weight_panels;
  // The layout is spelled out in the shape, so a file written with an
  // earlier layout of the same bytes ([G, P, K * 6] rows of K) is rejected
  // here instead of computing wrong values.
  TE_CHECK_OR_RETURN(w.dtype() == ScalarType::Char && w.dim() == 5 && w.size(0) == groups &&
                         w.size(1) == q.panels() && w.size(2) == q.k_quads() &&
                         w.size(3) == kInt8ConvPanelRows && w.size(4) == 4,
                     Error::InvalidArgument,
                     "%s: weight_panels must be int8 [%lld, %lld, %lld, %d, 4] (groups, "
                     "ceil(Cout/groups / 6) panels of ceil(K / 4) quads of 6 rows x 4 inputs, "
                     "K = %lld), got %s %d-d; a .pte written before this layout must be "
                     "re-exported",
                     op, static_cast<long long>(groups), static_cast<long long>(q.panels()),
                     static_cast<long long>(q.k_quads()), static_cast<int>(kInt8ConvPanelRows),
                     static_cast<long long>(q.k()), to_string(w.dtype()), w.dim());
  TE_RETURN_IF_ERROR(expect_row_major(w, "weight_panels", op));
  const int64_t sizes[4] = {q.batch, cout, q.out_height, q.out_width};
  TE_RETURN_IF_ERROR(resize_to(*a.out, {sizes, 4}));
  q.input = in.data_as<int8_t>();
  q.weight = w.data_as<int8_t>();
  q.w_scales = a.weight_scales->data_as<float>();
  q.bias = a.bias != nullptr ? a.bias->data_as<float>() : nullptr;
  q.out = a.out->mutable_data_as<int8_t>();
  set_int8_requantization(a, &q);
  return Error::Ok;
}

void int8_conv_scalar(const Int8ConvProblem& p, int64_t n, int64_t g, int64_t m_begin,
                      int64_t m_end) {
  const int64_t cin_g = p.cin_g(), cout_g = p.cout_g(), k_total = p.k();
  const int8_t* weight = p.weight + g * p.panels() * p.panel_bytes();
  // requantize() of support/int8_gemm.h with this group's channels.
  Int8GemmProblem rq{};
  rq.w_scales = p.w_scales + g * cout_g;
  rq.bias = p.bias != nullptr ? p.bias + g * cout_g : nullptr;
  rq.in_scale = p.in_scale;
  rq.inv_out_scale = p.inv_out_scale;
  rq.out_zero_point = p.out_zero_point;
  rq.quant_min = p.quant_min;
  rq.quant_max = p.quant_max;
  const int8_t* image = p.input + (n * p.in_channels + g * cin_g) * p.height * p.width;
  for (int64_t m = m_begin; m < m_end; ++m) {
    int8_t* out = p.out + (n * p.out_channels + g * cout_g + m) * p.pixels();
    for (int64_t oh = 0; oh < p.out_height; ++oh) {
      for (int64_t ow = 0; ow < p.out_width; ++ow) {
        int32_t acc = 0;
        int64_t k = 0;
        for (int64_t c = 0; c < cin_g; ++c) {
          const int8_t* plane = image + c * p.height * p.width;
          for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
            const int64_t ih = oh * p.stride_h - p.pad_h + kh * p.dilation_h;
            for (int64_t kw = 0; kw < p.kernel_w; ++kw, ++k) {
              const int64_t iw = ow * p.stride_w - p.pad_w + kw * p.dilation_w;
              if (ih < 0 || ih >= p.height || iw < 0 || iw >= p.width) continue;
              const int32_t x = plane[ih * p.width + iw] - p.in_zero_point;
              acc += x * weight[int8_conv_weight_index(m, k, k_total)];
            }
          }
        }
        out[oh * p.out_width + ow] = requantize(acc, rq, m);
      }
    }
    if (p.residual != nullptr) add_residual(p, out - p.out, out);
  }
}

#if defined(TORCHEDGE_QUANTIZED_X86) || defined(TORCHEDGE_QUANTIZED_ARM)
namespace {
// n bytes from src to dst as two overlapping fixed-size pieces (16, 8 or 4
// bytes: one load and store each once inlined) or, past 16, 16-byte pieces
// and an overlapping last one; under 4 bytes one by one.
inline void copy_row(int8_t* dst, const int8_t* src, int64_t n) {
  if (n >= 16) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) std::memcpy(dst + i, src + i, 16);
    if (i < n) std::memcpy(dst + n - 16, src + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, src, 8);
    std::memcpy(dst + n - 8, src + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, src, 4);
    std::memcpy(dst + n - 4, src + n - 4, 4);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}
}  // namespace

bool int8_conv_is_flat(const Int8ConvProblem& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
         p.pad_h == 0 && p.pad_w == 0;
}

size_t int8_conv_padded_bytes(const Int8ConvProblem& p) {
  if (int8_conv_is_flat(p)) return 0;
  const int64_t hp = p.height + 2 * p.pad_h, wp = p.width + 2 * p.pad_w;
  return static_cast<size_t>(p.in_channels * hp * wp + 2 * kInt8ConvPadSlack);
}

Int8ConvSource int8_conv_padded_source(const Int8ConvProblem& p, const int8_t* buffer) {
  const int64_t hp = p.height + 2 * p.pad_h, wp = p.width + 2 * p.pad_w;
  return Int8ConvSource{buffer + kInt8ConvPadSlack, wp, hp * wp, false};
}

void int8_conv_pad_image(const Int8ConvProblem& p, int64_t n, int64_t c_begin, int64_t c_end,
                         int8_t* buffer) {
  const int64_t hp = p.height + 2 * p.pad_h, wp = p.width + 2 * p.pad_w;
  const int8_t zx = static_cast<int8_t>(p.in_zero_point);
  int8_t* planes = buffer + kInt8ConvPadSlack;
  if (c_begin == 0) std::memset(buffer, zx, kInt8ConvPadSlack);
  if (c_end == p.in_channels) std::memset(planes + c_end * hp * wp, zx, kInt8ConvPadSlack);
  // Per plane one fill with the zero point, then the rows copied in
  // fixed-size pieces (copy_row): a memset and memcpy call per row cost
  // more than the rows themselves on ResNet's 7- to 28-wide maps.
  for (int64_t c = c_begin; c < c_end; ++c) {
    const int8_t* src = p.input + (n * p.in_channels + c) * p.height * p.width;
    int8_t* dst = planes + c * hp * wp;
    std::memset(dst, zx, static_cast<size_t>(hp * wp));
    dst += p.pad_h * wp + p.pad_w;
    for (int64_t r = 0; r < p.height; ++r, dst += wp, src += p.width) copy_row(dst, src, p.width);
  }
}
#endif

#if defined(TORCHEDGE_QUANTIZED_X86)
// Here, not in the VNNI unit: the AVX2 u8 path sizes its scratch with it too.
size_t int8_conv_row_sums_bytes(const Int8ConvProblem& p) {
  if (p.in_zero_point == -128) return 0;
  return static_cast<size_t>(p.groups * p.panels() * kInt8ConvPanelRows) * sizeof(int32_t);
}

namespace {

bool shares_weights(const Int8ConvProblem& p) {
  return int8_conv_widened_bytes(p) <= kInt8ConvSharedWeightBytes;
}

// Which x86 inner loop a problem takes: int16 pairs (AVX2, exact for any
// int8 weights), u8 quads by vpmaddubsw (AVX2, 7-bit weights) or by
// vpdpbusd (AVX-512 VNNI).
enum class SimdPath { kPairs, kQuadsAvx2, kVnni };

SimdPath simd_path_of(const Int8ConvProblem& p) {
  if (quant_isa() == QuantIsa::kAvx512Vnni) return SimdPath::kVnni;
  return p.weight_bits <= 7 ? SimdPath::kQuadsAvx2 : SimdPath::kPairs;
}

// Scratch: [padded image][per-call weight data shared by the workers: the
// widened weights (pairs, when they fit) or the row sums (quads, when the
// input zero point is not -128)][worker slots].
struct SimdScratch {
  size_t padded, shared, slot;
  SimdPath path;
};

SimdScratch simd_scratch_of(const Int8ConvProblem& p, const Split& s) {
  const size_t padded = round_up_64(int8_conv_padded_bytes(p));
  const SimdPath path = simd_path_of(p);
  switch (path) {
    case SimdPath::kVnni:
      return SimdScratch{padded, round_up_64(int8_conv_row_sums_bytes(p)),
                         round_up_64(int8_conv_avx512vnni_worker_bytes(p, s.chunk_strips)), path};
    case SimdPath::kQuadsAvx2:
      return SimdScratch{padded, round_up_64(int8_conv_row_sums_bytes(p)),
                         round_up_64(int8_conv_u8_avx2_worker_bytes(p, s.chunk_strips)), path};
    case SimdPath::kPairs:
      break;
  }
  const bool shared = shares_weights(p);
  return SimdScratch{padded, shared ? round_up_64(int8_conv_widened_bytes(p)) : 0,
                     round_up_64(int8_conv_avx2_worker_bytes(p, s.chunk_strips, shared)), path};
}

// The row sums of panels [pb, pe) (all groups) from the program's stored
// weight_sums: the sums the quads paths would compute (padding rows past a
// group's channels hold zero weights), without reading the weights.
void stored_row_sums(const Int8ConvProblem& p, int64_t pb, int64_t pe, int32_t* sums) {
  const int64_t panels = p.panels(), cout_g = p.cout_g();
  for (int64_t pn = pb; pn < pe; ++pn) {
    const int64_t g = pn / panels, first = pn % panels * kInt8ConvPanelRows;
    for (int64_t r = 0; r < kInt8ConvPanelRows; ++r) {
      const int64_t m = first + r;
      sums[pn * kInt8ConvPanelRows + r] = m < cout_g ? p.weight_sums[g * cout_g + m] : 0;
    }
  }
}

// Widens the weights (pairs) or sums their rows (quads) into `weights`
// (when not nullptr) and pads image n's planes into `padded` (when not
// flat) in ONE parallel region: items are groups of weight panels, then
// groups of input planes (~32K weights or ~64K pixels each), so a conv
// waits at one barrier before its GEMM, not two.
void prepare_operands(const Int8ConvProblem& p, int64_t n, SimdPath path, void* weights,
                      int8_t* padded) {
  const int64_t panels = p.groups * p.panels();
  const int64_t panel_grain = std::max<int64_t>(1, 32768 / p.panel_bytes());
  const int64_t plane_grain = std::max<int64_t>(1, 65536 / (p.height * p.width + 1));
  const int64_t widen_items = weights != nullptr ? (panels + panel_grain - 1) / panel_grain : 0;
  const int64_t pad_items =
      int8_conv_is_flat(p) ? 0 : (p.in_channels + plane_grain - 1) / plane_grain;
  parallel_for(0, widen_items + pad_items, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (i < widen_items) {
        const int64_t pb = i * panel_grain, pe = std::min(panels, (i + 1) * panel_grain);
        switch (path) {
          case SimdPath::kVnni:
            if (p.weight_sums != nullptr) {
              stored_row_sums(p, pb, pe, static_cast<int32_t*>(weights));
            } else {
              int8_conv_vnni_row_sums(p, pb, pe, static_cast<int32_t*>(weights));
            }
            break;
          case SimdPath::kQuadsAvx2:
            if (p.weight_sums != nullptr) {
              stored_row_sums(p, pb, pe, static_cast<int32_t*>(weights));
            } else {
              int8_conv_u8_row_sums(p, pb, pe, static_cast<int32_t*>(weights));
            }
            break;
          case SimdPath::kPairs:
            int8_conv_widen_weights(p, pb, pe, static_cast<int16_t*>(weights));
            break;
        }
      } else {
        const int64_t c = (i - widen_items) * plane_grain;
        int8_conv_pad_image(p, n, c, std::min(p.in_channels, c + plane_grain), padded);
      }
    }
  });
}

}  // namespace
#endif

#if defined(TORCHEDGE_QUANTIZED_ARM)
namespace {
bool use_dot_product() { return optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd; }

// Image by image: every plane's convolution (int8_conv_dot.h), then its
// residual add, plane by plane.
void run_int8_conv_arm(const Int8ConvProblem& p, void* scratch) {
  for (int64_t n = 0; n < p.batch; ++n) {
    run_int8_conv_dot(p, n, scratch);
    if (p.residual == nullptr) continue;
    parallel_for(0, p.out_channels, 1, [&](int64_t begin, int64_t end) {
      for (int64_t m = begin; m < end; ++m) {
        const int64_t offset = (n * p.out_channels + m) * p.pixels();
        add_residual(p, offset, p.out + offset);
      }
    });
  }
}
}  // namespace
#endif

size_t int8_conv_scratch_bytes(const Int8ConvProblem& p) {
#if defined(TORCHEDGE_QUANTIZED_ARM)
  if (use_dot_product()) return int8_conv_dot_scratch_bytes(p);
#endif
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kScalar) {
    const Split s = split_of(p);
    const SimdScratch a = simd_scratch_of(p, s);
    return a.padded + a.shared + static_cast<size_t>(s.workers) * a.slot;
  }
#endif
  (void)p;
  return 0;
}

void run_int8_conv(const Int8ConvProblem& p, void* scratch) {
  if (p.batch == 0 || p.out_channels == 0 || p.pixels() == 0) return;
#if defined(TORCHEDGE_QUANTIZED_ARM)
  if (use_dot_product()) return run_int8_conv_arm(p, scratch);
#endif
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quant_isa() != QuantIsa::kScalar) {
    // The shared weight data (once) and per image the padded copy, in one
    // region (prepare_operands), then the (group, strip) pairs, split once
    // over the workers; each worker owns one scratch slot.
    const Split s = split_of(p);
    const SimdScratch layout = simd_scratch_of(p, s);
    int8_t* padded = static_cast<int8_t*>(scratch);
    void* weights = layout.shared > 0 ? static_cast<char*>(scratch) + layout.padded : nullptr;
    char* slots = static_cast<char*>(scratch) + layout.padded + layout.shared;
    const int64_t strips = strips_of(p);
    // One chunk: strips [b, e) and panels [pb, pe) of group g.
    const Int8RequantizeRun requantize =
        layout.path == SimdPath::kQuadsAvx2 ? int8_conv_requantize_run_for(p) : nullptr;
    auto chunk = [&](const Int8ConvSource& src, int64_t n, int64_t g, int64_t b, int64_t e,
                     int64_t pb, int64_t pe, void* worker_scratch) {
      switch (layout.path) {
        case SimdPath::kVnni:
          int8_conv_avx512vnni(p, src, static_cast<const int32_t*>(weights), n, g, b, e, pb, pe,
                               worker_scratch);
          break;
        case SimdPath::kQuadsAvx2:
          int8_conv_u8_avx2(p, src, static_cast<const int32_t*>(weights), n, g, b, e, pb, pe,
                            requantize, worker_scratch);
          break;
        case SimdPath::kPairs:
          int8_conv_avx2(p, src, static_cast<const int16_t*>(weights), n, g, b, e, pb, pe,
                         worker_scratch);
          break;
      }
    };
    for (int64_t n = 0; n < p.batch; ++n) {
      prepare_operands(p, n, layout.path, n == 0 ? weights : nullptr, padded);
      Int8ConvSource src{p.input + n * p.in_channels * p.height * p.width, p.width,
                         p.height * p.width, true};
      if (!int8_conv_is_flat(p)) src = int8_conv_padded_source(p, padded);
      parallel_for(0, s.workers, 1, [&](int64_t begin, int64_t end) {
        for (int64_t wi = begin; wi < end; ++wi) {
          void* worker_scratch = slots + layout.slot * static_cast<size_t>(wi);
          const int64_t first = s.total * wi / s.workers, last = s.total * (wi + 1) / s.workers;
          if (s.by_panels) {  // panels [first, last) of the only group, every strip
            for (int64_t b = 0; b < strips; b += s.chunk_strips) {
              chunk(src, n, 0, b, std::min(strips, b + s.chunk_strips), first, last,
                    worker_scratch);
            }
            continue;
          }
          for (int64_t i = first; i < last;) {
            const int64_t g = i / strips, b = i % strips;
            const int64_t e = std::min({strips, b + s.chunk_strips, b + (last - i)});
            chunk(src, n, g, b, e, 0, p.panels(), worker_scratch);
            i += e - b;
          }
        }
      });
    }
    return;
  }
#endif
  (void)scratch;
  // Items (image, group, output channel); ~64K multiply-adds per chunk at least.
  const int64_t cout_g = p.cout_g();
  const int64_t work = std::max<int64_t>(1, p.pixels() * p.k());
  const int64_t grain = std::max<int64_t>(1, 65536 / work);
  parallel_for(0, p.batch * p.groups * cout_g, grain, [&](int64_t begin, int64_t end) {
    while (begin < end) {
      const int64_t ng = begin / cout_g, m = begin % cout_g;
      const int64_t m_end = std::min(cout_g, m + (end - begin));
      int8_conv_scalar(p, ng / p.groups, ng % p.groups, m, m_end);
      begin += m_end - m;
    }
  });
}

Error run_int8_conv(KernelContext& ctx, const Int8ConvProblem& p, const char* op) {
  if (p.batch == 0 || p.out_channels == 0) return Error::Ok;
#if defined(TORCHEDGE_QUANTIZED_X86)
  // Winograd where it applies and its scratch fits; else the im2col path.
  if (p.pixels() > 0 && int8_winograd_applies(p)) {
    void* scratch = ctx.allocate_temp(int8_winograd_scratch_bytes(p), 64);
    if (scratch != nullptr) {
      run_int8_winograd(p, scratch);
      return Error::Ok;
    }
  }
#endif
  const size_t bytes = int8_conv_scratch_bytes(p);
  void* scratch = nullptr;
  if (bytes > 0) {
    scratch = ctx.allocate_temp(bytes, 64);
    TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                       "%s: needs %zu bytes of kernel scratch (temp allocator)", op, bytes);
  }
  run_int8_conv(p, scratch);
  return Error::Ok;
}

}  // namespace quantized
}  // namespace torchedge
