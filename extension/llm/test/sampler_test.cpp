// Sampler: greedy is argmax, top-k = 1 is greedy, seeds reproduce, the
// repetition penalty follows transformers' definition, the distribution
// matches softmax(logits / T) restricted by top-k / top-p (computed here by
// brute force) and the empirical frequencies match it, invalid input is an
// Error, and sample() allocates nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <numeric>
#include <random>
#include <vector>

#include "extension/llm/sampler/sampler.h"
#include "runtime/core/error_message.h"

// Counts operator new calls made while g_count_news is set (every std
// container allocates through it). Not under AddressSanitizer, which owns
// the allocator.
#if defined(__SANITIZE_ADDRESS__)
#define TORCHEDGE_SAMPLER_COUNTS_NEW 0
#else
#define TORCHEDGE_SAMPLER_COUNTS_NEW 1
#if defined(__GNUC__) && !defined(__clang__)
// GCC sees the replaced operator delete's free() inlined against new.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
thread_local bool g_count_news = false;
thread_local size_t g_news = 0;
}  // namespace
void* operator new(size_t n) {
  if (g_count_news) ++g_news;
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#endif

namespace torchedge {
namespace llm {
namespace {

Sampler make(size_t vocab, SamplerConfig c) {
  Result<Sampler> s = Sampler::create(vocab, c);
  EXPECT_TRUE(s.ok()) << last_error_message();
  return std::move(s.get());
}

Span<const float> span(const std::vector<float>& v) { return {v.data(), v.size()}; }
Span<const int64_t> span(const std::vector<int64_t>& v) { return {v.data(), v.size()}; }

std::vector<float> random_logits(size_t n, uint32_t seed, float scale = 3.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// The same definitions, written the slow and obvious way: full sort, HF's
// ascending-cumsum form of top-p.
std::vector<double> reference(std::vector<float> logits, const SamplerConfig& c,
                              const std::vector<int64_t>& history) {
  std::vector<bool> seen(logits.size());
  for (int64_t id : history) {
    if (seen[id]) continue;
    seen[id] = true;
    logits[id] = logits[id] < 0 ? logits[id] * c.repetition_penalty : logits[id] / c.repetition_penalty;
  }
  for (float& x : logits) x /= c.temperature;
  std::vector<bool> keep(logits.size(), true);
  if (c.top_k > 0 && static_cast<size_t>(c.top_k) < logits.size()) {
    std::vector<float> sorted = logits;
    std::sort(sorted.begin(), sorted.end(), std::greater<float>());
    const float kth = sorted[c.top_k - 1];
    for (size_t i = 0; i < logits.size(); ++i) keep[i] = logits[i] >= kth;
  }
  const float max = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size(), 0.0);
  double total = 0;
  for (size_t i = 0; i < p.size(); ++i) total += keep[i] ? (p[i] = std::exp(double(logits[i]) - max)) : 0;
  for (double& x : p) x /= total;
  if (c.top_p < 1) {
    std::vector<size_t> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
    double cum = 0;
    for (size_t i : order) {
      cum += p[i];
      if (cum <= 1.0 - c.top_p) keep[i] = false;
    }
    total = 0;
    for (size_t i = 0; i < p.size(); ++i) total += keep[i] ? p[i] : (p[i] = 0);
    for (double& x : p) x /= total;
  }
  return p;
}

std::vector<float> distribution(Sampler& s, const std::vector<float>& logits,
                                const std::vector<int64_t>& history = {}) {
  std::vector<float> probs(s.vocab_size());
  EXPECT_EQ(s.distribution(span(logits), span(history), {probs.data(), probs.size()}), Error::Ok)
      << last_error_message();
  return probs;
}

TEST(SamplerTest, GreedyIsArgmaxAndTopKOneIsGreedy) {
  const std::vector<float> logits = random_logits(1000, 1);
  const auto argmax = std::max_element(logits.begin(), logits.end()) - logits.begin();
  Sampler greedy = make(logits.size(), {});
  EXPECT_EQ(greedy.sample(span(logits)).get(), argmax);
  SamplerConfig k1;
  k1.temperature = 0.8f;
  k1.top_k = 1;
  Sampler top1 = make(logits.size(), k1);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(top1.sample(span(logits)).get(), argmax);
  // Ties: the first index, as argmax takes it.
  EXPECT_EQ(greedy.sample(span(std::vector<float>(1000, 0.0f))).get(), 0);
  const std::vector<float> tied = {1, 5, 2, 5};
  Sampler small = make(4, {});
  EXPECT_EQ(small.sample(span(tied)).get(), 1);
}

TEST(SamplerTest, SeedsReproduce) {
  const std::vector<float> logits = random_logits(500, 2, 1.0f);
  SamplerConfig c;
  c.temperature = 1.0f;
  c.seed = 42;
  auto run = [&](uint64_t seed) {
    SamplerConfig cc = c;
    cc.seed = seed;
    Sampler s = make(logits.size(), cc);
    std::vector<TokenId> out;
    for (int i = 0; i < 200; ++i) out.push_back(s.sample(span(logits)).get());
    return out;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
  Sampler s = make(logits.size(), c);
  const TokenId first = s.sample(span(logits)).get();
  s.reseed(42);
  EXPECT_EQ(s.sample(span(logits)).get(), first);
}

TEST(SamplerTest, RepetitionPenaltyAsTransformersAppliesIt) {
  SamplerConfig c;
  c.temperature = 1.0f;
  c.repetition_penalty = 2.0f;
  Sampler s = make(4, c);
  const std::vector<float> logits = {2.0f, -1.0f, 0.5f, 0.0f};
  const std::vector<int64_t> history = {0, 1, 1, 0, 3};  // each id penalized once
  const std::vector<float> probs = distribution(s, logits, history);
  // 2 -> 1, -1 -> -2, 0.5 unchanged, 0 -> 0.
  const double e[] = {std::exp(1.0), std::exp(-2.0), std::exp(0.5), 1.0};
  const double total = e[0] + e[1] + e[2] + e[3];
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(probs[i], e[i] / total, 1e-6);
  // Greedy with the penalty picks from the penalized logits.
  SamplerConfig g;
  g.repetition_penalty = 5.0f;
  Sampler greedy = make(4, g);
  EXPECT_EQ(greedy.sample(span(logits), span(std::vector<int64_t>{0})).get(), 2);
  EXPECT_EQ(greedy.sample(span(logits)).get(), 0);  // marks were cleared
}

TEST(SamplerTest, DistributionMatchesTheDefinitions) {
  struct Case {
    float temperature;
    int top_k;
    float top_p;
    float penalty;
  };
  const Case cases[] = {{1.0f, 0, 1.0f, 1.0f},  {0.7f, 0, 1.0f, 1.0f},  {1.3f, 40, 1.0f, 1.0f},
                        {1.0f, 0, 0.9f, 1.0f},  {0.8f, 50, 0.8f, 1.0f}, {1.0f, 0, 0.3f, 1.3f},
                        {2.0f, 5000, 0.95f, 1.1f}, {1.0f, 1, 1.0f, 1.0f}};
  const std::vector<float> logits = random_logits(50000, 3);
  std::vector<int64_t> history;
  for (int i = 0; i < 300; ++i) history.push_back((i * 7919) % 50000);
  for (const Case& k : cases) {
    SamplerConfig c;
    c.temperature = k.temperature;
    c.top_k = k.top_k;
    c.top_p = k.top_p;
    c.repetition_penalty = k.penalty;
    Sampler s = make(logits.size(), c);
    const std::vector<float> got = distribution(s, logits, history);
    const std::vector<double> want = reference(logits, c, history);
    size_t kept = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-6) << "id " << i << " T " << k.temperature << " k "
                                         << k.top_k << " p " << k.top_p;
      kept += want[i] > 0;
    }
    if (k.top_k > 0) {
      EXPECT_LE(kept, static_cast<size_t>(k.top_k));
    }
  }
}

TEST(SamplerTest, TopKKeepsTiesAndTopPKeepsAtLeastOne) {
  SamplerConfig c;
  c.temperature = 1.0f;
  c.top_k = 2;
  Sampler s = make(5, c);
  const std::vector<float> probs = distribution(s, {3.0f, 1.0f, 1.0f, 1.0f, 0.0f});
  EXPECT_GT(probs[1], 0);  // the 2nd value is tied three ways: all kept
  EXPECT_GT(probs[3], 0);
  EXPECT_EQ(probs[4], 0);
  c.top_k = 0;
  c.top_p = 0.01f;
  Sampler p = make(5, c);
  const std::vector<float> one = distribution(p, {0.0f, 4.0f, 1.0f, 0.0f, 0.0f});
  EXPECT_EQ(one[1], 1.0f);
  // HF's boundary: probabilities [0.5, 0.3, 0.2] with top_p 0.6 keep two.
  c.top_p = 0.6f;
  Sampler q = make(3, c);
  const std::vector<float> two =
      distribution(q, {std::log(0.5f), std::log(0.3f), std::log(0.2f)});
  EXPECT_NEAR(two[0], 0.625, 1e-6);
  EXPECT_NEAR(two[1], 0.375, 1e-6);
  EXPECT_EQ(two[2], 0.0f);
}

TEST(SamplerTest, EmpiricalFrequenciesMatchTheDistribution) {
  const std::vector<float> logits = {1.0f, 0.2f, -0.5f, 2.0f, 0.0f, -3.0f, 1.5f, 0.7f};
  const int draws = 200000;
  for (auto [top_k, top_p] : {std::pair<int, float>{0, 1.0f}, {4, 1.0f}, {0, 0.7f}, {5, 0.9f}}) {
    SamplerConfig c;
    c.temperature = 0.9f;
    c.top_k = top_k;
    c.top_p = top_p;
    c.seed = 1234;
    Sampler s = make(logits.size(), c);
    const std::vector<float> p = distribution(s, logits);
    std::vector<int> counts(logits.size());
    for (int i = 0; i < draws; ++i) ++counts[s.sample(span(logits)).get()];
    for (size_t i = 0; i < logits.size(); ++i) {
      const double freq = double(counts[i]) / draws;
      // 5 standard deviations of a binomial frequency.
      const double tolerance = 5 * std::sqrt(p[i] * (1 - p[i]) / draws) + 1e-9;
      EXPECT_NEAR(freq, p[i], tolerance) << "id " << i << " k " << top_k << " p " << top_p;
      if (p[i] == 0) {
        EXPECT_EQ(counts[i], 0);
      }
    }
  }
}

TEST(SamplerTest, InvalidConfigurationsAndInputs) {
  auto bad = [](size_t vocab, SamplerConfig c) { return Sampler::create(vocab, c).error(); };
  SamplerConfig c;
  EXPECT_EQ(bad(0, c), Error::InvalidArgument);
  c.temperature = -1;
  EXPECT_EQ(bad(10, c), Error::InvalidArgument);
  EXPECT_NE(std::strstr(last_error_message(), "temperature"), nullptr);
  c = {};
  c.temperature = NAN;
  EXPECT_EQ(bad(10, c), Error::InvalidArgument);
  c = {};
  c.top_k = -1;
  EXPECT_EQ(bad(10, c), Error::InvalidArgument);
  c = {};
  c.top_p = 0;
  EXPECT_EQ(bad(10, c), Error::InvalidArgument);
  c.top_p = 1.5f;
  EXPECT_EQ(bad(10, c), Error::InvalidArgument);
  c = {};
  c.repetition_penalty = 0;
  EXPECT_EQ(bad(10, c), Error::InvalidArgument);

  SamplerConfig sampling;
  sampling.temperature = 1;
  sampling.repetition_penalty = 1.2f;
  Sampler s = make(4, sampling);
  EXPECT_EQ(s.sample(span(std::vector<float>(3))).error(), Error::InvalidArgument);
  EXPECT_NE(std::strstr(last_error_message(), "3 logits for a vocabulary of 4"), nullptr);
  EXPECT_EQ(s.sample(span(std::vector<float>{0, NAN, 0, 0})).error(), Error::InvalidArgument);
  EXPECT_EQ(s.sample(span(std::vector<float>(4, -INFINITY))).error(), Error::InvalidArgument);
  EXPECT_EQ(s.sample(span(std::vector<float>{0, INFINITY, 0, 0})).error(), Error::InvalidArgument);
  EXPECT_EQ(s.sample(span(std::vector<float>(4)), span(std::vector<int64_t>{1, 4})).error(),
            Error::InvalidArgument);
  EXPECT_NE(std::strstr(last_error_message(), "history[1] = 4"), nullptr);
  // -inf logits are masked tokens, never drawn.
  const std::vector<float> masked = {-INFINITY, 0, -INFINITY, 0};
  for (int i = 0; i < 100; ++i) EXPECT_EQ(s.sample(span(masked)).get() % 2, 1);
}

TEST(SamplerTest, SamplingAllocatesNothing) {
#if TORCHEDGE_SAMPLER_COUNTS_NEW
  const std::vector<float> logits = random_logits(49152, 5);
  std::vector<int64_t> history(500);
  for (size_t i = 0; i < history.size(); ++i) history[i] = static_cast<int64_t>(i * 97 % 49152);
  const std::vector<int32_t> history32(history.begin(), history.end());
  SamplerConfig c;
  c.temperature = 0.8f;
  c.top_k = 50;
  c.top_p = 0.9f;
  c.repetition_penalty = 1.1f;
  Sampler s = make(logits.size(), c);
  SamplerConfig p = c;
  p.top_k = 0;
  Sampler nucleus = make(logits.size(), p);
  Sampler greedy = make(logits.size(), {});
  g_news = 0;
  g_count_news = true;
  for (int i = 0; i < 100; ++i) {
    s.sample(span(logits), span(history));
    s.sample(span(logits), Span<const int32_t>(history32.data(), history32.size()));
    nucleus.sample(span(logits), span(history));
    greedy.sample(span(logits));
  }
  g_count_news = false;
  EXPECT_EQ(g_news, 0u);
#else
  GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
#endif
}

}  // namespace
}  // namespace llm
}  // namespace torchedge
