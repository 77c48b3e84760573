// torchedge/kernels/quantized/support/int8_gemm_f32.h
//
// int8 x int8 GEMM with exact int32 accumulation and a float32 epilogue:
// the compute of torchedge::linear_dynamic_int8.out.
//
//   acc[m, n] = sum_k x[m, k] * w[n, k]                       (int32, exact)
//   out[m, n] = float(acc) * (x_scale * w_scales[n]) + bias[n]  (float32, no FMA)
//
// x: the activations already quantized and shifted by their zero point,
// int16 in [-255, 255], in "row panels": rows in groups of
// kInt8GemmPanelRows, within a panel K in pairs, within a pair the panel's
// rows, within a row the pair's two k (int8_gemm_x_index); rows past M and
// k past K (K odd) hold 0. So the AVX2 tile broadcasts its rows' pairs
// from one contiguous stream. w: int8 [N, K] row-major (any int8, incl.
// -128). K <= kMaxInt8GemmK keeps every sum inside int32. Every ISA
// computes the same int32 sums and the same float epilogue, so all ISAs
// agree bit for bit.
//
// w may instead be stored already in strips (`w_packed`, the layout of
// torchedge::linear_dynamic_int8_packed, int8_gemm_w_packed_index): columns
// in strips of kInt8GemmStrip, within a strip K in pairs (K rounded up to
// even), within a pair the strip's columns, within a column the pair's two
// k; columns past N and k past K hold 0.
//
// AVX2 (support/x86/int8_gemm_f32_avx2.cpp): per call, each 16-column
// strip of w is sign-extended to int16 and packed with K pairs interleaved
// (from the strip layout, a plain sign-extending copy)
// (vpmaddwd: pair products summed into int32, never saturating for these
// ranges, unlike vpmaddubsw), then a 6x16 register tile walks M. Scalar:
// plain loops (any CPU).
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchedge {
namespace quantized {

/// |x| <= 255, |w| <= 128: K * 255 * 128 < 2^31.
constexpr int64_t kMaxInt8GemmK = 65536;

struct Int8GemmF32Problem {
  const int16_t* x;        // int8_gemm_x_elements(M, K), see above; not owned
  const int8_t* w;         // [N, K], or the strip layout when w_packed; not owned
  const float* w_scales;   // [N]; not owned
  const float* bias;       // [N] or nullptr; not owned
  float x_scale;
  int64_t m, n, k;
  float* out;              // [M, N] row-major; not owned
  bool w_packed = false;   // w in strips (int8_gemm_w_packed_index)
};

constexpr int64_t kInt8GemmPanelRows = 6;

/// round_up(k, 2): the k extent of Int8GemmF32Problem::x.
inline int64_t int8_gemm_x_stride(int64_t k) { return (k + 1) & ~int64_t{1}; }

/// Elements (int16) of Int8GemmF32Problem::x for m rows of k.
inline int64_t int8_gemm_x_elements(int64_t m, int64_t k) {
  return (m + kInt8GemmPanelRows - 1) / kInt8GemmPanelRows * kInt8GemmPanelRows *
         int8_gemm_x_stride(k);
}

/// Index of activation (row, col) in Int8GemmF32Problem::x.
inline int64_t int8_gemm_x_index(int64_t row, int64_t col, int64_t k) {
  const int64_t panel = row / kInt8GemmPanelRows, in_panel = row % kInt8GemmPanelRows;
  return (panel * int8_gemm_x_stride(k) + (col & ~int64_t{1})) * kInt8GemmPanelRows +
         in_panel * 2 + (col & 1);
}

constexpr int64_t kInt8GemmStrip = 16;

/// Elements (int8) of a weight [N, K] in the strip layout.
inline int64_t int8_gemm_w_packed_elements(int64_t n, int64_t k) {
  return (n + kInt8GemmStrip - 1) / kInt8GemmStrip * kInt8GemmStrip * int8_gemm_x_stride(k);
}

/// Index of weight (col, k) in the strip layout (see above).
inline int64_t int8_gemm_w_packed_index(int64_t col, int64_t k, int64_t k_total) {
  const int64_t strip = col / kInt8GemmStrip, in_strip = col % kInt8GemmStrip;
  return (strip * int8_gemm_x_stride(k_total) + (k & ~int64_t{1})) * kInt8GemmStrip +
         in_strip * 2 + (k & 1);
}

/// Bytes of scratch run_int8_gemm_f32 needs for this problem on the current
/// thread setting (packed weight strips and int32 tiles per worker).
size_t int8_gemm_f32_scratch_bytes(int64_t m, int64_t n, int64_t k);

/// Computes `p` with the best ISA, split over the shared thread pool.
/// `scratch`: int8_gemm_f32_scratch_bytes() bytes, 64-byte aligned, owned
/// by the caller (the kernel's temp allocator); unused on the scalar path.
void run_int8_gemm_f32(const Int8GemmF32Problem& p, void* scratch);

/// Computes `count` problems sharing M, K and the activations (x, x_scale)
/// in one split over the thread pool (AVX2: one parallel_for for all their
/// strips). `scratch`: int8_gemm_f32_scratch_bytes(m, sum of n, k) bytes.
void run_int8_gemm_f32_batch(const Int8GemmF32Problem* ps, size_t count, void* scratch);

/// The scalar reference for columns [n_begin, n_end) (tests compare the SIMD
/// path to it bit for bit).
void int8_gemm_f32_scalar(const Int8GemmF32Problem& p, int64_t n_begin, int64_t n_end);

#if defined(TORCHEDGE_QUANTIZED_ARM)
/// AArch64 dot-product (support/arm/int8_gemm_f32_dotprod.cpp): p's columns
/// of 16-column strips [strip_begin, strip_end) from the raw int8
/// activations xq (row r at xq + r * x_stride, x_stride = round_up(K, 16),
/// zeros past K: quantize_tensor_int8) and their zero point; p.x is not
/// read. The scalar loop's bits. Call only when best_arm_isa() >= kDotProd.
void int8_gemm_f32_dotprod(const Int8GemmF32Problem& p, const int8_t* xq, int64_t x_stride,
                           int32_t x_zero_point, int64_t strip_begin, int64_t strip_end);
#endif

#if defined(TORCHEDGE_QUANTIZED_X86)
/// Bytes of one AVX2 worker's scratch, and the AVX2 path for 16-column
/// strips [strip_begin, strip_end) using that worker scratch.
size_t int8_gemm_f32_avx2_worker_bytes(int64_t m, int64_t k);
void int8_gemm_f32_avx2(const Int8GemmF32Problem& p, int64_t strip_begin, int64_t strip_end,
                        void* worker_scratch);
#endif

}  // namespace quantized
}  // namespace torchedge
