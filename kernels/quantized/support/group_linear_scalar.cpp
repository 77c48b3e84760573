// Portable loops of linear_q4a / linear_q8c (support/group_linear.h): the
// formulas written out, one output at a time. Any CPU; the reference every
// SIMD loop is tested against.
#include <cmath>
#include <cstring>

#include "kernels/quantized/support/group_linear_loops.h"
#include "runtime/core/half.h"

namespace torchedge {
namespace quantized {
float group_half_at(const uint16_t* p, int64_t i) {
  Half h;
  h.bits = p[i];
  return static_cast<float>(h);
}

namespace {

int code_at(const GroupLinearWeight& w, int64_t n, int64_t k) {
  if (w.format == GroupWeightFormat::kInt8Channel) {
    return static_cast<int8_t>(w.codes[n * w.k + k]);
  }
  return (w.codes[n * (w.k / 2) + k / 2] >> ((k & 1) * 4)) & 0xF;
}

float output_int8(const GroupActs& a, const GroupLinearWeight& w, int64_t r, int64_t n) {
  const int64_t g = w.group_size, groups = w.groups();
  const int8_t* xq = a.q + r * w.k;
  float acc = 0.0f;
  for (int64_t j = 0; j < groups; ++j) {
    int32_t dot = 0;
    for (int64_t k = j * g; k < (j + 1) * g; ++k) dot += xq[k] * code_at(w, n, k);
    const float s = a.s[r * groups + j];
    if (w.format == GroupWeightFormat::kInt8Channel) {
      acc += s * static_cast<float>(dot);
    } else {
      const float scale = group_half_at(w.scales16, n * groups + j),
                  min = group_half_at(w.mins16, n * groups + j);
      acc +=
          s * (scale * static_cast<float>(dot) + min * static_cast<float>(a.sums[r * groups + j]));
    }
  }
  return w.format == GroupWeightFormat::kInt8Channel ? w.row_scales[n] * acc : acc;
}

float output_float(const GroupActs& a, const GroupLinearWeight& w, int64_t r, int64_t n) {
  const int64_t g = w.group_size, groups = w.groups();
  const float* x = a.x + r * w.k;
  float acc = 0.0f;
  for (int64_t j = 0; j < groups; ++j) {
    float dot = 0.0f, sum = 0.0f;
    for (int64_t k = j * g; k < (j + 1) * g; ++k) {
      dot += x[k] * static_cast<float>(code_at(w, n, k));
      sum += x[k];
    }
    if (w.format == GroupWeightFormat::kInt8Channel) {
      acc += dot;
    } else {
      acc += group_half_at(w.scales16, n * groups + j) * dot + group_half_at(w.mins16, n * groups + j) * sum;
    }
  }
  return w.format == GroupWeightFormat::kInt8Channel ? w.row_scales[n] * acc : acc;
}

}  // namespace

void group_linear_scalar(const GroupActs& a, const GroupLinearWeight& w, const float* bias,
                         float* out, int64_t n_begin, int64_t n_end) {
  for (int64_t r = 0; r < a.m; ++r) {
    for (int64_t n = n_begin; n < n_end; ++n) {
      const float y = a.bits == 8 ? output_int8(a, w, r, n) : output_float(a, w, r, n);
      out[r * w.n + n] = y + (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

}  // namespace quantized
}  // namespace torchedge
