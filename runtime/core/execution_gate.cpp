#include "runtime/core/execution_gate.h"

#include <atomic>
#include <cstdint>

namespace torchedge {
namespace {

// Low bits: executions in flight; the top bit: a setting change holds the gate.
constexpr uint32_t kChanging = uint32_t{1} << 31;
std::atomic<uint32_t> g_gate{0};

}  // namespace

ExecutionScope::ExecutionScope() {
  for (;;) {
    const uint32_t before = g_gate.fetch_add(1, std::memory_order_acquire);
    if ((before & kChanging) == 0) return;
    // A change is under way: step back out and wait for it to end.
    g_gate.fetch_sub(1, std::memory_order_relaxed);
    while ((g_gate.load(std::memory_order_acquire) & kChanging) != 0) {
    }
  }
}

ExecutionScope::~ExecutionScope() { g_gate.fetch_sub(1, std::memory_order_release); }

bool try_begin_setting_change() {
  uint32_t idle = 0;
  return g_gate.compare_exchange_strong(idle, kChanging, std::memory_order_acquire,
                                        std::memory_order_relaxed);
}

void end_setting_change() { g_gate.fetch_sub(kChanging, std::memory_order_release); }

size_t executions_in_flight() { return g_gate.load(std::memory_order_relaxed) & ~kChanging; }

}  // namespace torchedge
