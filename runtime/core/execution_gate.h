// torchedge/runtime/core/execution_gate.h
//
// The execution gate: which process-wide settings may change while methods
// run. Method::execute() holds an ExecutionScope for its whole run; a setting
// that kernels read during a run (the thread count: kernels size per-thread
// scratch from it and split work by it, reading it more than once per call)
// changes only inside try_begin_setting_change() / end_setting_change(),
// which succeeds only when no execution is in flight. An execution that
// starts while a change holds the gate waits for it (a few instructions).
#pragma once

#include <cstddef>

namespace torchedge {

/// Marks one execution in flight for the enclosing scope (nests).
class ExecutionScope {
 public:
  ExecutionScope();
  ~ExecutionScope();
  ExecutionScope(const ExecutionScope&) = delete;
  ExecutionScope& operator=(const ExecutionScope&) = delete;
};

/// Takes the gate when no execution is in flight (true); executions that
/// start afterwards wait until end_setting_change(). False: executions are
/// in flight and the caller must not change the setting now.
bool try_begin_setting_change();
void end_setting_change();

/// Executions in flight right now (a snapshot, for messages).
size_t executions_in_flight();

}  // namespace torchedge
