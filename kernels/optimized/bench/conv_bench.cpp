// conv_bench: the optimized float convolution on ResNet's 3x3 stride-1
// layers, im2col SGEMM vs Winograd F(2x2, 3x3) (conv/winograd.h), and on
// ResNet-50's layers of every kind, NCHW (conv2d_gemm: Winograd where it
// applies, else im2col) vs channel-blocked (conv/conv2d_blocked.h), and on
// MobileNetV2's depthwise 3x3 layers ("dw"), NCHW (conv2d_depthwise) vs
// channel-blocked (conv/depthwise_blocked.h), and on ResNet's blocked 3x3
// stride-1 layers ("wb"), direct vs Winograd (conv/winograd_blocked.h); best
// of repeated runs (not a test; run by hand). Layers with a residual also
// time the blocked convolution writing its output over the residual (as
// the memory planner places them); --cold evicts the caches before each run.
//
//   conv_bench [--threads N] [--seconds S] [--filter TEXT] [--cold]
//
// GFLOP/s count the direct convolution's 2 * Cout * Cin * 9 * OH * OW for
// both paths, so the columns compare wall time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/optimized/conv/conv2d.h"
#include "kernels/optimized/conv/conv2d_blocked.h"
#include "kernels/optimized/conv/depthwise_blocked.h"
#include "kernels/optimized/conv/winograd.h"
#include "kernels/optimized/conv/winograd_blocked.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/bench/bench_clock.h"
#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

using namespace torchedge;
using namespace torchedge::optimized;
using torchedge::bench::seconds_now;

namespace {

// --cold: before each timed run, write a buffer larger than the last-level
// cache, so operands come from memory as they do inside a model (whose
// weights and activations do not stay cached between layers).
std::vector<float>* g_evict = nullptr;

void evict_caches() {
  if (g_evict == nullptr) return;
  for (float& v : *g_evict) v += 1.0f;
}

template <typename F>
double best_seconds(double budget, F&& run) {
  double best = 1e30;
  const double start = seconds_now();
  for (int runs = 0; runs < 3 || seconds_now() - start < budget; ++runs) {
    evict_caches();
    const double t0 = seconds_now();
    if (run() != Error::Ok) {
      fprintf(stderr, "convolution failed\n");
      exit(1);
    }
    const double t = seconds_now() - t0;
    best = t < best ? t : best;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 1;
  double budget = 0.5;
  const char* filter = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--threads")) threads = static_cast<size_t>(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--seconds")) budget = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--filter")) filter = argv[i + 1];
  }
  std::vector<float> evict;
  if (argc > 1 && !strcmp(argv[argc - 1], "--cold")) {
    evict.assign(size_t{24} << 20, 0.0f);  // 96 MB
    g_evict = &evict;
  }
  if (set_num_threads(threads) != Error::Ok) return 1;
  struct Layer {
    const char* name;
    int64_t channels, size;
  };
  const Layer layers[] = {{"3x3 64 @56", 64, 56},
                          {"3x3 128 @28", 128, 28},
                          {"3x3 256 @14", 256, 14},
                          {"3x3 512 @7", 512, 7}};
  std::vector<uint8_t> temp(size_t{32} << 20);
  printf("%zu thread(s)\n", threads);
  for (const Layer& l : layers) {
    if (filter != nullptr && strstr(l.name, filter) == nullptr) continue;
    Conv2dShape s{1, l.channels, l.size, l.size, l.channels, l.size, l.size, 3, 3, 1, 1,
                  1, 1, 1, 1, 1};
    std::vector<float> x(l.channels * l.size * l.size, 0.5f), w(l.channels * l.channels * 9, 0.1f);
    std::vector<float> b(l.channels, 0.0f), y(x.size());
    auto run = [&](bool winograd) {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      return winograd ? detail::conv2d_winograd_avx2(ctx, s, x.data(), w.data(), b.data(),
                                                     y.data(), Conv2dClamp{}, nullptr)
                      : conv2d_im2col(ctx, s, x.data(), w.data(), b.data(), y.data());
    };
    const double flops = 2.0 * l.channels * l.channels * 9 * l.size * l.size;
    const double t_im2col = best_seconds(budget, [&] { return run(false); });
    const double t_winograd = best_seconds(budget, [&] { return run(true); });
    printf("%-14s im2col %7.1f GFLOP/s %8.1f us   winograd %7.1f GFLOP/s %8.1f us   %.2fx%s\n",
           l.name, flops / t_im2col * 1e-9, t_im2col * 1e6, flops / t_winograd * 1e-9,
           t_winograd * 1e6, t_im2col / t_winograd,
           detail::winograd_applies(s) ? "" : "  (conv2d_gemm keeps im2col here)");
  }
  struct Conv {
    const char* name;
    int64_t cin, cout, size, kernel, stride;
    bool residual;
  };
  const Conv convs[] = {
      {"r50 stem 7x7 s2 3->64 @224", 3, 64, 224, 7, 2, false},
      {"r50 1x1 64->256 @56 +add", 64, 256, 56, 1, 1, true},
      {"r50 1x1 256->64 @56", 256, 64, 56, 1, 1, false},
      {"r50 1x1 256->128 @56", 256, 128, 56, 1, 1, false},
      {"r50 1x1 128->512 @28 +add", 128, 512, 28, 1, 1, true},
      {"r50 1x1 1024->256 @14", 1024, 256, 14, 1, 1, false},
      {"r50 1x1 2048->512 @7", 2048, 512, 7, 1, 1, false},
      {"r50 1x1 512->2048 @7 +add", 512, 2048, 7, 1, 1, true},
      {"r50 1x1 s2 1024->2048 @14", 1024, 2048, 14, 1, 2, false},
      {"r50 1x1 s2 256->512 @56", 256, 512, 56, 1, 2, false},
      {"r50 1x1 s2 512->1024 @28", 512, 1024, 28, 1, 2, false},
      {"r50 3x3 s2 128 @56", 128, 128, 56, 3, 2, false},
      {"r50 3x3 s2 512 @14", 512, 512, 14, 3, 2, false},
      {"r50 3x3 64 @56", 64, 64, 56, 3, 1, false},
      {"r50 3x3 256 @14", 256, 256, 14, 3, 1, false},
      {"r50 3x3 512 @7", 512, 512, 7, 3, 1, false},
      // MobileNetV2's 1x1 layers (its 24-channel ones run as 32 blocked).
      {"mv2 1x1 16->96 @112", 16, 96, 112, 1, 1, false},
      {"mv2 1x1 32->192 @28", 32, 192, 28, 1, 1, false},
      {"mv2 1x1 96->576 @14", 96, 576, 14, 1, 1, false},
      {"mv2 1x1 576->96 @14 +add", 576, 96, 14, 1, 1, true},
      {"mv2 1x1 160->960 @7", 160, 960, 7, 1, 1, false},
      {"mv2 1x1 960->160 @7 +add", 960, 160, 7, 1, 1, true},
      {"mv2 1x1 960->320 @7", 960, 320, 7, 1, 1, false},
      {"mv2 1x1 320->1280 @7", 320, 1280, 7, 1, 1, false},
  };
  for (const Conv& l : convs) {
    if (filter != nullptr && strstr(l.name, filter) == nullptr) continue;
    const int64_t pad = l.kernel / 2, out = (l.size + 2 * pad - l.kernel) / l.stride + 1;
    Conv2dShape s{1, l.cin, l.size, l.size, l.cout, out, out, l.kernel, l.kernel,
                  l.stride, l.stride, pad, pad, 1, 1, 1};
    // The same values in either layout: the timing does not depend on where they sit.
    std::vector<float> x(l.cin * l.size * l.size, 0.5f), w(l.cout * l.cin * l.kernel * l.kernel, 0.01f);
    // Packed filters: whole 64-channel groups and 16-channel input blocks (a
    // plain stem input's 3 channels take one block).
    std::vector<float> wb(((l.cout + 63) / 64) * 64 * ((l.cin + 15) / 16) * 16 * l.kernel * l.kernel,
                          0.01f);
    std::vector<float> b(l.cout, 0.1f), r(l.cout * out * out, 0.2f), y(r.size());
    Conv2dClamp relu;
    relu.min = 0.0f;
    auto run = [&](bool blocked) {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      const float* residual = l.residual ? r.data() : nullptr;
      return blocked ? conv2d_blocked(ctx, s, x.data(), wb.data(), b.data(), residual, y.data(), relu)
                     : conv2d_gemm(ctx, s, x.data(), w.data(), b.data(), y.data(), relu, residual);
    };
    const double flops = 2.0 * l.cout * l.cin * l.kernel * l.kernel * out * out;
    double t_nchw = 1e30, t_blocked = 1e30;
    for (int round = 0; round < 4; ++round) {  // alternating: both see the same host phases
      const double a = best_seconds(budget / 4, [&] { return run(false); });
      const double c = best_seconds(budget / 4, [&] { return run(true); });
      t_nchw = a < t_nchw ? a : t_nchw;
      t_blocked = c < t_blocked ? c : t_blocked;
    }
    printf("%-27s nchw %7.1f GFLOP/s %8.1f us   blocked %7.1f GFLOP/s %8.1f us   %.2fx\n", l.name,
           flops / t_nchw * 1e-9, t_nchw * 1e6, flops / t_blocked * 1e-9, t_blocked * 1e6,
           t_nchw / t_blocked);
    if (l.residual) {  // the output written over the residual (y aliases it)
      double t_inplace = 1e30;
      for (int round = 0; round < 4; ++round) {
        const double a = best_seconds(budget / 4, [&] { return run(true); });
        const double c = best_seconds(budget / 4, [&] {
          MemoryAllocator allocator(temp.data(), temp.size());
          KernelContext ctx(&allocator);
          return conv2d_blocked(ctx, s, x.data(), wb.data(), b.data(), r.data(), r.data(), relu);
        });
        t_blocked = a < t_blocked ? a : t_blocked;
        t_inplace = c < t_inplace ? c : t_inplace;
      }
      printf("%-27s   in place over the residual %8.1f us (separate output %8.1f us)\n", "",
             t_inplace * 1e6, t_blocked * 1e6);
    }
  }
  struct Depthwise {
    const char* name;
    int64_t channels, size, stride;
  };
  const Depthwise depthwise[] = {
      {"mv2 dw 32 @112", 32, 112, 1},   {"mv2 dw s2 96 @112", 96, 112, 2},
      {"mv2 dw 144 @56", 144, 56, 1},   {"mv2 dw s2 144 @56", 144, 56, 2},
      {"mv2 dw 192 @28", 192, 28, 1},   {"mv2 dw s2 192 @28", 192, 28, 2},
      {"mv2 dw 384 @14", 384, 14, 1},   {"mv2 dw 576 @14", 576, 14, 1},
      {"mv2 dw s2 576 @14", 576, 14, 2}, {"mv2 dw 960 @7", 960, 7, 1},
  };
  for (const Depthwise& l : depthwise) {
    if (filter != nullptr && strstr(l.name, filter) == nullptr) continue;
    const int64_t c = l.channels, out = (l.size + 2 - 3) / l.stride + 1;
    Conv2dShape s{1, c, l.size, l.size, c, out, out, 3, 3, l.stride, l.stride, 1, 1, 1, 1, c};
    DepthwiseBlockedShape sb{1, c / 16, l.size, l.size, out, out, 3, 3, l.stride, l.stride, 1, 1};
    std::vector<float> x(c * l.size * l.size, 0.5f), w(c * 9, 0.1f), b(c, 0.1f), y(c * out * out);
    Conv2dClamp relu6;
    relu6.min = 0.0f;
    relu6.max = 6.0f;
    auto run = [&](bool blocked) {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      return blocked ? conv2d_depthwise_blocked(sb, x.data(), w.data(), b.data(), y.data(), relu6)
                     : conv2d_depthwise(ctx, s, x.data(), w.data(), b.data(), y.data(), relu6);
    };
    double t_nchw = 1e30, t_blocked = 1e30;
    for (int round = 0; round < 4; ++round) {  // alternating, as above
      const double a = best_seconds(budget / 4, [&] { return run(false); });
      const double d = best_seconds(budget / 4, [&] { return run(true); });
      t_nchw = a < t_nchw ? a : t_nchw;
      t_blocked = d < t_blocked ? d : t_blocked;
    }
    // Bytes: the input read and the output written once.
    const double bytes = 4.0 * c * (l.size * l.size + out * out);
    printf("%-27s nchw %8.1f us   blocked %8.1f us %6.1f GB/s   %.2fx\n", l.name, t_nchw * 1e6,
           t_blocked * 1e6, bytes / t_blocked * 1e-9, t_nchw / t_blocked);
  }
  // The audio models' 1-d convolutions ("a1d"; [1, C, L] as a 1 x L plane):
  // conv2d_gemm against one SGEMM over the same im2col matrix built
  // beforehand (the GEMM's own speed on that shape, packing included).
  struct Conv1d {
    const char* name;
    int64_t cin, cout, length, kernel, stride, pad, groups;
  };
  const Conv1d conv1d[] = {
      {"a1d w2v 1->512 k10 s5 @16000", 1, 512, 16000, 10, 5, 0, 1},
      {"a1d w2v 512 k3 s2 @3199", 512, 512, 3199, 3, 2, 0, 1},
      {"a1d w2v 512 k3 s2 @1599", 512, 512, 1599, 3, 2, 0, 1},
      {"a1d w2v 512 k3 s2 @799", 512, 512, 799, 3, 2, 0, 1},
      {"a1d w2v 512 k2 s2 @199", 512, 512, 199, 2, 2, 0, 1},
      {"a1d w2v pos 256 k128 g16 @49", 256, 256, 49, 128, 1, 64, 16},
      {"a1d whisper 80->256 k3 @3000", 80, 256, 3000, 3, 1, 1, 1},
      {"a1d whisper 256 k3 s2 @3000", 256, 256, 3000, 3, 2, 1, 1},
  };
  for (const Conv1d& l : conv1d) {
    if (filter != nullptr && strstr(l.name, filter) == nullptr) continue;
    const int64_t out = (l.length + 2 * l.pad - l.kernel) / l.stride + 1;
    const int64_t cin_g = l.cin / l.groups, k = cin_g * l.kernel;
    Conv2dShape s{1, l.cin, 1, l.length, l.cout, 1, out, 1, l.kernel, 1, l.stride, 0, l.pad,
                  1, 1, l.groups};
    std::vector<float> x(l.cin * l.length), w(l.cout * k), b(l.cout, 0.1f), y(l.cout * out);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) * 0.01f;
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 89) * 0.001f;
    // Group 0's im2col matrix [K, OL].
    std::vector<float> cols(k * out, 0.0f);
    for (int64_t ci = 0; ci < cin_g; ++ci) {
      for (int64_t t = 0; t < l.kernel; ++t) {
        for (int64_t o = 0; o < out; ++o) {
          const int64_t i = o * l.stride - l.pad + t;
          cols[(ci * l.kernel + t) * out + o] = i >= 0 && i < l.length ? x[ci * l.length + i] : 0.0f;
        }
      }
    }
    auto run_conv = [&] {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      return conv2d_gemm(ctx, s, x.data(), w.data(), b.data(), y.data());
    };
    auto run_gemm = [&] {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      SgemmProblem p;
      p.m = l.cout / l.groups, p.n = out, p.k = k;
      p.a = MatrixView{w.data(), k, 1};
      p.b = MatrixView{cols.data(), out, 1};
      p.c = y.data();
      p.ldc = out;
      p.row_bias = b.data();
      for (int64_t g = 0; g < l.groups; ++g) {
        const Error err = sgemm(ctx, p);
        if (err != Error::Ok) return err;
      }
      return Error::Ok;
    };
    const double flops = 2.0 * l.cout * k * out;
    double t_conv = 1e30, t_gemm = 1e30;
    for (int round = 0; round < 4; ++round) {  // alternating, as above
      const double a = best_seconds(budget / 4, run_conv);
      const double g = best_seconds(budget / 4, run_gemm);
      t_conv = a < t_conv ? a : t_conv;
      t_gemm = g < t_gemm ? g : t_gemm;
    }
    printf("%-30s conv %7.1f GFLOP/s %8.1f us   sgemm on im2col %7.1f GFLOP/s %8.1f us\n",
           l.name, flops / t_conv * 1e-9, t_conv * 1e6, flops / t_gemm * 1e-9, t_gemm * 1e6);
  }
  // ResNet's 3x3 stride-1 layers on blocked activations ("wb"): the direct
  // blocked convolution vs Winograd on blocked tiles (conv/winograd_blocked.h).
  const Conv winograd[] = {
      {"wb 3x3 64 @56 +add", 64, 64, 56, 3, 1, true},
      {"wb 3x3 128 @28", 128, 128, 28, 3, 1, false},
      {"wb 3x3 256 @14 +add", 256, 256, 14, 3, 1, true},
      {"wb 3x3 512 @7", 512, 512, 7, 3, 1, false},
  };
  for (const Conv& l : winograd) {
    if (filter != nullptr && strstr(l.name, filter) == nullptr) continue;
    Conv2dShape s{1, l.cin, l.size, l.size, l.cout, l.size, l.size, 3, 3, 1, 1, 1, 1, 1, 1, 1};
    const int64_t groups = (l.cout + 63) / 64;
    std::vector<float> x(l.cin * l.size * l.size, 0.5f), wb(groups * 64 * l.cin * 9, 0.01f);
    std::vector<float> u(16 * groups * 64 * l.cin, 0.01f);
    std::vector<float> b(l.cout, 0.1f), r(l.cout * l.size * l.size, 0.2f), y(r.size());
    Conv2dClamp relu;
    relu.min = 0.0f;
    const float* residual = l.residual ? r.data() : nullptr;
    auto run = [&](bool wino) {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      return wino ? conv2d_winograd_blocked(ctx, s, x.data(), u.data(), b.data(), residual,
                                            y.data(), relu)
                  : conv2d_blocked(ctx, s, x.data(), wb.data(), b.data(), residual, y.data(), relu);
    };
    const double flops = 2.0 * l.cout * l.cin * 9 * l.size * l.size;
    double t_direct = 1e30, t_wino = 1e30;
    for (int round = 0; round < 4; ++round) {  // alternating, as above
      const double a = best_seconds(budget / 4, [&] { return run(false); });
      const double d = best_seconds(budget / 4, [&] { return run(true); });
      t_direct = a < t_direct ? a : t_direct;
      t_wino = d < t_wino ? d : t_wino;
    }
    printf("%-27s blocked %7.1f GFLOP/s %8.1f us   winograd %7.1f GFLOP/s %8.1f us   %.2fx\n",
           l.name, flops / t_direct * 1e-9, t_direct * 1e6, flops / t_wino * 1e-9, t_wino * 1e6,
           t_direct / t_wino);
  }
  // Blocked convolutions that conv2d_blocked may run on AMX ("amx"): the
  // audio models' 1-d layers (1 x L planes) and CNN layers with enough
  // pixels and output channels; the AMX kernel (split weights per call
  // included) against the AVX-512 one, alternated, each with its GELU /
  // plain epilogue as the model has it. Only where the CPU has AMX-BF16.
  struct AmxLayer {
    const char* name;
    int64_t cin, cout, h, w, kh, kw, stride, pad;
    bool gelu;
  };
  const AmxLayer amx_layers[] = {
      {"amx w2v 512 k3 s2 @3199", 512, 512, 1, 3199, 1, 3, 2, 0, true},
      {"amx w2v 512 k3 s2 @1599", 512, 512, 1, 1599, 1, 3, 2, 0, true},
      {"amx w2v 512 k3 s2 @799", 512, 512, 1, 799, 1, 3, 2, 0, true},
      {"amx w2v 512 k3 s2 @399", 512, 512, 1, 399, 1, 3, 2, 0, true},
      {"amx whisper 80->256 k3 @3000", 80, 256, 1, 3000, 1, 3, 1, 1, true},
      {"amx whisper 256 k3 s2 @3000", 256, 256, 1, 3000, 1, 3, 2, 1, true},
      {"amx mv2 1x1 32->144 @56", 32, 144, 56, 56, 1, 1, 1, 0, false},
      {"amx mv2 1x1 32->192 @28", 32, 192, 28, 28, 1, 1, 1, 0, false},
      {"amx r50 1x1 64->256 @56", 64, 256, 56, 56, 1, 1, 1, 0, false},
      {"amx r50 1x1 256->128 @56", 256, 128, 56, 56, 1, 1, 1, 0, false},
      {"amx r50 1x1 128->512 @28", 128, 512, 28, 28, 1, 1, 1, 0, false},
      {"amx r50 3x3 s2 128 @56", 128, 128, 56, 56, 3, 3, 2, 1, false},
  };
  for (const AmxLayer& l : amx_layers) {
    if (!amx_usable()) break;
    if (filter != nullptr && strstr(l.name, filter) == nullptr) continue;
    const int64_t oh = (l.h + 2 * (l.kh > 1 ? l.pad : 0) - l.kh) / (l.kh > 1 ? l.stride : 1) + 1;
    const int64_t ow = (l.w + 2 * l.pad - l.kw) / l.stride + 1;
    const int64_t pad_h = l.kh > 1 ? l.pad : 0, stride_h = l.kh > 1 ? l.stride : 1;
    Conv2dShape s{1, l.cin, l.h, l.w, l.cout, oh, ow, l.kh, l.kw, stride_h, l.stride, pad_h, l.pad,
                  1, 1, 1};
    std::vector<float> x(l.cin * l.h * l.w), w((l.cout + 63) / 64 * 64 * l.cin * l.kh * l.kw);
    std::vector<float> b(l.cout, 0.1f), y(l.cout * oh * ow);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) * 0.01f;
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 89) * 0.001f;
    auto run = [&](bool on_amx) {
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      Conv2dClamp none;
      const BlockedActivation act = l.gelu ? BlockedActivation::kGelu : BlockedActivation::kNone;
      return on_amx ? detail::conv2d_blocked_amx(ctx, s, x.data(), w.data(), b.data(), nullptr,
                                                 y.data(), none, act)
                    : detail::conv2d_blocked_avx512(ctx, s, x.data(), w.data(), b.data(), nullptr,
                                                    y.data(), none, act);
    };
    const double flops = 2.0 * l.cout * l.cin * l.kh * l.kw * oh * ow;
    double t_amx = 1e30, t_avx = 1e30;
    for (int round = 0; round < 4; ++round) {  // alternating, as above
      const double a = best_seconds(budget / 4, [&] { return run(true); });
      const double v = best_seconds(budget / 4, [&] { return run(false); });
      t_amx = a < t_amx ? a : t_amx;
      t_avx = v < t_avx ? v : t_avx;
    }
    printf("%-30s amx %7.1f GFLOP/s %8.1f us   avx512 %7.1f GFLOP/s %8.1f us   %.2fx\n", l.name,
           flops / t_amx * 1e-9, t_amx * 1e6, flops / t_avx * 1e-9, t_avx * 1e6, t_avx / t_amx);
  }
  return 0;
}
