// torchedge/devtools/etdump/etdump_tracer.h
//
// ETDumpTracer: an EventTracer that records loads, every instruction of
// every execute, delegates' own events and (optionally) a copy of every
// instruction's output into memory the caller provides, then serializes it
// all as an ETDump FlatBuffers file (etdump.fbs; docs/devtools.md).
//
//   std::vector<uint8_t> events(1 << 20), debug(64 << 20);   // caller-owned
//   ETDumpTracer tracer({events.data(), events.size()}, {debug.data(), debug.size()});
//   ModuleOptions options;  options.event_tracer = &tracer;  // or method.set_event_tracer
//   ... module.execute(...) ...
//   tracer.write_file("out.etdump");
//
// Recording never allocates: each event is a fixed-size record appended to
// the event buffer; a captured tensor (a small header, then its bytes,
// 16-byte aligned) is appended to the debug buffer. When a buffer is full,
// later events (or captures) are dropped and counted (dropped_events(),
// dropped_debug_events()); the file says how many, so a reader knows the
// record is incomplete. Serializing (serialize(), write_file()) allocates
// and is meant for after the runs.
//
// Blocks: each execute() starts a run ("RunData" named after the method);
// loads before it form a "load" block. The static facts of each method that
// ran (instruction names and source lines, planned arenas, every tensor's
// placement and lifetime) are read from the Method when serializing, so
// every Method that executed under this tracer must still be alive then.
//
// Not thread-safe; at most kMaxMethods distinct methods are described.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/event_tracer.h"

namespace torchedge {

class ETDumpTracer final : public EventTracer {
 public:
  static constexpr size_t kMaxMethods = 16;

  /// One recorded event; the event buffer holds an array of them.
  struct Record {
    // Load: a Profile record whose delegate_debug_str is the method loaded.
    enum class Type : uint8_t { LoadBlock, RunBlock, Profile, Load, Debug };
    uint64_t start_ns;
    uint64_t end_ns;
    const char* name;
    const char* delegate_debug_str;
    int32_t instruction;          // -1 when not an instruction's event
    int32_t delegate_debug_int;   // -1 when none
    uint32_t debug_offset;        // Debug: first tensor's header in the debug buffer
    uint16_t count;               // Debug: tensors captured; RunBlock: method slot
    Type type;
    uint8_t failed;               // the instruction / load returned an error
  };
  static constexpr size_t kRecordBytes = sizeof(Record);

  /// `events` and `debug` are borrowed and must outlive the tracer. An
  /// empty `debug` disables intermediate capture.
  explicit ETDumpTracer(Span<uint8_t> events, Span<uint8_t> debug = {});

  /// Timed events on or off (default on); off, only captures are recorded.
  void set_profiling(bool enabled) { profiling_ = enabled; }
  /// Intermediate capture on or off (default: on when a debug buffer was given).
  void set_capture_intermediates(bool enabled) { capture_ = enabled && debug_.size() > 0; }
  /// Names the blocks of later executes `name` (borrowed; nullptr: the
  /// method's name), e.g. to keep a capture run apart from timed runs.
  void set_block_name(const char* name) { block_name_ = name; }

  size_t num_events() const { return num_records_; }
  size_t capacity() const { return capacity_; }
  size_t dropped_events() const { return dropped_events_; }
  size_t dropped_debug_events() const { return dropped_debug_; }
  size_t debug_bytes_used() const { return debug_used_; }
  const Record* records() const { return records_; }

  /// Forgets everything recorded (the buffers are reused).
  void reset();

  /// The ETDump file bytes (size-prefixed FlatBuffer, identifier "ED00").
  std::vector<uint8_t> serialize() const;
  /// serialize() into `path`; InvalidArgument naming the path on failure.
  Error write_file(const char* path) const;

  // EventTracer
  void begin_method_load(const char* method) override;
  void end_method_load(const char* method, Error status) override;
  void begin_delegate_init(size_t delegate_index, const char* backend_id) override;
  void end_delegate_init(size_t delegate_index, const char* backend_id, Error status) override;
  void begin_execute(const Method& method) override;
  void end_execute(const Method& method, Error status) override;
  void begin_instruction(size_t index) override;
  void end_instruction(const InstructionEvent& event) override;
  void log_delegate_event(const char* name, int32_t debug_id_int, const char* debug_id_str,
                          uint64_t start_ns, uint64_t end_ns) override;

 private:
  Record* append(Record::Type type, const char* name);
  void capture(const InstructionEvent& event);
  bool capture_tensor(const Tensor& tensor);
  int method_slot(const Method& method);

  Record* records_ = nullptr;
  size_t capacity_ = 0;
  size_t num_records_ = 0;
  Span<uint8_t> debug_;
  size_t debug_used_ = 0;
  size_t dropped_events_ = 0;
  size_t dropped_debug_ = 0;
  bool profiling_ = true;
  bool capture_ = false;
  bool in_load_block_ = false;
  const char* block_name_ = nullptr;
  uint64_t instruction_start_ = 0;
  int32_t current_instruction_ = -1;
  size_t open_load_ = SIZE_MAX;     // record of the running load, if recorded
  size_t open_init_ = SIZE_MAX;     // record of the running delegate init
  size_t open_execute_ = SIZE_MAX;  // record of the running execute
  const Method* methods_[kMaxMethods] = {};
  size_t num_methods_ = 0;
};

}  // namespace torchedge
