// Per-node events of the XNNPACK delegate (node_events.h): under a tracer,
// execute() reports its stages and one event per debug handle, inside the
// call's interval; without one it reports nothing; either way it does not
// touch the heap.

#include <string>

#include "backends/xnnpack/node_events.h"
#include "backends/xnnpack/test/delegate_harness.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/platform/platform.h"

#ifdef TORCHEDGE_XNNPACK_HEAP_COUNTER
#include "extension/test/heap_counter.h"
#endif

namespace torchedge {
namespace {

// Keeps delegate events in a fixed array (no heap, like ETDumpTracer).
class RecordingTracer final : public EventTracer {
 public:
  struct Event {
    const char* name;
    int32_t handle;
    uint64_t start, end;
  };
  void begin_instruction(size_t) override {}
  void end_instruction(const InstructionEvent&) override {}
  void log_delegate_event(const char* name, int32_t handle, const char*, uint64_t start,
                          uint64_t end) override {
    if (count < kCapacity) events[count++] = Event{name, handle, start, end};
  }
  static constexpr size_t kCapacity = 32;
  Event events[kCapacity] = {};
  size_t count = 0;
};

// Sets the thread's delegate tracer as the executor does around a DelegateCall.
class TracedScope {
 public:
  explicit TracedScope(EventTracer* tracer) { internal::g_delegate_tracer = tracer; }
  ~TracedScope() { internal::g_delegate_tracer = nullptr; }
};

// NCHW input -> conv (handle 0) -> clamp (handle 0: one FX step, two
// XNNPACK nodes) -> global average pool (handle 1) -> reshape (handle 2).
std::vector<uint8_t> small_blob() {
  BlobBuilder b;
  const uint32_t in = b.input({1, 6, 6, 4}, Boundary::NchwToNhwc);
  const uint32_t out = b.output({1, 8});
  const uint32_t filter = b.constant({8, 3, 3, 4}, pseudo_random(8 * 9 * 4, 1));
  const uint32_t bias = b.constant({8}, pseudo_random(8, 2));
  const uint32_t conv = b.internal({1, 6, 6, 8});
  const uint32_t act = b.internal({1, 6, 6, 8});
  const uint32_t pooled = b.internal({1, 1, 1, 8});
  b.node(OpCode::Conv2d, {in, filter, bias, conv},
         {1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 4, 8, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)}, 0);
  b.node(OpCode::Clamp, {conv, act}, {BlobBuilder::f(0.0f), BlobBuilder::f(kInf)}, 0);
  b.node(OpCode::GlobalAvgPool2d, {act, pooled}, {BlobBuilder::f(-kInf), BlobBuilder::f(kInf)},
         1);
  b.node(OpCode::Reshape, {pooled, out}, {}, 2);
  return b.build();
}

TEST(XnnpackNodeEvents, TracedCallReportsStagesAndOneEventPerHandle) {
  LoadedDelegate delegate(small_blob());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  TestTensor x(ScalarType::Float, {1, 4, 6, 6});
  x.fill(pseudo_random(4 * 36, 3));
  TestTensor y(ScalarType::Float, {1, 8});
  RecordingTracer tracer;
  const uint64_t before = platform_now_ns();
  {
    TracedScope scope(&tracer);
    ASSERT_EQ(delegate.execute({&x, &y}), Error::Ok) << last_error_message();
  }
  const uint64_t after = platform_now_ns();

  // First call: the input is staged (NCHW -> NHWC) and the runtime set up.
  std::vector<std::string> names;
  for (size_t i = 0; i < tracer.count; ++i) names.push_back(tracer.events[i].name);
  EXPECT_EQ(names, (std::vector<std::string>{"XNNPACK_INPUT_LAYOUT", "XNNPACK_SETUP",
                                             "XNNPACK_INVOKE", "conv2d", "global_average_pooling_2d",
                                             "static_reshape"}));
  const RecordingTracer::Event& invoke = tracer.events[2];
  EXPECT_EQ(invoke.handle, -1);
  for (size_t i = 0; i < tracer.count; ++i) {
    const RecordingTracer::Event& e = tracer.events[i];
    EXPECT_LE(before, e.start);
    EXPECT_LE(e.start, e.end);
    EXPECT_LE(e.end, after);
    if (i >= 3) {  // nodes: the handles in order, inside the invoke they ran in
      EXPECT_EQ(e.handle, static_cast<int32_t>(i - 3));
      EXPECT_EQ(e.start, invoke.start);
      EXPECT_EQ(e.end, invoke.end);
    }
  }
  EXPECT_LE(tracer.events[0].end, tracer.events[1].start);  // stages do not overlap
  EXPECT_LE(tracer.events[1].end, invoke.start);

  // Second call with the same tensors: no setup any more.
  tracer.count = 0;
  {
    TracedScope scope(&tracer);
    ASSERT_EQ(delegate.execute({&x, &y}), Error::Ok);
  }
  ASSERT_EQ(tracer.count, 5u);
  EXPECT_EQ(std::string(tracer.events[1].name), "XNNPACK_INVOKE");
}

TEST(XnnpackNodeEvents, UntracedCallReportsNothing) {
  LoadedDelegate delegate(small_blob());
  ASSERT_EQ(delegate.init_error(), Error::Ok);
  TestTensor x(ScalarType::Float, {1, 4, 6, 6});
  TestTensor y(ScalarType::Float, {1, 8});
  RecordingTracer tracer;  // not made current
  ASSERT_EQ(delegate.execute({&x, &y}), Error::Ok);
  EXPECT_EQ(tracer.count, 0u);
}

TEST(XnnpackNodeEvents, OlderBlobsNumberNodesByIndex) {
  // Version 2 has no handle field: strip it from a version-3 blob with
  // handles 0, 1 (already each node's index) and read it back.
  BlobBuilder b;
  const uint32_t in = b.input({4});
  const uint32_t out = b.output({4});
  const uint32_t mid = b.internal({4});
  b.node(OpCode::Negate, {in, mid});
  b.node(OpCode::Abs, {mid, out});
  std::vector<uint8_t> blob = b.build();
  std::vector<uint8_t> pool(1 << 16);
  MemoryAllocator allocator(pool.data(), pool.size());
  Result<xnnpack::ParsedBlob> parsed =
      xnnpack::parse_blob({blob.data(), blob.size()}, &allocator);
  ASSERT_TRUE(parsed.ok());
  parsed.get().version = 2;
  // Rewrite the node section without handles (each record: op, ids, params, handle, ids...).
  std::vector<uint8_t> section(parsed.get().node_section.begin(),
                               parsed.get().node_section.end());
  std::vector<uint8_t> v2;
  for (size_t at = 0, n = 0; n < 2; ++n) {
    v2.insert(v2.end(), section.begin() + at, section.begin() + at + 12);  // op, ids, params
    v2.insert(v2.end(), section.begin() + at + 16, section.begin() + at + 24);  // 2 ids
    at += 24;
  }
  parsed.get().node_section = Span<const uint8_t>(v2.data(), v2.size());
  Result<xnnpack::NodeEventTable> table = xnnpack::make_node_event_table(parsed.get(), &allocator);
  ASSERT_TRUE(table.ok());
  ASSERT_EQ(table.get().count, 2u);
  EXPECT_EQ(table.get().handles[0], 0u);
  EXPECT_EQ(table.get().handles[1], 1u);
  EXPECT_EQ(std::string(table.get().names[1]), "abs");
}

#ifdef TORCHEDGE_XNNPACK_HEAP_COUNTER
TEST(XnnpackNodeEvents, TracedExecuteDoesNotTouchTheHeap) {
  LoadedDelegate delegate(small_blob());
  ASSERT_EQ(delegate.init_error(), Error::Ok);
  TestTensor x(ScalarType::Float, {1, 4, 6, 6});
  TestTensor y(ScalarType::Float, {1, 8});
  delegate.prepare({&x, &y});
  ASSERT_EQ(delegate.execute_prepared(), Error::Ok);
  RecordingTracer tracer;
  size_t allocations = 0;
  Error error = Error::Internal;
  {
    TracedScope scope(&tracer);
    testing::HeapCounter counter;
    error = delegate.execute_prepared();
    allocations = counter.allocations();
  }
  EXPECT_EQ(error, Error::Ok);
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(tracer.count, 5u);
}
#endif

}  // namespace
}  // namespace torchedge
