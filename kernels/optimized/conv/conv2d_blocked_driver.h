// torchedge/kernels/optimized/conv/conv2d_blocked_driver.h
//
// The loop nest of conv2d_blocked (conv2d_blocked.h) as a template over one
// ISA's micro-kernel:
//
//   struct Tile {
//     static constexpr int kMaxPixels;   // pixels per tile (<= 8)
//     // `pixels` (1..kMaxPixels) output pixels of one row x `blocks` (1..4)
//     // blocks of 16 output channels: pixel p's first tap in input channel
//     // block 0 at a.x + p * 16 * stride (stride 1 or 2; see BlockedTile).
//     static void compute(int pixels, int blocks, int stride, const BlockedTile& a);
//     // Whether compute() runs its blocks one after another (so a group
//     // may be split into slices of fewer blocks at no cost per FMA).
//     static constexpr bool kBlocksInSequence;
//   };
//
// Why one base pointer and a compile-time pixel stride: with a pointer per
// pixel GCC ran out of general registers, parked pointers in vector ones
// and spilled accumulators (the tiles ran ~1.5x slower).
//
// Include this header ONLY from one ISA's translation unit
// (conv2d_blocked_<isa>.cpp) and instantiate it with a Tile in that file's
// anonymous namespace (the rule of gemm/sgemm_driver.h: every function here
// is a template or static, so each ISA gets its own copies).
//
// Per image: pad the input into scratch (zero borders) when the
// convolution pads; then tasks of (64-channel weight group, band of output
// pixels), threaded. Within a task, input channels go in chunks whose
// weights (<= ~192 KiB) stay in L2 while the band's tiles reuse them; the
// accumulators of a tile start from the residual (or zero) in the first
// chunk, from the partial sums stored in the output otherwise, and get bias
// and clamp in the last (so y may be the residual itself). Which loop is outer follows the larger operand: when the weights
// outweigh the input (ResNet's 7x7 and 14x14 layers), each group's weights
// stream once over a few wide bands; otherwise (the 56x56 layers) a band of
// 48 pixels stays cached while every group passes over it.
#pragma once

#include <cstring>

#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace optimized {
namespace conv2d_blocked_driver {

// One tile call's operands (pointers already at the tile's group, chunk and
// first pixel).
struct BlockedTile {
  const float* x;          // input (padded): the tile's first pixel's first tap in the
                           // chunk's first channel block
  int64_t x_block_stride;  // floats between input channel blocks
  int64_t x_row_stride;    // floats between input rows (kernel rows)
  int64_t x_tap_stride;    // floats between kernel columns: 16, or P * 16 gathered
  const float* w;          // packed weights at (group, the chunk's first block)
  int64_t cin_blocks;      // input channel blocks in this chunk
  int64_t kernel_h, kernel_w;
  float* y;                // output at (the group's first block, first pixel)
  int64_t y_block_stride;  // floats between output channel blocks
  const float* bias;       // at the group's first channel, or null
  const float* residual;   // laid out as y (may be y itself), or null: the first
                           // chunk's accumulators start from it
  float lo, hi;
  bool accumulate;         // start from y's partial sums, not the residual (or zeros)
  bool finish;             // the last chunk: bias and clamp
  BlockedActivation activation = BlockedActivation::kNone;  // the last chunk: after
                           // the clamp (the AVX-512 tile; the others' callers
                           // run it over y afterwards)
  int64_t plain_channels;  // 0, or a plain NCHW input's channels (< 16): then x is
                           // channel 0's plane, x_block_stride floats per plane,
                           // pixels `stride` floats apart, and w the dense
                           // weights (dense_plain_weights), w_tap_stride floats
                           // per tap
  int64_t w_tap_stride;
};

static inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

// Weights per chunk of input channels: 32 KiB, so they stay in L1 while a
// band's tiles pass over them (a 3x3 layer's chunk is one block, 36 KiB);
// the partial sums go through the output between chunks. Against 192 KiB
// (L2) chunks, min of alternating runs: ResNet-50's 1x1 512->2048 @7 895
// -> 704 us, 3x3 s2 512 @14 2419 -> 2204, 1x1 256->128 @56 1709 -> 1553.
constexpr int64_t kChunkWeightFloats = 8 * 1024;
// Output pixels per band when the input is the larger operand.
constexpr int64_t kBandPixels = 48;
// The largest band whose chunks may be single kernel rows (see run).
constexpr int64_t kRowChunkMaxPixels = 64;

// Output rows narrower than this are gathered (below): row-by-row tiles
// of a 7-pixel row are 4 + 3 pixels wide, gathered ones 6 or 5. Unless the
// gathered copy would exceed kGatherMaxBytes (KH * KW times the input's
// output-sized share; ResNet-50's largest is 1.8 MB): the rows then come
// from the padded copy, which fits the temp allocator where that does.
constexpr int64_t kGatherBelowWidth = 16;
constexpr int64_t kGatherMaxBytes = int64_t{4} << 20;

// Copies one image's taps into [Cb, KH, KW, OH * OW, 16]: element (c, r, s,
// q) is the input pixel tap (r, s) of output pixel q reads (zero in the
// padding), so the tiles read every tap as one flat row of pixels.
static void gather_taps(const Conv2dShape& s, const float* x, float* out) {
  const int64_t cb = s.in_channels / kConvBlock, pixels = s.out_h * s.out_w;
  parallel_for(0, cb, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const float* plane = x + c * s.in_h * s.in_w * kConvBlock;
      float* dst = out + c * s.kernel_h * s.kernel_w * pixels * kConvBlock;
      for (int64_t r = 0; r < s.kernel_h; ++r) {
        for (int64_t t = 0; t < s.kernel_w; ++t, dst += pixels * kConvBlock) {
          for (int64_t oh = 0; oh < s.out_h; ++oh) {
            const int64_t ih = oh * s.stride_h - s.pad_h + r;
            float* row = dst + oh * s.out_w * kConvBlock;
            for (int64_t ow = 0; ow < s.out_w; ++ow) {
              const int64_t iw = ow * s.stride_w - s.pad_w + t;
              if (ih < 0 || ih >= s.in_h || iw < 0 || iw >= s.in_w) {
                std::memset(row + ow * kConvBlock, 0, sizeof(float) * kConvBlock);
              } else {
                std::memcpy(row + ow * kConvBlock, plane + (ih * s.in_w + iw) * kConvBlock,
                            sizeof(float) * kConvBlock);
              }
            }
          }
        }
      }
    }
  });
}

// Brings [p, p + bytes) toward L2 (prefetcht1), one hint per 64-byte line.
// The driver spreads the next weight chunk's lines over the current chunk's
// tiles: the first tile of a chunk otherwise loads 36 KiB of weights at 4
// vectors per 24 FMAs, far faster than L3 or memory deliver them (perf:
// ResNet's 3x3 512 @7 tiles stalled on those loads; its 9.4 MB of filters
// never stay cached).
static inline void prefetch_to_l2(const float* p, int64_t bytes) {
  const char* c = reinterpret_cast<const char*>(p);
  for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(c + off, 0, 2);
}

// A plain input's packed weights [groups, 1, KH, KW, 16 ci, 64 co] hold
// only `channels` of each tap's 16 input-channel rows: their rows lie 4 KiB
// apart, so a tile's 49 taps of a 7x7 stem all fall in the same few L1 sets
// and miss (Zen 3's 8-way 32 KiB L1). Copied to [groups, KH, KW, channels,
// 64] (ResNet's stem: 37.6 KiB, contiguous) they stream instead: AMD Zen 3,
// 1 thread, ResNet-50's stem in conv_bench 4184-5486 -> 3028-3277 us.
static void dense_plain_weights(const Conv2dShape& s, int64_t groups, const float* w,
                                float* out) {
  const int64_t taps = s.kernel_h * s.kernel_w;
  for (int64_t t = 0; t < groups * taps; ++t) {
    std::memcpy(out + t * s.in_channels * kConvBlockGroup, w + t * kConvBlock * kConvBlockGroup,
                sizeof(float) * static_cast<size_t>(s.in_channels * kConvBlockGroup));
  }
}

// Whether the driver handles this convolution's strides (the tiles take a
// compile-time pixel stride of 1 or 2; the op falls back otherwise).
static inline bool strides_supported(const Conv2dShape& s) {
  return s.stride_h >= 1 && (s.stride_w == 1 || s.stride_w == 2);
}

// Copies one image's `planes` x [H, W, `lanes`] input (blocked: Cb planes
// of 16 lanes; plain: Cin planes of 1) into planes of [H + 2 ph, W + 2 pw,
// lanes] with zero borders.
static void pad_input(const Conv2dShape& s, int64_t planes, int64_t lanes, const float* x,
                      float* out) {
  const int64_t ph = s.in_h + 2 * s.pad_h, pw = s.in_w + 2 * s.pad_w;
  parallel_for(0, planes, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      float* plane = out + c * ph * pw * lanes;
      const float* src = x + c * s.in_h * s.in_w * lanes;
      std::memset(plane, 0, sizeof(float) * s.pad_h * pw * lanes);
      for (int64_t h = 0; h < s.in_h; ++h) {
        float* row = plane + (s.pad_h + h) * pw * lanes;
        std::memset(row, 0, sizeof(float) * s.pad_w * lanes);
        std::memcpy(row + s.pad_w * lanes, src + h * s.in_w * lanes, sizeof(float) * s.in_w * lanes);
        std::memset(row + (s.pad_w + s.in_w) * lanes, 0, sizeof(float) * s.pad_w * lanes);
      }
      std::memset(plane + (s.pad_h + s.in_h) * pw * lanes, 0, sizeof(float) * s.pad_h * pw * lanes);
    }
  });
}

// How run() cuts one image into tasks of (slice of output channel blocks,
// band of output pixels). A slice is a 64-channel weight group or, for a
// tile that runs its blocks in sequence, a part of one, so that every task
// costs the same; where the weights stream (groups_outer) the band count
// makes the tasks a multiple of the threads and `grain` hands each thread
// whole equal shares. Why: MobileNetV2's 7x7 layers have 3-20 groups, some
// partial (160 channels: 4 + 4 + 2 blocks), and at 2 threads parallel_for
// cut 10 tasks into 5 chunks of 2: 3 chunks against 2.
struct TaskSplit {
  int64_t slices, slice_blocks, bands, grain;
};

template <typename Tile>
TaskSplit split_tasks(bool groups_outer, int64_t cout_blocks, int64_t units, int64_t threads,
                      int64_t input_outer_bands) {
  TaskSplit t;
  t.slice_blocks = 4;
  if (Tile::kBlocksInSequence && groups_outer && threads > 1 && cout_blocks % 4 != 0) {
    t.slice_blocks = cout_blocks % 2 == 0 ? 2 : 1;
  }
  t.slices = ceil_div(cout_blocks, t.slice_blocks);
  t.grain = 1;
  if (!groups_outer) {  // many small tasks: dynamic scheduling balances them
    t.bands = input_outer_bands;
    return t;
  }
  t.bands = min64(units, max64(1, ceil_div(4 * threads, t.slices)));
  while (t.bands < units && (t.slices * t.bands) % threads != 0) ++t.bands;
  const int64_t tasks = t.slices * t.bands;
  if (tasks > 4 * threads && tasks % threads == 0) {
    for (int64_t per_thread = 4; per_thread >= 1; --per_thread) {
      if (tasks % (threads * per_thread) == 0) {
        t.grain = tasks / (threads * per_thread);
        break;
      }
    }
  }
  return t;
}

template <typename Tile>
Error run(KernelContext& ctx, const Conv2dShape& s, const float* x, const float* w,
          const float* bias, const float* residual, float* y, const Conv2dClamp& clamp,
          BlockedActivation activation = BlockedActivation::kNone) {
  if (!strides_supported(s)) return Error::NotSupported;
  // A first layer's plain NCHW input (fewer than 16 channels, one block of
  // packed weights): lanes of 1 float instead of 16.
  const bool plain = s.in_channels < kConvBlock;
  const int64_t lanes = plain ? 1 : kConvBlock;
  const int64_t cin_blocks = plain ? 1 : s.in_channels / kConvBlock;
  const int64_t planes = plain ? s.in_channels : cin_blocks;
  const int64_t cout_blocks = s.out_channels / kConvBlock;
  const int64_t groups = ceil_div(s.out_channels, kConvBlockGroup);
  const int64_t taps = s.kernel_h * s.kernel_w;
  const bool padded = s.pad_h != 0 || s.pad_w != 0;
  const int64_t ph = s.in_h + 2 * s.pad_h, pw = s.in_w + 2 * s.pad_w;
  const int64_t pixels = s.out_h * s.out_w;
  // How the tiles read the input: a 1x1 stride-1 convolution as one flat
  // row of all pixels; narrow maps gathered per tap (gather_taps), then
  // flat too; the others row by row from a zero-padded copy (a tile never
  // spans two rows).
  const bool direct = taps == 1 && s.stride_h == 1 && s.stride_w == 1 && !padded;
  const bool gathered = !direct && !plain && s.out_w < kGatherBelowWidth &&
                        cin_blocks * taps * pixels * kConvBlock * 4 <= kGatherMaxBytes;
  const bool flat = direct || gathered;
  const int64_t plane = gathered ? taps * pixels * kConvBlock : ph * pw * lanes;
  float* scratch = nullptr;
  if (gathered || padded) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(planes * plane);
    scratch = static_cast<float*>(ctx.allocate_temp(bytes, 64));
    TE_CHECK_OR_RETURN(scratch != nullptr, Error::MemoryAllocationFailed,
                       "conv2d_blocked: no room for the %zu-byte %s input", bytes,
                       gathered ? "gathered" : "padded");
  }
  const float* const packed_w = w;
  if (plain) {
    const size_t bytes = sizeof(float) * static_cast<size_t>(groups * taps * s.in_channels *
                                                              kConvBlockGroup);
    float* dense = static_cast<float*>(ctx.allocate_temp(bytes, 64));
    TE_CHECK_OR_RETURN(dense != nullptr, Error::MemoryAllocationFailed,
                       "conv2d_blocked: no room for the %zu-byte dense first-layer weights", bytes);
    dense_plain_weights(s, groups, packed_w, dense);
    w = dense;
  }
  // Floats per (group, input block) of w, and between its taps.
  const int64_t w_tap_stride = plain ? s.in_channels * kConvBlockGroup : kConvBlock * kConvBlockGroup;
  const int64_t rows = flat ? 1 : s.out_h, row_pixels = flat ? pixels : s.out_w;
  const int64_t chunk = max64(1, kChunkWeightFloats / (taps * kConvBlock * kConvBlockGroup));
  const int64_t weight_floats = groups * cin_blocks * taps * w_tap_stride;
  const bool groups_outer = weight_floats > planes * ph * pw * lanes;
  const int64_t threads = static_cast<int64_t>(num_threads());
  // A band: a range of pixels of the flat row, or of output rows.
  const int64_t units = flat ? pixels : rows;
  const int64_t flat_band_pixels =
      max64(Tile::kMaxPixels, kBandPixels / Tile::kMaxPixels * Tile::kMaxPixels);
  const TaskSplit split = split_tasks<Tile>(groups_outer, cout_blocks, units, threads,
                                           flat ? ceil_div(pixels, flat_band_pixels)
                                                : ceil_div(rows, max64(1, kBandPixels / row_pixels)));
  const int64_t bands = split.bands, slices = split.slices, slice_blocks = split.slice_blocks;
  // Where the bands are kBandPixels-sized pieces of a flat row, each is a
  // whole number of full tiles (NEON's 5-pixel tiles: 45 pixels, 9 x 5, not
  // 48 = 8 x 5 + 2 x 4; AVX2's and AVX-512's 6 divide 48 already).
  const int64_t near_equal_units = ceil_div(units, bands);
  const int64_t band_units =
      flat && !groups_outer ? ceil_div(near_equal_units, Tile::kMaxPixels) * Tile::kMaxPixels
                            : near_equal_units;
  // Where one block's weights exceed a chunk (3x3: 36 KiB, more than a
  // 32 KiB L1) and stream past small bands (the weights outweigh the input
  // and a band's partial sums stay in L1: ResNet's 7x7 outputs), a chunk is
  // one kernel row of one block (3x3: 12 KiB). AMD Zen 3, 1 thread,
  // conv_bench: 3x3 512 @7 4245-4514 -> 3354-3628 us, 3x3 s2 512 @14
  // 3732-4341 -> 3117-3652; in ResNet-18 its 7x7 layers 8-10 % faster. The
  // 14x14 and larger layers ran 8-15 % slower that way (more partial sums
  // through the output, weights already in L2) and keep whole blocks.
  const bool row_chunks = !plain && groups_outer &&
                          taps * kConvBlock * kConvBlockGroup > kChunkWeightFloats &&
                          band_units * (flat ? 1 : row_pixels) <= kRowChunkMaxPixels;
  // Prefetching the next chunk's weights pays where they stream from memory
  // past the convolution's taps: the 3x3 layers whose weights outweigh the
  // input, and the stem. Elsewhere the hints only compete with the tiles'
  // loads. AMD Zen 3, 1 thread, conv_bench --cold, min of 4-6 alternating
  // runs with / without: r50 3x3 512 @7 3135 / 3610 us, 3x3 s2 512 @14
  // 3278 / 3603, 3x3 256 @14 2881 / 2870-3320; but 3x3 64 @56 2836 / 2717,
  // 1x1 64->256 @56 1471 / 1319, 1024->256 @14 1230 / 1173, MobileNetV2's
  // 1x1 960->320 @7 409 / 387, 576->96 @14 296 / 278 (its other 1x1
  // layers 2-4 % faster too; r50's 1x1 @7 level within 2 %).
  const bool prefetch_weights = plain || (groups_outer && taps > 1);
  const int64_t row_pieces = row_chunks ? s.kernel_h : 1;
  const int64_t piece_rows = s.kernel_h / row_pieces;
  const int64_t y_block_stride = pixels * kConvBlock;
  const int stride = flat ? 1 : static_cast<int>(s.stride_w);
  for (int64_t n = 0; n < s.batch; ++n) {
    const float* xn = x + n * planes * s.in_h * s.in_w * lanes;
    if (gathered) {
      gather_taps(s, xn, scratch);
      xn = scratch;
    } else if (padded) {
      pad_input(s, planes, lanes, xn, scratch);
      xn = scratch;
    }
    float* yn = y + n * cout_blocks * y_block_stride;
    const float* rn = residual == nullptr ? nullptr : residual + n * cout_blocks * y_block_stride;
    parallel_for(0, slices * bands, split.grain, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t slice = groups_outer ? t / bands : t % slices;
        const int64_t band = groups_outer ? t % bands : t / slices;
        const int64_t u_begin = band * band_units, u_end = min64(units, u_begin + band_units);
        if (u_begin >= u_end) continue;
        // The slice's first block: group g, block b0 of its 4.
        const int64_t first_block = slice * slice_blocks;
        const int64_t g = first_block / 4, b0 = first_block % 4;
        const int blocks = static_cast<int>(min64(slice_blocks, cout_blocks - first_block));
        for (int64_t piece = 0; piece < ceil_div(cin_blocks, chunk) * row_pieces; ++piece) {
          const int64_t c0 = piece / row_pieces * chunk, r0 = piece % row_pieces * piece_rows;
          BlockedTile a;
          a.x_block_stride = plane;
          a.x_row_stride = gathered ? s.kernel_w * pixels * kConvBlock : pw * lanes;
          a.x_tap_stride = gathered ? pixels * kConvBlock : lanes;
          a.plain_channels = plain ? s.in_channels : 0;
          a.w = w + ((g * cin_blocks + c0) * taps + r0 * s.kernel_w) * w_tap_stride +
                b0 * kConvBlock;
          a.w_tap_stride = w_tap_stride;
          a.cin_blocks = min64(chunk, cin_blocks - c0);
          a.kernel_h = piece_rows;
          a.kernel_w = s.kernel_w;
          a.y_block_stride = y_block_stride;
          a.bias = bias == nullptr ? nullptr : bias + first_block * kConvBlock;
          a.lo = clamp.min;
          a.hi = clamp.max;
          a.activation = activation;
          a.accumulate = piece > 0;
          a.finish = piece + 1 == ceil_div(cin_blocks, chunk) * row_pieces;
          // The flat row's pixel range [q0, q1), or whole output rows.
          const int64_t row_begin = flat ? 0 : u_begin, row_end = flat ? 1 : u_end;
          // The next chunk's weights (the next group's first, after the
          // last), a slice per tile call of this pass.
          const int64_t chunk_floats =
              a.cin_blocks * piece_rows * s.kernel_w * w_tap_stride;
          const float* next = a.w + chunk_floats;
          const int64_t next_bytes =
              prefetch_weights ? 4 * max64(0, min64(chunk_floats, weight_floats - (next - w))) : 0;
          const int64_t calls = (row_end - row_begin) *
                                ceil_div(flat ? u_end - u_begin : row_pixels, Tile::kMaxPixels);
          const int64_t prefetch_step = ceil_div(ceil_div(next_bytes, calls), 64) * 64;
          int64_t prefetched = 0;
          for (int64_t r = row_begin; r < row_end; ++r) {
            const int64_t q0 = flat ? u_begin : 0, count = flat ? u_end - u_begin : row_pixels;
            // Near-equal tiles (56 pixels: 6 x 6 + 4 x 5, not 9 x 6 + 2).
            const int64_t tiles = ceil_div(count, Tile::kMaxPixels);
            int64_t q = q0;
            for (int64_t i = 0; i < tiles; ++i) {
              if (prefetched < next_bytes) {
                prefetch_to_l2(next + prefetched / 4, min64(prefetch_step, next_bytes - prefetched));
                prefetched += prefetch_step;
              }
              const int64_t size = count / tiles + (i < count % tiles ? 1 : 0);
              a.x = xn + c0 * plane + r0 * a.x_row_stride +
                    (flat ? q : r * s.stride_h * pw + q * stride) * lanes;
              const int64_t out_offset =
                  first_block * y_block_stride + (r * row_pixels + q) * kConvBlock;
              a.y = yn + out_offset;
              a.residual = rn == nullptr ? nullptr : rn + out_offset;
              Tile::compute(static_cast<int>(size), blocks, stride, a);
              q += size;
            }
          }
        }
      }
    });
  }
  return Error::Ok;
}

}  // namespace conv2d_blocked_driver
}  // namespace optimized
}  // namespace torchedge
