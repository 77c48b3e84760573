// torchedge/runtime/executor/event_tracer.h
//
// EventTracer: the one interface through which the executor reports what it
// does, for profilers (devtools/etdump's ETDump tracer, the per-instruction
// timer), intermediate-output capture and delegates' own per-node events.
//
//   Program::load_method(name, memory, tracer)
//     begin_method_load(name)
//       begin_delegate_init(i, id) / end_delegate_init(i, id, status)   per delegate
//     end_method_load(name, status)
//   method.set_event_tracer(tracer)          (or the tracer given at load)
//   method.execute()
//     begin_execute(method)
//       begin_instruction(i) / end_instruction(event)   per instruction run
//         delegates may call log_delegate_event() in between (see below)
//     end_execute(method, status)
//
// Cost: a Method without a tracer (the default) runs an instruction loop
// compiled without any tracing code; execute() picks the traced or the
// untraced loop once per call, so tracing off costs one branch per execute,
// nothing per instruction. Implementations must not allocate on the heap in
// any callback made during execute() (the zero-heap test runs with the
// ETDump tracer on): they record into memory their owner provided.
//
// The instruction index is the instruction's debug handle: ETRecord
// (python/torchedge/devtools) maps it back to FX nodes, module paths and
// source lines.
//
// Delegates: while a DelegateCall runs, the executor makes its tracer the
// current delegate tracer of the calling thread (current_delegate_tracer()),
// so a backend reports per-node events with its own debug ids without the
// BackendInterface changing. Outside a traced DelegateCall it is nullptr.
//
// Lifetime: the tracer is borrowed and must outlive every Method it is
// attached to (or be detached first). Callbacks run on the thread calling
// execute(); one tracer must not serve two methods executing concurrently.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace torchedge {

class Method;

/// What end_instruction() reports about one executed instruction.
struct InstructionEvent {
  enum class Kind : uint8_t { Kernel, Delegate, Move, JumpFalse, Free };
  size_t index;  // position in the method's chain = debug handle
  Kind kind;
  /// The call's values as the kernel / delegate saw them (kernels: schema
  /// arguments, out-arguments last; delegates: inputs then outputs). Valid
  /// during the callback; the pointed-to EValues live as long as the Method.
  Span<EValue* const> args;
  /// What the instruction produced, for intermediate capture: a Tensor or a
  /// TensorList (several outputs), nullptr for moves, jumps and frees. A
  /// kernel call's returned value; a delegate call's last argument.
  const EValue* output;
  Error status;  // Ok, or the error the instruction failed with
};

class EventTracer {
 public:
  virtual ~EventTracer() = default;

  // Loading (Program::load_method with a tracer). `method` names the method.
  virtual void begin_method_load(const char* method) {}
  virtual void end_method_load(const char* method, Error status) {}
  virtual void begin_delegate_init(size_t delegate_index, const char* backend_id) {}
  virtual void end_delegate_init(size_t delegate_index, const char* backend_id, Error status) {}

  // Execution. `method` stays valid for the whole execute().
  virtual void begin_execute(const Method& method) {}
  virtual void end_execute(const Method& method, Error status) {}
  virtual void begin_instruction(size_t index) = 0;
  virtual void end_instruction(const InstructionEvent& event) = 0;

  /// A delegate's own event (one node or stage of its subgraph), reported
  /// from inside the DelegateCall instruction that is running. `name` and
  /// `debug_id_str` (either may be nullptr) must outlive the tracer's use
  /// of the record (string literals or strings owned by the delegate
  /// handle); `debug_id_int` is -1 when the delegate uses string ids.
  /// Times come from platform_now_ns().
  virtual void log_delegate_event(const char* name, int32_t debug_id_int,
                                  const char* debug_id_str, uint64_t start_ns,
                                  uint64_t end_ns) {}
};

namespace internal {
// The tracer of the DelegateCall running on this thread; header-only so
// backends need no link dependency on the executor to read it.
#if defined(TORCHEDGE_NO_THREAD_LOCAL)  // bare metal: one thread (error.cpp)
inline EventTracer* g_delegate_tracer = nullptr;
#else
inline thread_local EventTracer* g_delegate_tracer = nullptr;
#endif
}  // namespace internal

/// The tracer a delegate reports to, or nullptr when none is listening.
inline EventTracer* current_delegate_tracer() { return internal::g_delegate_tracer; }

}  // namespace torchedge
