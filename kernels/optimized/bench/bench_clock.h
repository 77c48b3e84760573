// torchedge/kernels/optimized/bench/bench_clock.h
//
// The benchmarks' clock: seconds on the steady clock (for differences only).
#pragma once

#include <chrono>

namespace torchedge {
namespace bench {

inline double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace bench
}  // namespace torchedge
