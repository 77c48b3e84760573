// aten::bitwise_xor.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
// aten::bitwise_xor.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
//
// out = self ^ other, broadcast, in ATen's promoted dtype, which must be
// integral or bool (bool ^ bool is logical xor; a bool tensor with an int scalar
// gives int64). `out` may have any dtype the result casts to.
#include "kernels/portable/support/binary_kernels.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {

namespace {
constexpr DtypeSet kBitwiseTypes = kIntegralTypes | dtype_bit(ScalarType::Bool);
}  // namespace

Error bitwise_xor_tensor_out(KernelContext& ctx, Span<EValue*> args) {
  return binary_tensor_kernel<kBitwiseTypes>(args, "bitwise_xor.Tensor_out",
                                             [](auto x, auto y) { return x ^ y; });
}

Error bitwise_xor_scalar_out(KernelContext& ctx, Span<EValue*> args) {
  return binary_scalar_kernel<kBitwiseTypes>(args, "bitwise_xor.Scalar_out",
                                             [](auto x, auto y) { return x ^ y; });
}

}  // namespace native
}  // namespace torchedge
