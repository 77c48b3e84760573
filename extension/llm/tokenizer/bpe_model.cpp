#include "extension/llm/tokenizer/bpe_model.h"

#include <algorithm>
#include <mutex>

#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// Words longer than this are not cached (they are rare and would crowd it).
constexpr size_t kMaxCachedWordBytes = 128;
// The cache is emptied when it reaches this many words.
constexpr size_t kCacheCapacity = 1 << 15;

struct Symbol {
  TokenId id;
  int32_t prev;  // index of the previous live symbol, -1 if none
  int32_t next;  // index of the next live symbol, -1 if none
  bool alive;
};

struct Candidate {
  uint32_t rank;
  int32_t pos;  // left symbol of the pair
  TokenId merged;
};

// Heap order: the top is the lowest rank, then the leftmost position.
bool comes_later(const Candidate& a, const Candidate& b) {
  return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
}

// Per-thread scratch so merging a word allocates nothing once warm.
struct Scratch {
  std::vector<Symbol> symbols;
  std::vector<Candidate> heap;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

}  // namespace

struct BpeModel::Cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<TokenId>> words;
};

BpeModel::BpeModel(BpeModel&&) noexcept = default;
BpeModel& BpeModel::operator=(BpeModel&&) noexcept = default;
BpeModel::~BpeModel() = default;

Result<BpeModel> BpeModel::create(std::vector<std::string> token_bytes,
                                  const std::vector<std::pair<std::string, std::string>>& merges) {
  TE_CHECK_OR_RETURN(token_bytes.size() < static_cast<size_t>(INT32_MAX), Error::InvalidProgram,
                     "BPE vocabulary of %zu tokens is too large", token_bytes.size());
  BpeModel model;
  model.token_bytes_ = std::move(token_bytes);
  model.ids_.reserve(model.token_bytes_.size());
  for (size_t id = 0; id < model.token_bytes_.size(); ++id) {
    model.ids_[model.token_bytes_[id]] = static_cast<TokenId>(id);
  }
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    model.byte_tokens_[b] = model.find(std::string_view(&c, 1));
  }
  model.merges_.reserve(merges.size());
  std::string joined;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string& left = merges[rank].first;
    const std::string& right = merges[rank].second;
    joined.assign(left).append(right);
    const TokenId a = model.find(left), b = model.find(right), ab = model.find(joined);
    TE_CHECK_OR_RETURN(a != kNoToken && b != kNoToken && ab != kNoToken, Error::InvalidProgram,
                       "BPE merge %zu joins tokens of %zu and %zu bytes, but %s is not in the "
                       "vocabulary",
                       rank, left.size(), right.size(),
                       a == kNoToken ? "its left part" : b == kNoToken ? "its right part"
                                                                       : "the joined token");
    model.merges_[pair_key(a, b)] = Merge{static_cast<uint32_t>(rank), ab};
  }
  model.cache_ = std::make_unique<Cache>();
  return model;
}

TokenId BpeModel::find(std::string_view bytes) const {
  auto it = ids_.find(bytes);
  return it == ids_.end() ? kNoToken : it->second;
}

size_t BpeModel::cached_words() const {
  std::lock_guard<std::mutex> lock(cache_->mutex);
  return cache_->words.size();
}

void BpeModel::encode_word(std::string_view word, std::vector<TokenId>& out) const {
  if (word.empty()) return;
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    auto it = cache_->words.find(std::string(word));
    if (it != cache_->words.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t start = out.size();
  merge_word(word, out);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(cache_->mutex);
    if (cache_->words.size() >= kCacheCapacity) cache_->words.clear();
    cache_->words.emplace(std::string(word), std::vector<TokenId>(out.begin() + start, out.end()));
  }
}

void BpeModel::merge_word(std::string_view word, std::vector<TokenId>& out) const {
  Scratch& s = scratch();
  std::vector<Symbol>& sym = s.symbols;
  std::vector<Candidate>& heap = s.heap;
  sym.clear();
  heap.clear();
  for (char c : word) {
    const TokenId id = byte_tokens_[static_cast<uint8_t>(c)];
    if (id == kNoToken) continue;
    const auto i = static_cast<int32_t>(sym.size());
    sym.push_back(Symbol{id, i - 1, -1, true});
    if (i > 0) sym[static_cast<size_t>(i - 1)].next = i;
  }
  auto push_pair = [&](int32_t left) {
    const Symbol& l = sym[static_cast<size_t>(left)];
    if (l.next < 0) return;
    auto it = merges_.find(pair_key(l.id, sym[static_cast<size_t>(l.next)].id));
    if (it == merges_.end()) return;
    heap.push_back(Candidate{it->second.rank, left, it->second.merged});
    std::push_heap(heap.begin(), heap.end(), comes_later);
  };
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(sym.size()); ++i) push_pair(i);

  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), comes_later);
    const Candidate top = heap.back();
    heap.pop_back();
    Symbol& left = sym[static_cast<size_t>(top.pos)];
    if (!left.alive || left.next < 0) continue;
    // Stale if the pair changed since it was queued: the reference compares
    // the merged id only, and so does this.
    Symbol& right = sym[static_cast<size_t>(left.next)];
    auto it = merges_.find(pair_key(left.id, right.id));
    if (it == merges_.end() || it->second.merged != top.merged) continue;
    left.id = top.merged;
    right.alive = false;
    left.next = right.next;
    if (left.next >= 0) sym[static_cast<size_t>(left.next)].prev = top.pos;
    if (left.prev >= 0) push_pair(left.prev);
    push_pair(top.pos);
  }
  for (int32_t i = sym.empty() ? -1 : 0; i >= 0; i = sym[static_cast<size_t>(i)].next) {
    out.push_back(sym[static_cast<size_t>(i)].id);
  }
}

}  // namespace llm
}  // namespace torchedge
