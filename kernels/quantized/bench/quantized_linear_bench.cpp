// Throughput of the quantized linear kernels (a benchmark, not a test):
// 4-bit weight-only and 8da4w GEMV (M = 1) / GEMM (M = 32) with
// N = K = 2048 and group sizes 32 / 128, the int8 GEMM of quantized_linear,
// the int8 GEMM of linear_dynamic_int8 on BERT-style shapes (M = 128
// tokens, K/N in {384, 1536}; compare with build/sgemm_bench's "bert"
// lines), with and without its per-tensor activation quantization,
// and a float32 GEMV baseline (a plain loop the compiler vectorizes; the
// same bytes-per-weight yardstick, not a tuned BLAS). One thread (the
// shared pool's default). Usage: quantized_linear_bench [iterations]
//
// Reports ms per call, GFLOP/s (2 * M * N * K / time) and the weight
// stream in GB/s (bytes of packed weights + scales per call / time).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int4_dispatch.h"
#include "kernels/quantized/support/int8_gemm.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/quant_isa.h"

using namespace torchedge::quantized;

namespace {

template <typename F>
double ms_per_call(int iterations, F&& f) {
  f();  // warm-up
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) f();
  const std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - start;
  return d.count() / iterations;
}

// The fastest of `iterations` calls (this VM is noisy; min-of-N compares
// kernels, as build/sgemm_bench does).
template <typename F>
double best_ms(int iterations, F&& f) {
  f();  // warm-up
  double best = 1e30;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    const std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - start;
    if (d.count() < best) best = d.count();
  }
  return best;
}

void report(const char* what, int64_t m, int64_t n, int64_t k, double ms, double weight_bytes) {
  const double gflops = 2.0 * m * n * k / (ms * 1e6);
  std::printf("%-34s M=%-3lld %8.3f ms %8.1f GFLOP/s %7.1f GB/s weights\n", what,
              static_cast<long long>(m), ms, gflops, weight_bytes / (ms * 1e6));
}

void float_gemv_baseline(const float* x, const float* w, float* out, int64_t m, int64_t n,
                         int64_t k) {
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      const float* wr = w + c * k;
      const float* xr = x + r * k;
      for (int64_t i = 0; i < k; i += 8) {
        for (int j = 0; j < 8; ++j) acc[j] += xr[i + j] * wr[i + j];
      }
      out[r * n + c] = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
    }
  }
}

// linear_dynamic_int8's compute on BERT-MiniLM's linear shapes (best of
// `iterations`).
void bert_shapes(int iterations) {
  struct Shape { const char* name; int64_t m, n, k; };
  const Shape shapes[] = {{"bert qkv", 128, 384, 384},
                          {"bert ffn1", 128, 1536, 384},
                          {"bert ffn2", 128, 384, 1536}};
  std::mt19937 gen(2);
  std::uniform_int_distribution<int> i8(-127, 127);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const Shape& s : shapes) {
    std::vector<float> x(s.m * s.k), out(s.m * s.n), ws(s.n, 0.001f), bias(s.n, 0.1f);
    for (float& v : x) v = normal(gen);
    std::vector<int8_t> w(s.n * s.k);
    for (int8_t& v : w) v = static_cast<int8_t>(i8(gen));
    std::vector<int16_t> x16(int8_gemm_x_elements(s.m, s.k));
    std::vector<uint64_t> scratch(int8_gemm_f32_scratch_bytes(s.m, s.n, s.k) / 8 + 8);
    void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) &
                                            ~uintptr_t{63});
    Int8GemmF32Problem p{x16.data(), w.data(), ws.data(), bias.data(), 0.0f, s.m, s.n, s.k,
                         out.data()};
    int32_t zp = 0;
    quantize_tensor_int8_shifted(x.data(), s.m, s.k, x16.data(), &p.x_scale, &zp);
    char label[64];
    std::snprintf(label, sizeof(label), "int8 GEMM f32 out %s %lldx%lld", s.name,
                  static_cast<long long>(s.n), static_cast<long long>(s.k));
    report(label, s.m, s.n, s.k, best_ms(iterations, [&] { run_int8_gemm_f32(p, aligned); }),
           s.n * s.k * 1.0);
    std::snprintf(label, sizeof(label), "  + activation quant %s", s.name);
    report(label, s.m, s.n, s.k, best_ms(iterations, [&] {
             quantize_tensor_int8_shifted(x.data(), s.m, s.k, x16.data(), &p.x_scale, &zp);
             run_int8_gemm_f32(p, aligned);
           }), s.n * s.k * 1.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 20;
  const int64_t n = 2048, k = 2048;
  std::printf("ISA: %s, N = K = %lld, 1 thread\n", quant_isa_name(quant_isa()),
              static_cast<long long>(k));
  std::mt19937 gen(1);
  std::uniform_int_distribution<int> byte(0, 255), i8(-127, 127);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::vector<uint8_t> packed(n * k / 2);
  for (uint8_t& b : packed) b = static_cast<uint8_t>(byte(gen));
  std::vector<float> scales(n * (k / 32), 0.01f), bias(n, 0.1f);
  std::vector<float> x(32 * k), out(32 * n);
  for (float& v : x) v = real(gen);
  const int64_t ms_list[] = {1, 32};
  for (int64_t g : {int64_t{32}, int64_t{128}}) {
    const Int4Weight w{packed.data(), scales.data(), nullptr, n, k, g};
    const double weight_bytes = n * k / 2.0 + n * (k / g) * 4.0;
    for (int64_t m : ms_list) {
      char label[64];
      std::snprintf(label, sizeof(label), "int4 weight-only g%lld", static_cast<long long>(g));
      report(label, m, n, k, ms_per_call(iterations, [&] {
               run_int4_linear_f32({x.data(), nullptr, m}, w, bias.data(), out.data());
             }), weight_bytes);
      std::vector<int8_t> q(m * k);
      std::vector<float> xs(m);
      std::vector<int32_t> zp(m), sums(m * (k / g));
      std::snprintf(label, sizeof(label), "8da4w (incl. act. quant) g%lld",
                    static_cast<long long>(g));
      report(label, m, n, k, ms_per_call(iterations, [&] {
               for (int64_t r = 0; r < m; ++r) {
                 quantize_row_int8_per_token(x.data() + r * k, k, g, q.data() + r * k, &xs[r],
                                             &zp[r], sums.data() + r * (k / g));
               }
               run_int8_int4_linear({q.data(), xs.data(), zp.data(), sums.data(), m}, w,
                                    bias.data(), out.data());
             }), weight_bytes);
    }
  }
  std::vector<float> wf(n * k);
  for (float& v : wf) v = real(gen);
  std::vector<int8_t> w8(n * k);
  for (int8_t& v : w8) v = static_cast<int8_t>(i8(gen));
  std::vector<int16_t> x16(32 * k);
  for (int16_t& v : x16) v = static_cast<int16_t>(i8(gen));
  std::vector<int8_t> out8(32 * n);
  std::vector<float> ws(n, 0.001f);
  for (int64_t m : ms_list) {
    report("float32 GEMV/GEMM baseline (loop)", m, n, k, ms_per_call(iterations, [&] {
             float_gemv_baseline(x.data(), wf.data(), out.data(), m, n, k);
           }), n * k * 4.0);
    const Int8GemmProblem p{x16.data(), w8.data(), ws.data(), bias.data(), m, n, k,
                            0.05f, 2.0f, 0.0f, -128.0f, 127.0f, out8.data()};
    report("int8 GEMM + requant (quantized_linear)", m, n, k,
           ms_per_call(iterations, [&] { run_int8_gemm_requant(p); }), n * k * 1.0 + n * 4.0);
  }
  bert_shapes(iterations);
  return 0;
}
