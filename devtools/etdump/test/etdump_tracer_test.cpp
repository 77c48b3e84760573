// ETDumpTracer on the in-memory test program (runtime/executor/test/
// test_program.h: forward(x) = x * w + x, two kernel instructions): every
// instruction recorded, a full buffer drops and counts, captured
// intermediates equal the values the kernels produced, and the serialized
// file decodes with the generated reader.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "devtools/etdump/etdump_generated.h"
#include "devtools/etdump/etdump_tracer.h"
#include "devtools/etdump/instruction_timer.h"
#include "extension/data_loader/buffer_data_loader.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/executor/test/test_program.h"

namespace torchedge {
namespace {

namespace fb = torchedge_etdump;

// The test program, its memory, and a loaded forward method.
struct Loaded {
  explicit Loaded(EventTracer* tracer)
      : bytes(testing::build_mul_add_program()),
        storage((bytes.size() + 7) / 8 + 1),
        loader((memcpy(storage.data(), bytes.data(), bytes.size()), storage.data()), bytes.size()),
        method_pool(16 << 10 >> 3),
        arena_pool(256 >> 3),
        method_allocator(method_pool.data(), 16 << 10),
        arena(reinterpret_cast<uint8_t*>(arena_pool.data()), 256),
        planned(Span<Span<uint8_t>>(&arena, 1)),
        memory{&method_allocator, &planned, nullptr} {
    testing::register_test_kernels();
    Result<Program> p = Program::load(&loader);
    EXPECT_TRUE(p.ok()) << last_error_message();
    program.emplace_back(std::move(p.get()));
    Result<Method> m = program[0].load_method("forward", &memory, tracer);
    EXPECT_TRUE(m.ok()) << last_error_message();
    method.emplace_back(std::move(m.get()));
    for (int i = 0; i < 6; ++i) x_data[i] = static_cast<float>(i + 1);
    x = Tensor(ScalarType::Float, 2, x_sizes, x_order, x_strides, x_data);
  }
  Error run() {
    TE_RETURN_IF_ERROR(method[0].set_input(0, EValue(&x)));
    return method[0].execute();
  }
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> storage;
  BufferDataLoader loader;
  std::vector<uint64_t> method_pool;
  std::vector<uint64_t> arena_pool;
  MemoryAllocator method_allocator;
  Span<uint8_t> arena;
  PlannedMemory planned;
  MemoryManager memory;
  std::vector<Program> program;  // vectors: the types are move-only, not assignable
  std::vector<Method> method;
  int32_t x_sizes[2] = {2, 3};
  int32_t x_strides[2];
  uint8_t x_order[2] = {0, 1};
  float x_data[6];
  Tensor x;
};

const fb::ETDump* decode(const std::vector<uint8_t>& file) {
  flatbuffers::Verifier verifier(file.data(), file.size());
  EXPECT_TRUE(fb::VerifySizePrefixedETDumpBuffer(verifier));
  EXPECT_TRUE(flatbuffers::BufferHasIdentifier(file.data(), "ED00", /*size_prefixed=*/true));
  return fb::GetSizePrefixedETDump(file.data());
}

TEST(ETDumpTracerTest, RecordsTheLoadAndEveryInstructionOfEveryRun) {
  std::vector<uint8_t> events(64 * ETDumpTracer::kRecordBytes);
  ETDumpTracer tracer({events.data(), events.size()});
  Loaded m(&tracer);
  ASSERT_EQ(m.run(), Error::Ok) << last_error_message();
  ASSERT_EQ(m.run(), Error::Ok);
  EXPECT_EQ(tracer.dropped_events(), 0u);

  const std::vector<uint8_t> file = tracer.serialize();
  const fb::ETDump* dump = decode(file);
  ASSERT_NE(dump, nullptr);
  ASSERT_EQ(dump->run_data()->size(), 3u);  // load, then two runs
  EXPECT_STREQ(dump->run_data()->Get(0)->name()->c_str(), "load");
  const auto* load = dump->run_data()->Get(0)->events()->Get(0)->profile_event();
  ASSERT_NE(load, nullptr);
  EXPECT_STREQ(load->name()->c_str(), "Program::load_method");
  EXPECT_GE(load->end_time(), load->start_time());
  for (size_t run = 1; run < 3; ++run) {
    const fb::RunData* data = dump->run_data()->Get(run);
    EXPECT_STREQ(data->name()->c_str(), "forward");
    std::vector<int> instructions;
    bool saw_execute = false;
    for (const fb::Event* e : *data->events()) {
      const fb::ProfileEvent* p = e->profile_event();
      ASSERT_NE(p, nullptr);
      EXPECT_GE(p->end_time(), p->start_time());
      if (strcmp(p->name()->c_str(), "Method::execute") == 0) {
        saw_execute = true;
        continue;
      }
      EXPECT_STREQ(p->name()->c_str(), "OPERATOR_CALL");
      instructions.push_back(p->instruction_id());
    }
    EXPECT_TRUE(saw_execute);
    EXPECT_EQ(instructions, (std::vector<int>{0, 1}));
  }
  // The method's static facts: instruction names, arenas, lifetimes.
  ASSERT_EQ(dump->methods()->size(), 1u);
  const fb::MethodInfo* info = dump->methods()->Get(0);
  EXPECT_STREQ(info->name()->c_str(), "forward");
  ASSERT_EQ(info->instructions()->size(), 2u);
  EXPECT_STREQ(info->instructions()->Get(0)->name()->c_str(), "test::mul.out");
  EXPECT_STREQ(info->instructions()->Get(1)->name()->c_str(), "test::add.out");
  ASSERT_EQ(info->arenas()->size(), 1u);
  EXPECT_EQ(info->arenas()->Get(0)->size(), 96u);
  // x (arena 0..24, used by both), w (a constant), x*w (at 32, 0..1), out (at 64, 1..1).
  ASSERT_EQ(info->tensors()->size(), 4u);
  const fb::TensorLifetime* x = info->tensors()->Get(0);
  EXPECT_EQ(x->mem_id(), 1);
  EXPECT_EQ(x->offset(), 0u);
  EXPECT_EQ(x->first_instruction(), 0);
  EXPECT_EQ(x->last_instruction(), 1);
  EXPECT_EQ(info->tensors()->Get(1)->mem_id(), 0);  // the constant
  const fb::TensorLifetime* product = info->tensors()->Get(2);
  EXPECT_EQ(product->offset(), 32u);
  EXPECT_EQ(product->nbytes(), 24u);
  EXPECT_EQ(product->first_instruction(), 0);
  EXPECT_EQ(product->last_instruction(), 1);
  const fb::TensorLifetime* out = info->tensors()->Get(3);
  EXPECT_EQ(out->offset(), 64u);
  EXPECT_TRUE(out->is_output());
  EXPECT_FALSE(product->is_output());
  EXPECT_EQ(dump->dropped_events(), 0u);
  EXPECT_STREQ(dump->time_unit()->c_str(), "ns");
}

TEST(ETDumpTracerTest, AFullBufferDropsAndCountsEvents) {
  // Room for 3 records: the load block, the load event and one more.
  std::vector<uint8_t> events(3 * ETDumpTracer::kRecordBytes + alignof(ETDumpTracer::Record));
  ETDumpTracer tracer({events.data(), events.size()});
  ASSERT_EQ(tracer.capacity(), 3u);
  Loaded m(&tracer);
  ASSERT_EQ(m.run(), Error::Ok) << last_error_message();  // the run itself still succeeds
  EXPECT_EQ(tracer.num_events(), 3u);
  // Of the run's block, execute span and 2 instructions, one record fit.
  EXPECT_EQ(tracer.dropped_events(), 3u);
  const std::vector<uint8_t> file = tracer.serialize();
  EXPECT_EQ(decode(file)->dropped_events(), 3u);
  tracer.reset();
  EXPECT_EQ(tracer.num_events(), 0u);
  EXPECT_EQ(tracer.dropped_events(), 0u);
}

TEST(ETDumpTracerTest, CapturedIntermediatesEqualTheComputedValues) {
  std::vector<uint8_t> events(64 * ETDumpTracer::kRecordBytes);
  std::vector<uint8_t> debug(4096);
  ETDumpTracer tracer({events.data(), events.size()}, {debug.data(), debug.size()});
  tracer.set_profiling(false);
  Loaded m(&tracer);
  ASSERT_EQ(m.run(), Error::Ok) << last_error_message();
  EXPECT_EQ(tracer.dropped_debug_events(), 0u);
  const Tensor& result = m.method[0].output(0).get()->to_tensor();

  const std::vector<uint8_t> file = tracer.serialize();
  const fb::ETDump* dump = decode(file);
  const fb::RunData* run = dump->run_data()->Get(1);
  ASSERT_EQ(run->events()->size(), 2u);  // one capture per instruction, no timings
  const uint8_t* bytes = dump->debug_buffer()->data();
  for (size_t i = 0; i < 2; ++i) {
    const fb::DebugEvent* d = run->events()->Get(i)->debug_event();
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->instruction_id(), static_cast<int>(i));
    ASSERT_EQ(d->debug_entry()->val(), fb::ValueType::Tensor);
    const fb::Tensor* t = d->debug_entry()->tensor();
    EXPECT_EQ(t->scalar_type(), executorch_flatbuffer::ScalarType::FLOAT);
    ASSERT_EQ(t->sizes()->size(), 2u);
    EXPECT_EQ(t->sizes()->Get(0), 2);
    EXPECT_EQ(t->sizes()->Get(1), 3);
    EXPECT_EQ(t->offset() % 16, 0);
    const float* values = reinterpret_cast<const float*>(bytes + t->offset());
    for (int k = 0; k < 6; ++k) {
      const float v = static_cast<float>(k + 1);
      // instruction 0: x * w with w = x; instruction 1: that + x = the output.
      EXPECT_EQ(values[k], i == 0 ? v * v : v * v + v);
      if (i == 1) EXPECT_EQ(values[k], result.data_as<float>()[k]);
    }
  }
}

TEST(ETDumpTracerTest, AFullDebugBufferDropsCapturesAndCountsThem) {
  std::vector<uint8_t> events(64 * ETDumpTracer::kRecordBytes);
  std::vector<uint8_t> debug(64);  // holds one 24-byte tensor with its header, not two
  ETDumpTracer tracer({events.data(), events.size()}, {debug.data(), debug.size()});
  Loaded m(&tracer);
  ASSERT_EQ(m.run(), Error::Ok);
  EXPECT_EQ(tracer.dropped_debug_events(), 1u);
  EXPECT_EQ(decode(tracer.serialize())->dropped_debug_events(), 1u);
}

TEST(ETDumpTracerTest, DelegateEventsCarryTheirDebugIdsAndTheRunningInstruction) {
  std::vector<uint8_t> events(16 * ETDumpTracer::kRecordBytes);
  ETDumpTracer tracer({events.data(), events.size()});
  tracer.begin_instruction(7);
  tracer.log_delegate_event("conv_node", 42, nullptr, 100, 250);
  tracer.end_instruction({7, InstructionEvent::Kind::Delegate, {}, nullptr, Error::Ok});
  const fb::ETDump* dump = decode(tracer.serialize());
  const auto* p = dump->run_data()->Get(0)->events()->Get(0)->profile_event();
  EXPECT_STREQ(p->name()->c_str(), "conv_node");
  EXPECT_EQ(p->delegate_debug_id_int(), 42);
  EXPECT_EQ(p->instruction_id(), 7);
  EXPECT_EQ(p->end_time() - p->start_time(), 150u);
  const auto* call = dump->run_data()->Get(0)->events()->Get(1)->profile_event();
  EXPECT_STREQ(call->name()->c_str(), "DELEGATE_CALL");
}

TEST(ETDumpTracerTest, InstructionTimerAccumulatesPerInstruction) {
  std::vector<uint64_t> ns(2, 0);
  InstructionTimer timer(ns.data(), ns.size());
  Loaded m(nullptr);
  m.method[0].set_event_tracer(&timer);
  ASSERT_EQ(m.run(), Error::Ok);
  EXPECT_GT(ns[0] + ns[1], 0u);
  const std::vector<uint64_t> after_one = ns;
  ASSERT_EQ(m.run(), Error::Ok);
  EXPECT_GE(ns[0], after_one[0]);
  EXPECT_GE(ns[1], after_one[1]);
  m.method[0].set_event_tracer(nullptr);
  const std::vector<uint64_t> before = ns;
  ASSERT_EQ(m.run(), Error::Ok);
  EXPECT_EQ(ns, before);
}

}  // namespace
}  // namespace torchedge
