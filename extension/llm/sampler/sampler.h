// torchedge/extension/llm/sampler/sampler.h
//
// Picks the next token from a model's logits. The definitions are those of
// Hugging Face transformers' generate(), applied in its order:
//
//   1. repetition penalty  over the distinct ids in `history`: a logit > 0 is
//                          divided by the penalty, any other multiplied by it
//   2. greedy              temperature == 0: the first index of the largest
//                          logit (top_k / top_p do not apply), else
//   3. temperature         logits / temperature
//   4. top-k               keep the logits >= the k-th largest (ties at the
//                          k-th value are all kept)
//   5. top-p (nucleus)     softmax of what is kept, sorted by probability;
//                          keep a token while the probability mass before it
//                          is < top_p (so at least one)
//   6. draw                one uniform number, walked through the kept
//                          tokens' renormalized probabilities
//
// Seeded and reproducible: the same seed, logits and history give the same
// tokens on every platform (Xoshiro256). No heap allocation per call: all
// scratch is sized to the vocabulary when the sampler is made.
//
// A Sampler is used by one thread at a time (it owns its random state).
#pragma once

#include <cstdint>
#include <vector>

#include "extension/llm/sampler/xoshiro256.h"
#include "extension/llm/tokenizer/tokenizer.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace llm {

struct SamplerConfig {
  float temperature = 0.0f;         // 0: greedy; > 0: sample
  int32_t top_k = 0;                // 0 (or >= vocabulary): no top-k
  float top_p = 1.0f;               // in (0, 1]; 1: no top-p
  float repetition_penalty = 1.0f;  // > 0; 1: none
  uint64_t seed = 0;
};

class Sampler {
 public:
  /// InvalidArgument (naming the field) for a negative or non-finite
  /// temperature, a negative top_k, top_p outside (0, 1], a penalty <= 0 or
  /// non-finite, or vocab_size 0 / above INT32_MAX.
  static Result<Sampler> create(size_t vocab_size, const SamplerConfig& config);

  /// The next token. `logits` holds vocab_size() values; `history` the ids
  /// seen so far (prompt and generated; only repetition_penalty reads it).
  /// InvalidArgument if logits has another size, a logit is NaN, a history id
  /// is out of range, or no token has a finite logit when sampling.
  Result<TokenId> sample(Span<const float> logits, Span<const int64_t> history = {});
  Result<TokenId> sample(Span<const float> logits, Span<const int32_t> history);

  /// The distribution step 6 draws from: probs[i] for every id (0 for ids
  /// top-k / top-p removed; a one-hot vector when greedy). Same errors as
  /// sample(); `probs` must hold vocab_size() values. Uses no random numbers.
  Error distribution(Span<const float> logits, Span<const int64_t> history, Span<float> probs);

  /// Restarts the random sequence.
  void reseed(uint64_t seed) { rng_.reseed(seed); }

  const SamplerConfig& config() const { return config_; }
  size_t vocab_size() const { return logits_.size(); }

 private:
  Sampler(size_t vocab_size, const SamplerConfig& config);

  // Steps 1-5: fills logits_ (penalized) and, when sampling, kept_[0,
  // num_kept_) (the ids kept), weights_[id] (their unnormalized
  // probabilities) and total_weight_. Sets greedy_ to the argmax when greedy.
  template <typename Id>
  Error prepare(Span<const float> logits, Span<const Id> history);
  template <typename Id>
  Error apply_penalty(Span<const Id> history);
  void keep_top_k_top_p(float max_logit);
  template <typename Id>
  Result<TokenId> sample_impl(Span<const float> logits, Span<const Id> history);

  SamplerConfig config_;
  Xoshiro256 rng_;
  std::vector<float> logits_;     // working copy of the logits
  std::vector<int32_t> kept_;     // candidate ids, best first once sorted
  std::vector<float> weights_;    // exp(logit - max), valid for kept ids
  std::vector<uint8_t> seen_;     // repetition-penalty marks, all 0 between calls
  size_t num_kept_ = 0;
  double total_weight_ = 0;
  TokenId greedy_ = 0;
};

}  // namespace llm
}  // namespace torchedge
