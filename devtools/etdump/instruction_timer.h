// torchedge/devtools/etdump/instruction_timer.h
//
// InstructionTimer: the smallest EventTracer. It adds each instruction's
// wall time (platform_now_ns) to ns[i] of a caller-owned array, accumulating
// over executes, and allocates nothing. torchedge_run --profile and
// torchedge_llm --profile use it; ETDumpTracer (etdump_tracer.h) records
// every event instead.
//
//   std::vector<uint64_t> ns(method.num_instructions());
//   InstructionTimer timer(ns.data(), ns.size());
//   method.set_event_tracer(&timer);
//
// Header-only so any tool can use it without linking the ETDump writer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/executor/event_tracer.h"
#include "runtime/platform/platform.h"

namespace torchedge {

class InstructionTimer final : public EventTracer {
 public:
  /// `ns` (borrowed, `count` entries) must outlive the timer's use;
  /// instructions at or past `count` are not timed.
  InstructionTimer(uint64_t* ns, size_t count) : ns_(ns), count_(count) {}

  void begin_instruction(size_t index) override { start_ = platform_now_ns(); }
  void end_instruction(const InstructionEvent& event) override {
    if (event.index < count_) ns_[event.index] += platform_now_ns() - start_;
  }

 private:
  uint64_t* ns_;
  size_t count_;
  uint64_t start_ = 0;
};

}  // namespace torchedge
