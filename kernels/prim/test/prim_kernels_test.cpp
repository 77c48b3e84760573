// Tests of the primitive kernels: Python semantics of the scalar operators,
// sizes of dynamic tensors, copy_ (mutable-buffer write-back) and
// _assert_scalar, plus their registration under upstream's names.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/prim/prim_kernels.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_registry.h"

namespace torchedge {
namespace prim {
#define TE_PRIM_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/prim/prim_kernel_list.inc"
#undef TE_PRIM_KERNEL
}  // namespace prim

namespace {

using KernelFn = Error (*)(KernelContext&, Span<EValue*>);

// Calls `fn` on `operands` plus a fresh out value; returns the out value.
Result<EValue> call(KernelFn fn, std::vector<EValue> operands) {
  operands.emplace_back(int64_t{-12345});
  std::vector<EValue*> args;
  for (EValue& v : operands) args.push_back(&v);
  KernelContext ctx;
  const Error err = fn(ctx, {args.data(), args.size()});
  if (err != Error::Ok) return err;
  return operands.back();
}

EValue I(int64_t v) { return EValue(v); }
EValue D(double v) { return EValue(v); }
EValue B(bool v) { return EValue(v); }

int64_t as_int(Result<EValue> r) {
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r->is_int());
  return r->to_int();
}
double as_double(Result<EValue> r) {
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r->is_double());
  return r->to_double();
}
bool as_bool(Result<EValue> r) {
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r->is_bool());
  return r->to_bool();
}

TEST(PrimScalar, ArithmeticKeepsIntsAndPromotesToDouble) {
  EXPECT_EQ(as_int(call(prim::prim_add, {I(3), I(4)})), 7);
  EXPECT_EQ(as_int(call(prim::prim_sub, {I(3), I(4)})), -1);
  EXPECT_EQ(as_int(call(prim::prim_mul, {I(3), I(4)})), 12);
  EXPECT_EQ(as_int(call(prim::prim_mul, {B(true), I(4)})), 4);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_add, {I(3), D(0.5)})), 3.5);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_mul, {D(1.5), D(2.0)})), 3.0);
  EXPECT_EQ(as_int(call(prim::prim_neg, {I(5)})), -5);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_neg, {D(2.5)})), -2.5);
  EXPECT_EQ(as_int(call(prim::prim_sym_max, {I(3), I(9)})), 9);
  EXPECT_EQ(as_int(call(prim::prim_sym_min, {I(3), I(9)})), 3);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_sym_max, {I(3), D(2.0)})), 3.0);
}

TEST(PrimScalar, OverflowAndBadOperandsAreErrors) {
  Result<EValue> r = call(prim::prim_mul, {I(INT64_MAX), I(2)});
  EXPECT_EQ(r.error(), Error::InvalidArgument);
  EXPECT_NE(strstr(last_error_message(), "overflow"), nullptr) << last_error_message();
  EXPECT_EQ(call(prim::prim_neg, {I(INT64_MIN)}).error(), Error::InvalidArgument);
  EValue none;
  r = call(prim::prim_add, {I(1), none});
  EXPECT_EQ(r.error(), Error::InvalidType);
  EXPECT_NE(strstr(last_error_message(), "operand 1"), nullptr) << last_error_message();
  EXPECT_EQ(call(prim::prim_add, {I(1)}).error(), Error::InvalidArgument);  // arity
}

TEST(PrimScalar, DivisionFollowsPython) {
  EXPECT_EQ(as_int(call(prim::prim_floordiv, {I(7), I(2)})), 3);
  EXPECT_EQ(as_int(call(prim::prim_floordiv, {I(-7), I(2)})), -4);
  EXPECT_EQ(as_int(call(prim::prim_floordiv, {I(7), I(-2)})), -4);
  EXPECT_EQ(as_int(call(prim::prim_floordiv, {I(-8), I(2)})), -4);
  EXPECT_EQ(as_int(call(prim::prim_mod, {I(-7), I(2)})), 1);
  EXPECT_EQ(as_int(call(prim::prim_mod, {I(7), I(-2)})), -1);
  EXPECT_EQ(as_int(call(prim::prim_mod, {I(6), I(3)})), 0);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_floordiv, {D(7.5), I(2)})), 3.0);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_floordiv, {D(-7.5), I(2)})), -4.0);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_mod, {D(-7.5), I(2)})), 0.5);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_truediv, {I(7), I(2)})), 3.5);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_truediv, {I(6), I(3)})), 2.0);
  for (KernelFn fn : {prim::prim_floordiv, prim::prim_mod, prim::prim_truediv}) {
    Result<EValue> r = call(fn, {I(1), I(0)});
    EXPECT_EQ(r.error(), Error::InvalidArgument);
    EXPECT_NE(strstr(last_error_message(), "division by zero"), nullptr);
  }
  EXPECT_EQ(call(prim::prim_floordiv, {I(INT64_MIN), I(-1)}).error(), Error::InvalidArgument);
}

TEST(PrimScalar, ComparisonsAndLogic) {
  EXPECT_TRUE(as_bool(call(prim::prim_eq, {I(3), I(3)})));
  EXPECT_TRUE(as_bool(call(prim::prim_eq, {I(3), D(3.0)})));
  EXPECT_FALSE(as_bool(call(prim::prim_eq, {I(3), I(4)})));
  EXPECT_TRUE(as_bool(call(prim::prim_gt, {I(4), I(3)})));
  EXPECT_FALSE(as_bool(call(prim::prim_lt, {I(4), I(3)})));
  EXPECT_TRUE(as_bool(call(prim::prim_ge, {I(3), I(3)})));
  EXPECT_TRUE(as_bool(call(prim::prim_le, {D(2.5), I(3)})));
  EXPECT_TRUE(as_bool(call(prim::prim_eq, {B(true), I(1)})));
  EXPECT_FALSE(as_bool(call(prim::prim_sym_not, {B(true)})));
  EXPECT_TRUE(as_bool(call(prim::prim_sym_not, {I(0)})));
  EXPECT_EQ(as_int(call(prim::prim_sym_ite, {B(true), I(10), I(20)})), 10);
  EXPECT_EQ(as_int(call(prim::prim_sym_ite, {B(false), I(10), I(20)})), 20);
}

TEST(PrimScalar, ConversionsRoundLikePython) {
  EXPECT_EQ(as_int(call(prim::prim_ceil, {D(2.1)})), 3);
  EXPECT_EQ(as_int(call(prim::prim_ceil, {D(-2.1)})), -2);
  EXPECT_EQ(as_int(call(prim::prim_ceil, {I(7)})), 7);
  EXPECT_EQ(as_int(call(prim::prim_trunc, {D(-2.7)})), -2);
  EXPECT_EQ(as_int(call(prim::prim_round, {D(2.5)})), 2);
  EXPECT_EQ(as_int(call(prim::prim_round, {D(3.5)})), 4);
  EXPECT_EQ(as_int(call(prim::prim_round, {D(-2.5)})), -2);
  EXPECT_EQ(as_int(call(prim::prim_round, {D(2.6)})), 3);
  EXPECT_EQ(as_int(call(prim::prim_sym_int, {D(-3.9)})), -3);
  EXPECT_DOUBLE_EQ(as_double(call(prim::prim_sym_float, {I(4)})), 4.0);
  EXPECT_EQ(call(prim::prim_ceil, {D(1e300)}).error(), Error::InvalidArgument);
}

// A float32 tensor owning its storage.
struct OwnedTensor {
  OwnedTensor(std::vector<int32_t> s, ScalarType dtype = ScalarType::Float)
      : sizes(s), strides(s.size()), order(s.size()) {
    size_t n = 1;
    for (int32_t v : s) n *= static_cast<size_t>(v);
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint8_t>(i);
    bytes.assign(n * element_size(dtype) + 8, 0);
    tensor = Tensor(dtype, static_cast<int>(s.size()), sizes.data(), order.data(), strides.data(),
                    bytes.data(), TensorShapeDynamism::DynamicBound);
  }
  float* f() { return reinterpret_cast<float*>(bytes.data()); }
  std::vector<int32_t> sizes, strides;
  std::vector<uint8_t> order;
  std::vector<uint8_t> bytes;
  Tensor tensor;
};

TEST(PrimSizes, SymSizeAndNumelReadTheCurrentShape) {
  OwnedTensor t({8, 3});
  const int32_t smaller[] = {5, 3};
  ASSERT_EQ(t.tensor.resize({smaller, 2}), Error::Ok);
  EXPECT_EQ(as_int(call(prim::sym_size_int, {EValue(&t.tensor), I(0)})), 5);
  EXPECT_EQ(as_int(call(prim::sym_size_int, {EValue(&t.tensor), I(-1)})), 3);
  EXPECT_EQ(as_int(call(prim::sym_numel, {EValue(&t.tensor)})), 15);
  Result<EValue> r = call(prim::sym_size_int, {EValue(&t.tensor), I(2)});
  EXPECT_EQ(r.error(), Error::InvalidArgument);
  EXPECT_NE(strstr(last_error_message(), "out of range"), nullptr);
  EXPECT_EQ(call(prim::sym_size_int, {I(1), I(0)}).error(), Error::InvalidType);
}

Error run_copy(Tensor* self, Tensor* src) {
  EValue a(self), b(src), nb(false);
  EValue* args[] = {&a, &b, &nb};
  KernelContext ctx;
  return prim::copy_(ctx, {args, 3});
}

TEST(PrimCopy, CopiesBroadcastsAndConverts) {
  OwnedTensor self({2, 3});
  OwnedTensor src({2, 3});
  for (int i = 0; i < 6; ++i) src.f()[i] = static_cast<float>(i + 1);
  ASSERT_EQ(run_copy(&self.tensor, &src.tensor), Error::Ok);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(self.f()[i], static_cast<float>(i + 1));

  OwnedTensor row({3});
  row.f()[0] = 7;
  row.f()[1] = 8;
  row.f()[2] = 9;
  ASSERT_EQ(run_copy(&self.tensor, &row.tensor), Error::Ok);
  EXPECT_EQ(self.f()[0], 7);
  EXPECT_EQ(self.f()[5], 9);

  OwnedTensor ints({2, 3}, ScalarType::Long);
  for (int i = 0; i < 6; ++i) reinterpret_cast<int64_t*>(ints.bytes.data())[i] = -i;
  ASSERT_EQ(run_copy(&self.tensor, &ints.tensor), Error::Ok);
  EXPECT_EQ(self.f()[4], -4.0f);

  OwnedTensor wrong({4});
  EXPECT_EQ(run_copy(&self.tensor, &wrong.tensor), Error::InvalidArgument);
  EXPECT_NE(strstr(last_error_message(), "does not broadcast"), nullptr) << last_error_message();
}

TEST(PrimAssert, PassesOrReportsTheMessage) {
  const char text[] = "input 'y' dim 0 must equal input 'x' dim 0";
  EValue message(StringView{text, sizeof(text) - 1});
  EValue holds(true), fails(false);
  KernelContext ctx;
  EValue* ok_args[] = {&holds, &message};
  EXPECT_EQ(prim::assert_scalar(ctx, {ok_args, 2}), Error::Ok);
  EValue* bad_args[] = {&fails, &message};
  EXPECT_EQ(prim::assert_scalar(ctx, {bad_args, 2}), Error::InvalidArgument);
  EXPECT_STREQ(last_error_message(), text);
}

TEST(PrimRegistry, RegistersUpstreamNames) {
  ASSERT_EQ(register_prim_kernels(), Error::Ok);
  for (const char* name :
       {"aten::sym_size.int", "aten::sym_numel", "executorch_prim::add.Scalar",
        "executorch_prim::floordiv.int", "executorch_prim::mod.Scalar",
        "executorch_prim::sym_max.Scalar", "executorch_prim::sym_ite.Scalar",
        "executorch_prim::round.Scalar", "aten::copy_", "aten::_assert_scalar"}) {
    EXPECT_TRUE(find_kernel(name).ok()) << name;
  }
}

}  // namespace
}  // namespace torchedge
