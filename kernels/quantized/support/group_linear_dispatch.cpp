// run_group_linear (support/group_linear.h): builds the activation
// operands once per call (support/group_linear_loops.h), picks the loops of
// the ISA and the GEMV (M <= group_gemv_rows()) or GEMM form, and splits
// the output columns across the shared pool. Scratch, carved from the one
// block the caller allocates:
//
//   bits 8    q [M, K] | s, sums, s_sums [M, G]            (every path)
//   bits 32   x_sums [M, G]                                (GEMV)
//   GEMV      q_lo, q_hi, lane_s, lane_c [M, gemv_bytes]   (bits 8)
//             x_lo, x_hi [M, gemv_bytes] floats            (bits 32)
//   GEMM      one panel per worker slot
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/group_linear_loops.h"

namespace torchedge {
namespace quantized {
namespace {

constexpr size_t kAlign = 64;

size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

enum class Form { kScalar, kGemv, kGemm };

Form form_of(const GroupLinearCall& call, QuantIsa isa) {
  if (isa == QuantIsa::kScalar) return Form::kScalar;
  return call.m <= group_gemv_rows(isa) ? Form::kGemv : Form::kGemm;
}

GroupGemmLoops gemm_loops(QuantIsa isa, int bits) {
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (isa == QuantIsa::kAvx512Vnni) return group_gemm_avx512vnni(bits);
  return group_gemm_avx2(bits);
#else
  (void)isa;
  (void)bits;
  return {};
#endif
}

int64_t row_bytes(const GroupLinearWeight& w) {
  return w.format == GroupWeightFormat::kAffine4 ? w.k / 2 : w.k;
}

// Offsets of every scratch array (0 = absent) and the total.
struct Layout {
  size_t q = 0, s = 0, sums = 0, s_sums = 0, x_sums = 0;
  size_t q_lo = 0, q_hi = 0, lane_s = 0, lane_c = 0, x_lo = 0, x_hi = 0;
  size_t panels = 0, panel_bytes = 0, total = 0;
  int64_t gemv_bytes = 0;

  Layout(const GroupLinearCall& call, QuantIsa isa, size_t threads) {
    const GroupLinearWeight& w = call.weight;
    const size_t m = static_cast<size_t>(call.m), mg = m * static_cast<size_t>(w.groups());
    size_t at = kAlign;  // offsets start past 0 so 0 means "absent"
    auto take = [&](size_t bytes) {
      const size_t offset = at;
      at += aligned(bytes);
      return offset;
    };
    if (call.activation_bits == 8) {
      q = take(m * static_cast<size_t>(w.k));
      s = take(mg * 4);
      sums = take(mg * 4);
      s_sums = take(mg * 4 + 64);  // slack: the GEMV reads whole vectors of it
    }
    const Form form = form_of(call, isa);
    if (form == Form::kGemv) {
      gemv_bytes = (row_bytes(w) + 63) / 64 * 64;
      const size_t row = m * static_cast<size_t>(gemv_bytes);
      if (call.activation_bits == 8) {
        q_lo = take(row);
        q_hi = take(row);
        lane_s = take(row);
        lane_c = take(row);
      } else {
        x_sums = take(mg * 4 + 64);
        x_lo = take(row * 4);
        x_hi = take(row * 4);
      }
    } else if (form == Form::kGemm) {
      const GroupGemmLoops loops = gemm_loops(isa, call.activation_bits);
      const int64_t strips = (w.n + loops.columns - 1) / loops.columns;
      const size_t slots =
          threads < static_cast<size_t>(strips) ? threads : static_cast<size_t>(strips);
      panel_bytes = aligned(loops.panel_bytes(w, call.activation_bits));
      panels = take(panel_bytes * (slots > 0 ? slots : 1));
    }
    total = at;
  }
};

template <typename T>
T* at(void* base, size_t offset) {
  return offset == 0 ? nullptr : reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

// The GEMV operands of row r (see group_linear_loops.h): activations at
// each weight byte's k, per-lane s and VNNI's u8 offset, zero-padded.
void gemv_operands(const GroupLinearCall& call, const GroupActs& a, int64_t r, int8_t* q_lo,
                   int8_t* q_hi, float* lane_s, int32_t* lane_c, float* x_lo, float* x_hi) {
  const GroupLinearWeight& w = call.weight;
  const bool affine = w.format == GroupWeightFormat::kAffine4;
  const int64_t bytes = row_bytes(w), padded = a.gemv_bytes, g = w.group_size;
  const int64_t per_byte = affine ? 2 : 1;
  if (a.bits == 8) {
    const int8_t* q = a.q + r * w.k;
    for (int64_t b = 0; b < padded; ++b) {
      q_lo[b] = b < bytes ? q[per_byte * b] : 0;
      q_hi[b] = b < bytes && affine ? q[2 * b + 1] : 0;
    }
    for (int64_t l = 0; l < padded / 4; ++l) {
      const int64_t k0 = 4 * l * per_byte;
      lane_s[l] = 4 * l < bytes ? a.s[r * w.groups() + k0 / g] : 0.0f;
      int32_t sum = 0;
      for (int t = 0; t < 4; ++t) sum += q_lo[4 * l + t];
      lane_c[l] = -128 * sum;
    }
  } else {
    const float* x = call.x + r * w.k;
    for (int64_t b = 0; b < padded; ++b) {
      x_lo[b] = b < bytes ? x[per_byte * b] : 0.0f;
      x_hi[b] = b < bytes && affine ? x[2 * b + 1] : 0.0f;
    }
  }
}

// Fills `a` (bits 8: quantizes the rows) from the scratch of `layout`.
GroupActs activations(const GroupLinearCall& call, QuantIsa isa, const Layout& layout,
                      void* scratch) {
  const GroupLinearWeight& w = call.weight;
  const int64_t groups = w.groups();
  GroupActs a{};
  a.m = call.m;
  a.k = w.k;
  a.group_size = w.group_size;
  a.bits = call.activation_bits;
  a.x = call.x;
  a.gemv_bytes = layout.gemv_bytes;
  if (a.bits == 8) {
    int8_t* q = at<int8_t>(scratch, layout.q);
    float* s = at<float>(scratch, layout.s);
    int32_t* sums = at<int32_t>(scratch, layout.sums);
    float* s_sums = at<float>(scratch, layout.s_sums);
    quantize_rows_per_group(call.x, call.m, w.k, w.group_size, q, s, sums, isa);
    for (int64_t i = 0; i < call.m * groups; ++i) s_sums[i] = s[i] * static_cast<float>(sums[i]);
    a.q = q;
    a.s = s;
    a.sums = sums;
    a.s_sums = s_sums;
  } else if (layout.x_sums != 0) {
    float* x_sums = at<float>(scratch, layout.x_sums);
    for (int64_t r = 0; r < call.m; ++r) {
      for (int64_t j = 0; j < groups; ++j) {
        float sum = 0.0f;
        for (int64_t i = 0; i < w.group_size; ++i) sum += call.x[r * w.k + j * w.group_size + i];
        x_sums[r * groups + j] = sum;
      }
    }
    a.x_sums = x_sums;
  }
  if (layout.gemv_bytes > 0) {
    const int64_t stride = layout.gemv_bytes;
    int8_t* q_lo = at<int8_t>(scratch, layout.q_lo);
    int8_t* q_hi = at<int8_t>(scratch, layout.q_hi);
    float* lane_s = at<float>(scratch, layout.lane_s);
    int32_t* lane_c = at<int32_t>(scratch, layout.lane_c);
    float* x_lo = at<float>(scratch, layout.x_lo);
    float* x_hi = at<float>(scratch, layout.x_hi);
    a.q_lo = q_lo;
    a.q_hi = q_hi;
    a.lane_s = lane_s;
    a.lane_c = lane_c;
    a.x_lo = x_lo;
    a.x_hi = x_hi;
    for (int64_t r = 0; r < call.m; ++r) {
      if (a.bits == 8) {
        gemv_operands(call, a, r, q_lo + r * stride, q_hi + r * stride, lane_s + r * stride / 4,
                      lane_c + r * stride / 4, nullptr, nullptr);
      } else {
        gemv_operands(call, a, r, nullptr, nullptr, nullptr, nullptr, x_lo + r * stride,
                      x_hi + r * stride);
      }
    }
  }
  return a;
}

// Output rows per chunk of the GEMV's split: chunks of >= ~32 KiB of
// weights (a thread handoff costs little next to them), their count a
// multiple of the threads (192 rows in 3 chunks would leave one thread
// idle a third of the time), whole blocks of 4 rows; a weight under
// 128 KiB on one thread (SmolLM2's 69 KiB k / v projection: 2.2 us on one
// thread, 2.0 on two when the second vCPU is idle, and a scheduler slice
// when it is not; linear_8da4w_packed found the same).
int64_t gemv_grain(const GroupLinearCall& call, Form form, size_t threads) {
  const GroupLinearWeight& w = call.weight;
  const int64_t t = threads > 0 ? static_cast<int64_t>(threads) : 1;
  if (form == Form::kScalar) return std::max<int64_t>(1, (int64_t{1} << 16) / (call.m * w.k));
  const int64_t bytes =
      w.n * (row_bytes(w) + (w.format == GroupWeightFormat::kAffine4 ? 4 * w.groups() : 4));
  if (bytes < (int64_t{128} << 10)) return w.n;
  int64_t chunks = std::max<int64_t>(1, bytes >> 15);
  chunks = std::min((chunks + t - 1) / t * t, 4 * t);
  const int64_t rows = (w.n + chunks - 1) / chunks;
  return (rows + 3) / 4 * 4;
}

}  // namespace

size_t group_linear_scratch_bytes(const GroupLinearCall& call, QuantIsa isa, size_t threads) {
  if (call.m <= 0 || call.weight.n <= 0 || call.weight.k <= 0) return 0;
  return Layout(call, isa, threads).total;
}

void run_group_linear(const GroupLinearCall& call, QuantIsa isa, size_t threads, void* scratch) {
  const GroupLinearWeight& w = call.weight;
  if (call.m <= 0 || w.n <= 0) return;
  if (w.k == 0) {  // no features: the output is the bias
    for (int64_t i = 0; i < call.m * w.n; ++i) call.out[i] = call.bias ? call.bias[i % w.n] : 0.0f;
    return;
  }
  const Layout layout(call, isa, threads);
  const GroupActs a = activations(call, isa, layout, scratch);
  const Form form = form_of(call, isa);
  if (form == Form::kGemm) {
    const GroupGemmLoops loops = gemm_loops(isa, call.activation_bits);
    const int64_t strips = (w.n + loops.columns - 1) / loops.columns;
    char* panels = at<char>(scratch, layout.panels);
    const int64_t slots =
        static_cast<int64_t>(threads) < strips ? static_cast<int64_t>(threads) : strips;
    parallel_for_slots(0, strips, 1, slots, [&](int64_t begin, int64_t end, int64_t slot) {
      loops.run(a, w, call.bias, call.out, begin, end, panels + slot * layout.panel_bytes);
    });
    return;
  }
  auto columns = group_linear_scalar;
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (form == Form::kGemv) {
    columns = isa == QuantIsa::kAvx512Vnni ? group_gemv_avx512vnni : group_gemv_avx2;
  }
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  // isa is kScalar off x86: int8 activations take sdot where the CPU has it
  // (any M, the plain layouts; the float ones stay scalar).
  if (call.activation_bits == 8 && optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) {
    columns = group_linear_dotprod;
  }
#endif
  parallel_for(0, w.n, gemv_grain(call, form, threads),
               [&](int64_t begin, int64_t end) { columns(a, w, call.bias, call.out, begin, end); });
}

}  // namespace quantized
}  // namespace torchedge
