#include "extension/llm/sampler/sampler.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// Top-p without top-k sorts only as much of the vocabulary as the nucleus
// needs: the best kFirstSortedPrefix first, four times more at each retry.
constexpr size_t kFirstSortedPrefix = 64;

}  // namespace

Sampler::Sampler(size_t vocab_size, const SamplerConfig& config)
    : config_(config),
      rng_(config.seed),
      logits_(vocab_size),
      kept_(vocab_size),
      weights_(vocab_size),
      seen_(vocab_size, 0) {}

Result<Sampler> Sampler::create(size_t vocab_size, const SamplerConfig& config) {
  TE_CHECK_OR_RETURN(vocab_size > 0 && vocab_size < static_cast<size_t>(INT32_MAX),
                     Error::InvalidArgument, "sampler: vocabulary size %zu (1..INT32_MAX allowed)",
                     vocab_size);
  TE_CHECK_OR_RETURN(std::isfinite(config.temperature) && config.temperature >= 0,
                     Error::InvalidArgument, "sampler: temperature %g (finite, >= 0 allowed)",
                     config.temperature);
  TE_CHECK_OR_RETURN(config.top_k >= 0, Error::InvalidArgument,
                     "sampler: top_k %d (>= 0 allowed; 0 turns it off)", config.top_k);
  TE_CHECK_OR_RETURN(config.top_p > 0 && config.top_p <= 1, Error::InvalidArgument,
                     "sampler: top_p %g (in (0, 1] allowed; 1 turns it off)", config.top_p);
  TE_CHECK_OR_RETURN(std::isfinite(config.repetition_penalty) && config.repetition_penalty > 0,
                     Error::InvalidArgument,
                     "sampler: repetition_penalty %g (finite, > 0 allowed; 1 turns it off)",
                     config.repetition_penalty);
  return Sampler(vocab_size, config);
}

template <typename Id>
Error Sampler::apply_penalty(Span<const Id> history) {
  const size_t n = logits_.size();
  for (size_t i = 0; i < history.size(); ++i) {
    TE_CHECK_OR_RETURN(history[i] >= 0 && static_cast<uint64_t>(history[i]) < n,
                       Error::InvalidArgument,
                       "sampler: history[%zu] = %lld is outside the vocabulary [0, %zu)", i,
                       static_cast<long long>(history[i]), n);
  }
  // Each distinct id once, however often it was seen (as a gather / scatter
  // over the history does).
  const float penalty = config_.repetition_penalty;
  for (Id id : history) {
    const auto i = static_cast<size_t>(id);
    if (seen_[i]) continue;
    seen_[i] = 1;
    const float x = logits_[i];
    logits_[i] = x < 0 ? x * penalty : x / penalty;
  }
  for (Id id : history) seen_[static_cast<size_t>(id)] = 0;
  return Error::Ok;
}

template <typename Id>
Error Sampler::prepare(Span<const float> logits, Span<const Id> history) {
  const size_t n = logits_.size();
  TE_CHECK_OR_RETURN(logits.size() == n, Error::InvalidArgument,
                     "sampler: %zu logits for a vocabulary of %zu", logits.size(), n);
  std::memcpy(logits_.data(), logits.data(), n * sizeof(float));
  for (size_t i = 0; i < n; ++i) {
    TE_CHECK_OR_RETURN(!std::isnan(logits_[i]), Error::InvalidArgument,
                       "sampler: logit %zu is NaN", i);
  }
  if (config_.repetition_penalty != 1.0f && !history.empty()) {
    TE_RETURN_IF_ERROR(apply_penalty(history));
  }
  if (config_.temperature == 0) {
    greedy_ = static_cast<TokenId>(std::max_element(logits_.begin(), logits_.end()) -
                                   logits_.begin());
    return Error::Ok;
  }
  const float temperature = config_.temperature;
  float max_logit = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    logits_[i] /= temperature;
    max_logit = std::max(max_logit, logits_[i]);
  }
  TE_CHECK_OR_RETURN(std::isfinite(max_logit), Error::InvalidArgument,
                     "sampler: %s", max_logit > 0 ? "a logit is +infinity"
                                                  : "no token has a finite logit");
  keep_top_k_top_p(max_logit);
  return Error::Ok;
}

void Sampler::keep_top_k_top_p(float max_logit) {
  const size_t n = logits_.size();
  const float* z = logits_.data();
  auto better = [z](int32_t a, int32_t b) { return z[a] > z[b]; };
  for (size_t i = 0; i < n; ++i) kept_[i] = static_cast<int32_t>(i);
  num_kept_ = n;
  size_t sorted = 0;  // kept_[0, sorted) is in final order
  const size_t k = static_cast<size_t>(config_.top_k);
  if (k > 0 && k < n) {
    std::partial_sort(kept_.begin(), kept_.begin() + k, kept_.end(), better);
    // Ties with the k-th value stay (scores below it are removed, not equal).
    const float threshold = z[kept_[k - 1]];
    num_kept_ = k;
    for (size_t i = k; i < n; ++i) {
      if (z[kept_[i]] == threshold) std::swap(kept_[num_kept_++], kept_[i]);
    }
    sorted = num_kept_;
  }
  // exp(z - max) once per kept id (the max is kept whatever top-k keeps, so
  // every weight is <= 1); float like the reference's softmax, summed in double.
  double total = 0;
  for (size_t j = 0; j < num_kept_; ++j) {
    const int32_t id = kept_[j];
    weights_[id] = std::exp(z[id] - max_logit);
    total += weights_[id];
  }
  if (config_.top_p < 1.0f) {
    const double mass_limit = double(config_.top_p) * total;
    double before = 0;  // mass of kept_[0, j)
    size_t j = 0;
    while (j < num_kept_ && before < mass_limit) {
      if (j == sorted) {
        const size_t more = std::min(num_kept_, std::max(kFirstSortedPrefix, sorted * 4));
        std::partial_sort(kept_.begin() + sorted, kept_.begin() + more,
                          kept_.begin() + num_kept_, better);
        sorted = more;
      }
      before += weights_[kept_[j]];
      ++j;
    }
    num_kept_ = j;
    total = before;
  }
  total_weight_ = total;
}

template <typename Id>
Result<TokenId> Sampler::sample_impl(Span<const float> logits, Span<const Id> history) {
  TE_RETURN_IF_ERROR(prepare(logits, history));
  if (config_.temperature == 0) return greedy_;
  const double u = rng_.uniform() * total_weight_;
  double acc = 0;
  size_t last_positive = 0;
  for (size_t j = 0; j < num_kept_; ++j) {
    const float w = weights_[kept_[j]];
    acc += w;
    if (w > 0) last_positive = j;
    if (u < acc) return static_cast<TokenId>(kept_[j]);
  }
  return static_cast<TokenId>(kept_[last_positive]);  // u rounded up to the total
}

Result<TokenId> Sampler::sample(Span<const float> logits, Span<const int64_t> history) {
  return sample_impl(logits, history);
}

Result<TokenId> Sampler::sample(Span<const float> logits, Span<const int32_t> history) {
  return sample_impl(logits, history);
}

Error Sampler::distribution(Span<const float> logits, Span<const int64_t> history,
                            Span<float> probs) {
  TE_CHECK_OR_RETURN(probs.size() == logits_.size(), Error::InvalidArgument,
                     "sampler: probs holds %zu values, the vocabulary %zu", probs.size(),
                     logits_.size());
  TE_RETURN_IF_ERROR(prepare(logits, history));
  std::fill(probs.begin(), probs.end(), 0.0f);
  if (config_.temperature == 0) {
    probs[static_cast<size_t>(greedy_)] = 1.0f;
    return Error::Ok;
  }
  for (size_t j = 0; j < num_kept_; ++j) {
    const int32_t id = kept_[j];
    probs[static_cast<size_t>(id)] = static_cast<float>(weights_[id] / total_weight_);
  }
  return Error::Ok;
}

}  // namespace llm
}  // namespace torchedge
