// torchedge/kernels/portable/test/decoder_reference.h
//
// Double-precision references of the decoder-LLM operators
// (python/torchedge/llm/ops.py) on plain row-major vectors, shared by the
// portable kernels' tests (decoder_ops_test.cpp here) and the optimized
// kernels' tests (kernels/optimized/test/decoder_ops_test.cpp). Header-only,
// in an anonymous namespace.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace torchedge {
namespace {

struct AttentionShape {
  int64_t batch, tokens, q_heads, kv_heads, dim, context, start;
};

// The caches after the update: rows [start, start + T) replaced by k / v.
inline void reference_cache_update(const AttentionShape& s, const std::vector<float>& kv,
                                   std::vector<float>& cache) {
  const int64_t run = s.tokens * s.kv_heads * s.dim;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t i = 0; i < run; ++i) {
      cache[(b * s.context + s.start) * s.kv_heads * s.dim + i] = kv[b * run + i];
    }
  }
}

// out [B, T, Hq, D] from q and the updated caches, in double.
inline std::vector<float> reference_attention(const AttentionShape& s, const std::vector<float>& q,
                                              const std::vector<float>& k_cache,
                                              const std::vector<float>& v_cache, double scale) {
  std::vector<float> out(q.size());
  const int64_t groups = s.q_heads / s.kv_heads;
  std::vector<double> scores(static_cast<size_t>(s.start + s.tokens));
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t t = 0; t < s.tokens; ++t) {
      for (int64_t h = 0; h < s.q_heads; ++h) {
        const float* qr = &q[((b * s.tokens + t) * s.q_heads + h) * s.dim];
        const int64_t kvh = h / groups, length = s.start + t + 1;
        double max = -INFINITY, sum = 0.0;
        for (int64_t j = 0; j < length; ++j) {
          const float* kr = &k_cache[((b * s.context + j) * s.kv_heads + kvh) * s.dim];
          double dot = 0.0;
          for (int64_t i = 0; i < s.dim; ++i) dot += static_cast<double>(qr[i]) * kr[i];
          scores[j] = dot * scale;
          max = scores[j] > max ? scores[j] : max;
        }
        for (int64_t j = 0; j < length; ++j) sum += (scores[j] = std::exp(scores[j] - max));
        for (int64_t i = 0; i < s.dim; ++i) {
          double acc = 0.0;
          for (int64_t j = 0; j < length; ++j) {
            acc += scores[j] * v_cache[((b * s.context + j) * s.kv_heads + kvh) * s.dim + i];
          }
          out[((b * s.tokens + t) * s.q_heads + h) * s.dim + i] = static_cast<float>(acc / sum);
        }
      }
    }
  }
  return out;
}

inline std::vector<float> reference_rms_norm(const std::vector<float>& x, const std::vector<float>& w,
                                             double eps) {
  const size_t dim = w.size();
  std::vector<float> y(x.size());
  for (size_t r = 0; r * dim < x.size(); ++r) {
    double squares = 0.0;
    for (size_t i = 0; i < dim; ++i) squares += static_cast<double>(x[r * dim + i]) * x[r * dim + i];
    const double inv = 1.0 / std::sqrt(squares / static_cast<double>(dim) + eps);
    for (size_t i = 0; i < dim; ++i) y[r * dim + i] = static_cast<float>(w[i] * (x[r * dim + i] * inv));
  }
  return y;
}

// x [rows = B * T * H, D] with token t = (row / heads) % tokens.
inline std::vector<float> reference_rope(const std::vector<float>& x, const std::vector<float>& cos,
                                         const std::vector<float>& sin, int64_t tokens,
                                         int64_t heads, int64_t dim) {
  std::vector<float> y(x.size());
  const int64_t half = dim / 2;
  for (size_t row = 0; row * dim < x.size(); ++row) {
    const int64_t t = static_cast<int64_t>(row) / heads % tokens;
    const float* xr = &x[row * dim];
    for (int64_t i = 0; i < half; ++i) {
      y[row * dim + i] = static_cast<float>(static_cast<double>(xr[i]) * cos[t * dim + i] -
                                            static_cast<double>(xr[i + half]) * sin[t * dim + i]);
      y[row * dim + i + half] =
          static_cast<float>(static_cast<double>(xr[i + half]) * cos[t * dim + i + half] +
                             static_cast<double>(xr[i]) * sin[t * dim + i + half]);
    }
  }
  return y;
}

inline std::vector<float> reference_silu_mul(const std::vector<float>& gate,
                                             const std::vector<float>& up) {
  std::vector<float> y(gate.size());
  for (size_t i = 0; i < gate.size(); ++i) {
    const double g = gate[i];
    y[i] = static_cast<float>(g / (1.0 + std::exp(-g)) * up[i]);
  }
  return y;
}

}  // namespace
}  // namespace torchedge
