// sgemm_bench: GFLOP/s of the optimized SGEMM (not a test; run by hand).
//
//   sgemm_bench [--threads N] [--isa scalar|avx2|avx512] [--seconds S] [--filter TEXT]
//               [--prepacked 1]
//
// Prints one line per shape (best time of repeated runs): square sizes, the
// GEMMs of ResNet-50's convolutions (M = Cout, N = output pixels, K = Cin *
// kh * kw) and the matrix products of the transformers as their programs
// run them: addmm with a [K, N] weight and a column bias, bmm over heads.
// "cold" shapes cycle B through copies that together exceed the L3 cache,
// as a model's weights arrive from memory (BERT's 42 MB of weights do not
// stay cached between layers); the others run with hot caches.
// --prepacked 1 gives B of the unbatched shapes packed ahead of time
// (SgemmProblem::b_prepacked, 16-wide strips, 64-byte aligned), as
// torchedge::linear_prepacked runs it.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/optimized/gemm/sgemm.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/memory_allocator.h"

using namespace torchedge;
using namespace torchedge::optimized;

namespace {

struct Shape {
  const char* name;
  int64_t m, n, k;
  bool b_transposed = false;  // B read as the transpose of an N x K weight (linear)
  bool bias = false;          // a column bias in the epilogue (addmm)
  bool cold = false;          // B cycled through copies larger than the L3
  int64_t batch = 1;
};

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 1;
  Isa isa = best_isa();
  double budget = 0.5;
  const char* filter = nullptr;
  bool prepacked = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--threads")) threads = static_cast<size_t>(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--seconds")) budget = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--filter")) filter = argv[i + 1];
    else if (!strcmp(argv[i], "--prepacked")) prepacked = atoi(argv[i + 1]) != 0;
    else if (!strcmp(argv[i], "--isa")) {
      isa = !strcmp(argv[i + 1], "scalar") ? Isa::kScalar
            : !strcmp(argv[i + 1], "avx2") ? Isa::kAvx2 : Isa::kAvx512;
    }
  }
  if (set_num_threads(threads) != Error::Ok) return 1;
  const Shape shapes[] = {
      {"square 256", 256, 256, 256},
      {"square 512", 512, 512, 512},
      {"square 1024", 1024, 1024, 1024},
      {"r50 conv1 7x7", 64, 12544, 147},
      {"r50 1x1 64->256 @56", 256, 3136, 64},
      {"r50 3x3 64 @56", 64, 3136, 576},
      {"r50 3x3 128 @28", 128, 784, 1152},
      {"r50 3x3 256 @14", 256, 196, 2304},
      {"r50 3x3 512 @7", 512, 49, 4608},
      {"r50 1x1 2048->512 @7", 512, 49, 2048},
      // MobileNetV2's pointwise (1x1) convolutions: small K, many pixels.
      {"mbv2 1x1 32->16 @112", 16, 12544, 32},
      {"mbv2 1x1 16->96 @112", 96, 12544, 16},
      {"mbv2 1x1 96->24 @56", 24, 3136, 96},
      {"mbv2 1x1 24->144 @56", 144, 3136, 24},
      {"mbv2 1x1 144->24 @56", 24, 3136, 144},
      {"mbv2 1x1 32->192 @28", 192, 784, 32},
      {"mbv2 1x1 192->32 @28", 32, 784, 192},
      {"mbv2 1x1 384->64 @14", 64, 196, 384},
      {"mbv2 1x1 960->160 @7", 160, 49, 960},
      {"mbv2 1x1 320->1280 @7", 1280, 49, 320},
      // Classifier heads: one row against weights streamed from memory.
      {"mbv2 classifier 1x1000x1280 cold", 1, 1000, 1280, true, true, true},
      {"r50 classifier 1x1000x2048 cold", 1, 1000, 2048, true, true, true},
      {"linear 197x192x768", 197, 768, 192},
      {"linear W^T 128x384x384", 128, 384, 384, true},
      {"linear W^T 197x768x192", 197, 768, 192, true},
      // BERT-MiniLM (batch 2 x 64 tokens): addmm with [K, N] weights + bias.
      {"bert qkv/o 128x384x384", 128, 384, 384, false, true},
      {"bert ffn1 128x1536x384", 128, 1536, 384, false, true},
      {"bert ffn2 128x384x1536", 128, 384, 1536, false, true},
      {"bert qkv/o cold", 128, 384, 384, false, true, true},
      {"bert ffn1 cold", 128, 1536, 384, false, true, true},
      {"bert ffn2 cold", 128, 384, 1536, false, true, true},
      // Whisper encoder (d 256, MLP 1024, 1500 tokens): linear W^T.
      {"whisper qkv/o 1500x256x256", 1500, 256, 256, true},
      {"whisper fc1 1500x1024x256", 1500, 1024, 256, true},
      {"whisper fc2 1500x256x1024", 1500, 256, 1024, true},
      {"bert bmm q.kT 24x64x64x32", 64, 64, 32, false, false, false, 24},
      {"bert bmm p.v 24x64x32x64", 64, 32, 64, false, false, false, 24},
      // ViT-Tiny (197 tokens, width 192, 3 heads).
      {"vit qkv 197x576x192", 197, 576, 192, false, true},
      {"vit proj 197x192x192", 197, 192, 192, false, true},
      {"vit fc1 197x768x192", 197, 768, 192, false, true},
      {"vit fc2 197x192x768", 197, 192, 768, false, true},
      {"vit bmm q.kT 3x197x197x64", 197, 197, 64, false, false, false, 3},
      {"vit bmm p.v 3x197x64x197", 197, 64, 197, false, false, false, 3},
      // Whisper's encoder (1500 tokens, width 256, 1024 hidden).
      {"whisper qkv/o 1500x256x256", 1500, 256, 256, false, true},
      {"whisper fc1 1500x1024x256", 1500, 1024, 256, false, true},
      {"whisper fc2 1500x256x1024", 1500, 256, 1024, false, true},
  };
  std::vector<uint8_t> temp(size_t{64} << 20);
  printf("isa %s, %zu thread(s)%s\n", isa_name(isa), threads,
         prepacked ? ", B prepacked (unbatched shapes)" : "");
  for (const Shape& s : shapes) {
    if (filter != nullptr && strstr(s.name, filter) == nullptr) continue;
    const int64_t b_size = s.batch * s.k * s.n;
    // Copies of B totalling at least 64 MiB for cold shapes (one otherwise).
    const int64_t copies = s.cold ? ((int64_t{16} << 20) + b_size - 1) / b_size : 1;
    std::vector<float> a(s.batch * s.m * s.k, 0.5f), b(copies * b_size, 0.25f);
    std::vector<float> c(s.batch * s.m * s.n), bias(s.n, 1.0f);
    SgemmProblem p;
    p.m = s.m, p.n = s.n, p.k = s.k, p.batch = s.batch;
    p.a = MatrixView{a.data(), s.k, 1};
    p.c = c.data();
    p.ldc = s.n;
    p.batch_stride_a = s.m * s.k, p.batch_stride_b = s.k * s.n, p.batch_stride_c = s.m * s.n;
    if (s.bias) p.col_bias = bias.data();
    // Prepacked copies of B: ceil(N / 16) strips of K x 16 each, 64-byte aligned.
    const bool use_prepacked = prepacked && s.batch == 1;
    const int64_t packed_size = (s.n + 15) / 16 * s.k * 16;
    std::vector<float> packed(use_prepacked ? copies * packed_size + 16 : 0, 0.25f);
    float* packed_base = packed.data();
    while (use_prepacked && reinterpret_cast<uintptr_t>(packed_base) % 64 != 0) ++packed_base;
    p.b_prepacked_nr = 16;
    int runs = 0;
    double best = 1e30;
    const double start = seconds_now();
    while (runs < 3 || seconds_now() - start < budget) {
      const float* bd = b.data() + (runs % copies) * b_size;
      p.b = s.b_transposed ? MatrixView{bd, 1, s.k} : MatrixView{bd, s.n, 1};
      p.b_prepacked = use_prepacked ? packed_base + (runs % copies) * packed_size : nullptr;
      MemoryAllocator allocator(temp.data(), temp.size());
      KernelContext ctx(&allocator);
      const double t0 = seconds_now();
      if (sgemm_with_isa(ctx, p, isa) != Error::Ok) {
        fprintf(stderr, "sgemm failed\n");
        return 1;
      }
      const double t = seconds_now() - t0;
      best = t < best ? t : best;
      ++runs;
    }
    const double gflops = 2.0 * s.batch * s.m * s.n * s.k / best * 1e-9;
    printf("%-28s b=%2lld M=%5lld N=%6lld K=%5lld  %7.1f GFLOP/s  %8.1f us  (best of %d)\n",
           s.name, static_cast<long long>(s.batch), static_cast<long long>(s.m),
           static_cast<long long>(s.n), static_cast<long long>(s.k), gflops, best * 1e6, runs);
  }
  return 0;
}
