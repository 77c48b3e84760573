#include "runtime/executor/test/test_program.h"

#include <cstring>

#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_registry.h"
#include "schema/program_generated.h"

namespace torchedge {
namespace testing {

namespace fb = executorch_flatbuffer;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

namespace {

// `external_key`: the tensor's bytes are named data in a .ptd (no
// constant, no allocation).
Offset<fb::EValue> tensor_value(FlatBufferBuilder& b, uint32_t buffer_idx, int64_t planned_offset,
                                const char* external_key = nullptr) {
  std::vector<int32_t> sizes = {2, 3};
  std::vector<uint8_t> order = {0, 1};
  Offset<fb::AllocationDetails> alloc = 0;
  if (planned_offset >= 0) {
    alloc = fb::CreateAllocationDetails(b, 1, static_cast<uint32_t>(planned_offset), 0);
  }
  Offset<fb::ExtraTensorInfo> extra = 0;
  if (external_key != nullptr) {
    extra = fb::CreateExtraTensorInfoDirect(b, 0, external_key, fb::TensorDataLocation::EXTERNAL);
  }
  auto t = fb::CreateTensorDirect(b, fb::ScalarType::FLOAT, 0, &sizes, &order, false, buffer_idx,
                                  alloc, 0, fb::TensorShapeDynamism::STATIC, extra);
  return fb::CreateEValue(b, fb::KernelTypes::Tensor, t.Union());
}

Offset<fb::Instruction> kernel_call(FlatBufferBuilder& b, int op, std::vector<int32_t> args) {
  auto call = fb::CreateKernelCallDirect(b, op, &args);
  return fb::CreateInstruction(b, fb::InstructionArguments::KernelCall, call.Union());
}

Offset<fb::ExecutionPlan> forward_plan(FlatBufferBuilder& b, const char* add_kernel,
                                       const char* external_key = nullptr) {
  // values: 0 x (input), 1 w (constant 1, or external), 2 x*w, 3 alpha=1, 4 out
  std::vector<Offset<fb::EValue>> values = {
      tensor_value(b, 0, 0), tensor_value(b, external_key ? 0 : 1, -1, external_key),
      tensor_value(b, 0, 32),
      fb::CreateEValue(b, fb::KernelTypes::Int, fb::CreateInt(b, 1).Union()),
      tensor_value(b, 0, 64)};
  std::vector<Offset<fb::Operator>> ops = {fb::CreateOperatorDirect(b, "test::mul", "out"),
                                           fb::CreateOperatorDirect(b, add_kernel, "out")};
  std::vector<Offset<fb::Instruction>> instrs = {kernel_call(b, 0, {0, 1, 2}),
                                                 kernel_call(b, 1, {2, 0, 3, 4})};
  std::vector<int32_t> inputs = {0};
  std::vector<int32_t> outputs = {4};
  auto chain = fb::CreateChainDirect(b, &inputs, &outputs, &instrs);
  std::vector<Offset<fb::Chain>> chains = {chain};
  std::vector<int64_t> arenas = {0, 96};
  return fb::CreateExecutionPlanDirect(b, "forward", 0, &values, &inputs, &outputs, &chains, &ops,
                                       nullptr, &arenas);
}

Offset<fb::ExecutionPlan> double_plan(FlatBufferBuilder& b) {
  std::vector<Offset<fb::EValue>> values = {
      tensor_value(b, 0, 0), fb::CreateEValue(b, fb::KernelTypes::Int, fb::CreateInt(b, 1).Union()),
      tensor_value(b, 0, 32)};
  std::vector<Offset<fb::Operator>> ops = {fb::CreateOperatorDirect(b, "test::add", "out")};
  std::vector<Offset<fb::Instruction>> instrs = {kernel_call(b, 0, {0, 0, 1, 2})};
  std::vector<int32_t> inputs = {0};
  std::vector<int32_t> outputs = {2};
  auto chain = fb::CreateChainDirect(b, &inputs, &outputs, &instrs);
  std::vector<Offset<fb::Chain>> chains = {chain};
  std::vector<int64_t> arenas = {0, 64};
  return fb::CreateExecutionPlanDirect(b, "double", 0, &values, &inputs, &outputs, &chains, &ops,
                                       nullptr, &arenas);
}

void put_le(std::vector<uint8_t>& out, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

Error binary_kernel(Span<EValue*> args, bool add) {
  const size_t n_args = add ? 4 : 3;
  TE_CHECK_OR_RETURN(args.size() == n_args, Error::InvalidArgument, "bad arg count");
  for (size_t i : {size_t{0}, size_t{1}, n_args - 1}) {
    TE_CHECK_OR_RETURN(args[i]->is_tensor(), Error::InvalidType, "argument %zu not a tensor", i);
  }
  const Tensor& a = args[0]->to_tensor();
  const Tensor& b = args[1]->to_tensor();
  Tensor& out = args[n_args - 1]->to_tensor();
  TE_CHECK_OR_RETURN(a.numel() == b.numel() && a.numel() == out.numel() &&
                         a.dtype() == ScalarType::Float && b.dtype() == ScalarType::Float &&
                         out.dtype() == ScalarType::Float,
                     Error::InvalidArgument, "shape or dtype mismatch");
  TE_CHECK_OR_RETURN(a.data() && b.data() && out.mutable_data(), Error::InvalidArgument,
                     "unbound tensor");
  for (size_t i = 0; i < a.numel(); ++i) {
    const float x = a.data_as<float>()[i];
    const float y = b.data_as<float>()[i];
    out.mutable_data_as<float>()[i] = add ? x + y : x * y;
  }
  return Error::Ok;
}

Error test_add(KernelContext&, Span<EValue*> args) { return binary_kernel(args, true); }
Error test_mul(KernelContext&, Span<EValue*> args) { return binary_kernel(args, false); }

}  // namespace

void register_test_kernels() {
  static const Kernel kKernels[] = {{"test::add.out", test_add}, {"test::mul.out", test_mul}};
  register_kernels({kKernels, 2});
}

std::vector<uint8_t> build_mul_add_program(bool extra_methods, const char* add_kernel) {
  constexpr size_t kSegmentAlignment = 128;
  FlatBufferBuilder b;
  std::vector<Offset<fb::ExecutionPlan>> plans = {forward_plan(b, add_kernel)};
  if (extra_methods) plans.push_back(double_plan(b));
  std::vector<Offset<fb::DataSegment>> segments = {fb::CreateDataSegment(b, 0, 24)};
  std::vector<uint64_t> offsets = {0, 0};  // index 0 reserved; w at offset 0
  auto constant_segment = fb::CreateSubsegmentOffsetsDirect(b, 0, &offsets);
  auto program = fb::CreateProgramDirect(b, 0, &plans, nullptr, nullptr, &segments,
                                         constant_segment);
  fb::FinishProgramBuffer(b, program);

  // Insert the 32-byte eh00 header after the identifier; fix the root offset.
  const uint8_t* fbuf = b.GetBufferPointer();
  const size_t fsize = b.GetSize();
  std::vector<uint8_t> out(fsize + 32);
  memcpy(out.data(), fbuf, 8);
  memcpy(out.data() + 40, fbuf + 8, fsize - 8);
  uint32_t root;
  memcpy(&root, fbuf, 4);
  put_le(out, 0, root + 32, 4);
  memcpy(out.data() + 8, "eh00", 4);
  const size_t program_size = out.size();
  const size_t base = (program_size + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment;
  put_le(out, 12, 32, 4);
  put_le(out, 16, program_size, 8);
  put_le(out, 24, base, 8);
  put_le(out, 32, 24, 8);
  out.resize(base + 24, 0);
  const float w[6] = {1, 2, 3, 4, 5, 6};
  memcpy(out.data() + base, w, sizeof(w));
  return out;
}

std::vector<uint8_t> build_external_weight_program(const char* weight_key) {
  FlatBufferBuilder b;
  std::vector<Offset<fb::ExecutionPlan>> plans = {forward_plan(b, "test::add", weight_key)};
  std::vector<uint64_t> offsets = {0};  // no constants in the program itself
  auto constant_segment = fb::CreateSubsegmentOffsetsDirect(b, 0, &offsets);
  std::vector<Offset<fb::DataSegment>> segments;
  auto program = fb::CreateProgramDirect(b, 0, &plans, nullptr, nullptr, &segments,
                                         constant_segment);
  fb::FinishProgramBuffer(b, program);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace testing
}  // namespace torchedge
