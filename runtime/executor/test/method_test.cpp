// Executor tests on programs built in memory (see test_program.h): loading,
// running, several methods, and every class of bad input the issue names.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "extension/data_loader/buffer_data_loader.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/test/test_program.h"

namespace torchedge {
namespace {

using testing::build_mul_add_program;

// An aligned copy of a file image plus everything needed to run a method.
struct Harness {
  explicit Harness(const std::vector<uint8_t>& bytes, size_t arena_bytes = 256,
                   size_t method_bytes = 16 << 10)
      : storage((bytes.size() + 7) / 8 + 1),
        loader(storage.data(), bytes.size()),
        method_pool(method_bytes / 8 + 1),
        arena_pool(arena_bytes / 8 + 1),
        method_allocator(method_pool.data(), method_bytes),
        arena(reinterpret_cast<uint8_t*>(arena_pool.data()), arena_bytes),
        planned(Span<Span<uint8_t>>(&arena, 1)),
        memory{&method_allocator, &planned, nullptr} {
    if (!bytes.empty()) memcpy(storage.data(), bytes.data(), bytes.size());
  }
  std::vector<uint64_t> storage;
  BufferDataLoader loader;
  std::vector<uint64_t> method_pool;
  std::vector<uint64_t> arena_pool;
  MemoryAllocator method_allocator;
  Span<uint8_t> arena;
  PlannedMemory planned;
  MemoryManager memory;
};

struct Input {
  int32_t sizes[2] = {2, 3};
  int32_t strides[2];
  uint8_t order[2] = {0, 1};
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor tensor{ScalarType::Float, 2, sizes, order, strides, data};
};

// Records what the executor reports (event_tracer.h).
struct RecordingTracer : EventTracer {
  int loads = 0;
  Error load_status = Error::Internal;
  int executes = 0;
  int begun = 0;
  std::vector<size_t> indices;
  std::vector<const EValue*> outputs;
  const EValue* args_1_first = nullptr;
  void end_method_load(const char*, Error status) override {
    ++loads;
    load_status = status;
  }
  void begin_execute(const Method&) override { ++executes; }
  void begin_instruction(size_t) override { ++begun; }
  void end_instruction(const InstructionEvent& e) override {
    indices.push_back(e.index);
    outputs.push_back(e.output);
    if (e.index == 1) args_1_first = e.args[0];
    EXPECT_EQ(e.kind, InstructionEvent::Kind::Kernel);
    EXPECT_EQ(e.status, Error::Ok);
  }
};

class MethodTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_kernels(); }
};

TEST_F(MethodTest, RunsForwardWithConstantsFromTheSegment) {
  Harness h(build_mul_add_program());
  Result<Program> program = Program::load(&h.loader);
  ASSERT_TRUE(program.ok()) << last_error_message();
  ASSERT_EQ(program->num_methods(), 1u);
  Result<Method> method = program->load_method("forward", &h.memory);
  ASSERT_TRUE(method.ok()) << last_error_message();
  Input x;
  ASSERT_EQ(method->set_input(0, EValue(&x.tensor)), Error::Ok) << last_error_message();
  ASSERT_EQ(method->execute(), Error::Ok) << last_error_message();
  const Tensor& out = method->output(0).get()->to_tensor();
  for (int i = 0; i < 6; ++i) {
    const float v = static_cast<float>(i + 1);
    EXPECT_EQ(out.data_as<float>()[i], v * v + v);  // x * w + x with w = x
  }
}

TEST_F(MethodTest, EventTracerAndInfoDescribeEveryInstruction) {
  Harness h(build_mul_add_program());
  Result<Program> program = Program::load(&h.loader);
  ASSERT_TRUE(program.ok()) << last_error_message();
  Result<Method> method = program->load_method("forward", &h.memory);
  ASSERT_TRUE(method.ok()) << last_error_message();
  const size_t n = method->num_instructions();
  ASSERT_EQ(n, 2u);  // mul, then add
  const char* ops[] = {"test::mul", "test::add"};
  for (size_t i = 0; i < n; ++i) {
    Result<Method::InstructionInfo> info = method->instruction_info(i);
    ASSERT_TRUE(info.ok()) << last_error_message();
    EXPECT_STREQ(info->kind, "kernel");
    EXPECT_STREQ(info->name, ops[i]);
    EXPECT_STREQ(info->overload, "out");
    ASSERT_EQ(info->args.size(), i == 0 ? 3u : 4u);  // (self, other, out) / (.., alpha, out)
    EXPECT_TRUE(info->args[info->args.size() - 1]->is_tensor());
  }
  EXPECT_EQ(method->instruction_info(n).error(), Error::InvalidArgument);
  EXPECT_NE(strstr(last_error_message(), "instruction 2 does not exist"), nullptr);

  // An attached tracer sees every instruction, with its arguments and output.
  RecordingTracer tracer;
  method->set_event_tracer(&tracer);
  Input x;
  ASSERT_EQ(method->set_input(0, EValue(&x.tensor)), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok) << last_error_message();
  EXPECT_EQ(tracer.executes, 1);
  ASSERT_EQ(tracer.indices, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(tracer.begun, 2);
  // The add's output is the method's output.
  EXPECT_EQ(tracer.outputs[1], method->output(0).get());
  EXPECT_EQ(tracer.outputs[0], tracer.args_1_first);  // mul's out feeds add
  // Detached: nothing more is reported.
  method->set_event_tracer(nullptr);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(tracer.executes, 1);
  EXPECT_EQ(tracer.indices.size(), 2u);
}

TEST_F(MethodTest, TracerGivenAtLoadSeesTheLoad) {
  Harness h(build_mul_add_program());
  Result<Program> program = Program::load(&h.loader);
  ASSERT_TRUE(program.ok()) << last_error_message();
  RecordingTracer tracer;
  Result<Method> method = program->load_method("forward", &h.memory, &tracer);
  ASSERT_TRUE(method.ok()) << last_error_message();
  EXPECT_EQ(tracer.loads, 1);
  EXPECT_EQ(tracer.load_status, Error::Ok);
  EXPECT_EQ(method->event_tracer(), &tracer);
}

TEST_F(MethodTest, SeveralMethodsInOneProgram) {
  Harness h(build_mul_add_program(/*extra_methods=*/true));
  Result<Program> program = Program::load(&h.loader);
  ASSERT_TRUE(program.ok()) << last_error_message();
  ASSERT_EQ(program->num_methods(), 2u);
  EXPECT_STREQ(program->method_name(1).get(), "double");
  Result<MethodMeta> meta = program->method_meta("double");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_inputs(), 1u);
  EXPECT_EQ(meta->planned_buffer_size(0).get(), 64u);
  Result<Method> method = program->load_method("double", &h.memory);
  ASSERT_TRUE(method.ok()) << last_error_message();
  Input x;
  const EValue inputs[1] = {EValue(&x.tensor)};
  ASSERT_EQ(method->set_inputs(inputs), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(method->output(0).get()->to_tensor().data_as<float>()[5], 12.f);
}

TEST_F(MethodTest, MissingMethodNamesTheAvailableOnes) {
  Harness h(build_mul_add_program(true));
  Result<Program> program = Program::load(&h.loader);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(program->load_method("backward", &h.memory).error(), Error::NotFound);
  EXPECT_STREQ(last_error_message(),
               "no method named 'backward' (the program has: 'forward', 'double')");
}

TEST_F(MethodTest, UnregisteredOperatorFailsAtLoadNamingIt) {
  Harness h(build_mul_add_program(false, "test::not_a_kernel"));
  Result<Program> program = Program::load(&h.loader);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(program->load_method("forward", &h.memory).error(), Error::OperatorMissing);
  EXPECT_NE(strstr(last_error_message(), "'test::not_a_kernel.out' has no registered kernel"),
            nullptr)
      << last_error_message();
  EXPECT_NE(strstr(last_error_message(), "load_method('forward')"), nullptr);
}

TEST_F(MethodTest, UnsupportedDtypeFailsAtLoadNamingOpDtypeAndInstruction) {
  // Pretend test::mul's library proves float64 only; the program calls it on float32.
  const KernelDtypes only_double[] = {{"test::mul.out", DtypeMask{1} << 7}};
  ASSERT_EQ(register_kernel_dtypes({only_double, 1}), Error::Ok);
  Harness h(build_mul_add_program());
  Result<Program> program = Program::load(&h.loader);
  ASSERT_TRUE(program.ok());
  const Error error = program->load_method("forward", &h.memory).error();
  const KernelDtypes any[] = {{"test::mul.out", kAnyDtype}};
  ASSERT_EQ(register_kernel_dtypes({any, 1}), Error::Ok);  // restore before asserting
  EXPECT_EQ(error, Error::NotSupported);
  EXPECT_NE(strstr(last_error_message(), "load_method('forward'): instruction 0 (test::mul.out): "
                                         "no kernel for dtype float32; the kernel supports float64"),
            nullptr)
      << last_error_message();
  EXPECT_TRUE(program->load_method("forward", &h.memory).ok()) << last_error_message();
}

TEST_F(MethodTest, WrongInputsAreRejectedWithExpectedVersusFound) {
  Harness h(build_mul_add_program());
  Result<Program> program = Program::load(&h.loader);
  Result<Method> method = program->load_method("forward", &h.memory);
  ASSERT_TRUE(method.ok());
  Input x;
  EXPECT_EQ(method->set_inputs({}), Error::InvalidArgument);
  EXPECT_STREQ(last_error_message(), "method 'forward' takes 1 inputs, got 0");
  EXPECT_EQ(method->set_input(3, EValue(&x.tensor)), Error::InvalidArgument);

  int64_t ints[6] = {};
  Tensor wrong_dtype(ScalarType::Long, 2, x.sizes, x.order, x.strides, ints);
  EXPECT_EQ(method->set_input(0, EValue(&wrong_dtype)), Error::InvalidType);
  EXPECT_STREQ(last_error_message(), "method 'forward' input 0: expected dtype float32, got int64");

  int32_t other_sizes[2] = {3, 2};
  Tensor wrong_shape(ScalarType::Float, 2, other_sizes, x.order, x.strides, x.data);
  EXPECT_EQ(method->set_input(0, EValue(&wrong_shape)), Error::InvalidArgument);
  EXPECT_NE(strstr(last_error_message(), "static shape [2, 3] cannot become [3, 2]"), nullptr)
      << last_error_message();

  EXPECT_EQ(method->set_input(0, EValue(int64_t{4})), Error::InvalidType);
  EXPECT_STREQ(last_error_message(), "method 'forward' input 0: expected Tensor, got Int");
}

TEST_F(MethodTest, TooSmallMemoryIsAnErrorNotACrash) {
  {
    Harness h(build_mul_add_program(), /*arena_bytes=*/64);
    Result<Program> program = Program::load(&h.loader);
    EXPECT_EQ(program->load_method("forward", &h.memory).error(), Error::MemoryAllocationFailed);
    EXPECT_NE(strstr(last_error_message(), "planned arena 1 is 64 bytes, the method needs 96"),
              nullptr)
        << last_error_message();
  }
  for (size_t bytes : {0, 64, 256, 600}) {
    Harness h(build_mul_add_program(), 256, bytes);
    Result<Program> program = Program::load(&h.loader);
    Result<Method> method = program->load_method("forward", &h.memory);
    EXPECT_FALSE(method.ok()) << bytes;
    EXPECT_EQ(method.error(), Error::MemoryAllocationFailed);
  }
  Harness h(build_mul_add_program());
  Result<Program> program = Program::load(&h.loader);
  const size_t exact = program->method_meta("forward")->method_allocator_bytes();
  Harness fits(build_mul_add_program(), 256, exact);
  Result<Program> p2 = Program::load(&fits.loader);
  EXPECT_TRUE(p2->load_method("forward", &fits.memory).ok()) << last_error_message();
}

TEST_F(MethodTest, NotAProgramIsRejected) {
  std::vector<uint8_t> junk(300, 0x41);
  Harness h(junk);
  EXPECT_EQ(Program::load(&h.loader).error(), Error::InvalidProgram);
  EXPECT_NE(strstr(last_error_message(), "not a .pte program"), nullptr);
}

// Truncating a valid file at any length must be detected at load.
TEST_F(MethodTest, TruncationAtEveryByteIsDetected) {
  const std::vector<uint8_t> file = build_mul_add_program(true);
  for (size_t len = 0; len < file.size(); ++len) {
    Harness h(std::vector<uint8_t>(file.begin(), file.begin() + len));
    Result<Program> program = Program::load(&h.loader);
    EXPECT_FALSE(program.ok()) << "truncated to " << len << " of " << file.size();
  }
}

// Flipping any single byte must never crash: either load/run reports an
// error, or (when the byte is padding or data) the program still runs.
TEST_F(MethodTest, CorruptionAtEveryByteNeverCrashes) {
  const std::vector<uint8_t> file = build_mul_add_program(true);
  size_t rejected = 0;
  for (size_t at = 0; at < file.size(); ++at) {
    std::vector<uint8_t> bad = file;
    bad[at] ^= 0xff;
    Harness h(bad);
    Result<Program> program = Program::load(&h.loader);
    if (!program.ok()) {
      ++rejected;
      continue;
    }
    for (size_t m = 0; m < program->num_methods(); ++m) {
      Result<const char*> name = program->method_name(m);
      if (!name.ok()) continue;
      h.method_allocator.reset();
      Result<Method> method = program->load_method(name.get(), &h.memory);
      if (!method.ok()) continue;
      Input x;
      if (method->set_input(0, EValue(&x.tensor)) == Error::Ok) (void)method->execute();
    }
  }
  EXPECT_GT(rejected, file.size() / 4);  // most bytes are structure
}

}  // namespace
}  // namespace torchedge
