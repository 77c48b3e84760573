// aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out)
// aten::relu.out(Tensor self, *, Tensor(a!) out)
// aten::sigmoid.out(Tensor self, *, Tensor(a!) out)
// aten::tanh.out(Tensor self, *, Tensor(a!) out)
// aten::silu.out(Tensor self, *, Tensor(a!) out)
//
// Fast case: float32 self and out in the default dim order: one vectorized
// loop over the flat elements, split across threads in chunks. Everything
// else (other dtypes or layouts, an unknown `approximate`) goes to the
// portable kernel of the same op.
#include <cstring>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/optimized/vec/dense_float.h"
#include "kernels/optimized/vec/vec_kernels.h"
#include "kernels/portable/support/kernel_args.h"

namespace torchedge {
namespace optimized {
namespace {

// Runs `loop` over self -> out (args[0] -> args[out_index]) when both are
// dense float32; otherwise returns false without touching anything.
bool try_unary(Span<EValue*> args, size_t out_index, UnaryLoop loop, int64_t grain, Error* result) {
  if (args.size() != out_index + 1 || !is_dense_float_arg(args[0]) ||
      !is_dense_float_arg(args[out_index])) {
    return false;
  }
  const Tensor& self = args[0]->to_tensor();
  Tensor& out = args[out_index]->to_tensor();
  *result = resize_like(out, self);
  if (*result != Error::Ok) return true;
  const float* x = self.data_as<float>();
  float* y = out.mutable_data_as<float>();
  parallel_for(0, static_cast<int64_t>(self.numel()), grain,
               [&](int64_t b, int64_t e) { loop(x + b, y + b, e - b); });
  return true;
}

bool equals(StringView s, const char* text) {
  return s.size == strlen(text) && memcmp(s.data, text, s.size) == 0;
}

}  // namespace

Error gelu_out(KernelContext& ctx, Span<EValue*> args) {
  Error result = Error::Ok;
  if (args.size() == 3 && args[1]->tag() == Tag::String) {
    const StringView mode = args[1]->to_string();
    const VecKernels& k = active_vec_kernels();
    const UnaryLoop loop = equals(mode, "none") ? k.gelu_erf : equals(mode, "tanh") ? k.gelu_tanh : nullptr;
    if (loop != nullptr && try_unary(args, 2, loop, kTranscendentalGrain, &result)) return result;
  }
  return native::gelu_out(ctx, args);
}

Error relu_out(KernelContext& ctx, Span<EValue*> args) {
  Error result = Error::Ok;
  if (try_unary(args, 1, active_vec_kernels().relu, kElementGrain, &result)) return result;
  return native::relu_out(ctx, args);
}

Error sigmoid_out(KernelContext& ctx, Span<EValue*> args) {
  Error result = Error::Ok;
  if (try_unary(args, 1, active_vec_kernels().sigmoid, kTranscendentalGrain, &result)) return result;
  return native::sigmoid_out(ctx, args);
}

Error tanh_out(KernelContext& ctx, Span<EValue*> args) {
  Error result = Error::Ok;
  if (try_unary(args, 1, active_vec_kernels().tanh, kTranscendentalGrain, &result)) return result;
  return native::tanh_out(ctx, args);
}

Error silu_out(KernelContext& ctx, Span<EValue*> args) {
  Error result = Error::Ok;
  if (try_unary(args, 1, active_vec_kernels().silu, kTranscendentalGrain, &result)) return result;
  return native::silu_out(ctx, args);
}

}  // namespace optimized
}  // namespace torchedge
