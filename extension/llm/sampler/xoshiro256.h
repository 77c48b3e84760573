// torchedge/extension/llm/sampler/xoshiro256.h
//
// The sampler's random numbers: xoshiro256** (Blackman and Vigna), seeded
// through splitmix64 so any 64-bit seed (0 included) gives a good state.
// Same seed, same sequence, on every platform: no std::random_device, no
// distribution objects whose output the standard library leaves open.
#pragma once

#include <cstdint>

namespace torchedge {
namespace llm {

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    for (uint64_t& word : state_) word = splitmix64(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  // Advances `x` and returns the next splitmix64 output.
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t state_[4];
};

}  // namespace llm
}  // namespace torchedge
