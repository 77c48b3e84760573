// torchedge/runtime/core/spin_lock.h
//
// SpinLock: a one-word lock for the runtime's few process-wide tables (the
// kernel and backend registries) and the execution gate. It needs nothing
// but std::atomic, so it works on bare metal, and it is only held for
// short table updates and lookups, never across a kernel or an allocation.
#pragma once

#include <atomic>

namespace torchedge {

class SpinLock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

/// Holds `lock` for the enclosing scope.
class SpinLockGuard {
 public:
  explicit SpinLockGuard(SpinLock& lock) : lock_(lock) { lock_.lock(); }
  ~SpinLockGuard() { lock_.unlock(); }
  SpinLockGuard(const SpinLockGuard&) = delete;
  SpinLockGuard& operator=(const SpinLockGuard&) = delete;

 private:
  SpinLock& lock_;
};

}  // namespace torchedge
