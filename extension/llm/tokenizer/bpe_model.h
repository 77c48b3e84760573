// torchedge/extension/llm/tokenizer/bpe_model.h
//
// The BPE model proper: a vocabulary of byte strings and ranked merges,
// applied to one pre-tokenized word at a time.
//
// A word starts as one symbol per byte (the vocabulary's single-byte tokens;
// a byte without one is dropped, as the reference drops characters without an
// id when there is no unknown token). The adjacent pair whose merge has the
// lowest rank is merged, leftmost first among equal ranks, until no adjacent
// pair has a merge: the Hugging Face tokenizers algorithm (a priority queue of
// (rank, position)), O(n log n) in the word's length. Results are cached per
// word.
//
// Thread-safe: encode_word() may run on several threads at once (the cache
// takes a mutex; the scratch buffers are per thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "extension/llm/tokenizer/tokenizer.h"
#include "runtime/core/result.h"

namespace torchedge {
namespace llm {

class BpeModel {
 public:
  /// `token_bytes[id]` holds the bytes of token `id`. `merges[rank]` is a pair
  /// (left, right) of token byte strings whose concatenation is also a token.
  /// InvalidProgram, naming the merge, if one of the three is not in the
  /// vocabulary. When several ids have the same bytes, the last one is the
  /// one text encodes to; a pair listed twice keeps its last rank (both as the
  /// reference does).
  static Result<BpeModel> create(std::vector<std::string> token_bytes,
                                 const std::vector<std::pair<std::string, std::string>>& merges);

  BpeModel(BpeModel&&) noexcept;
  BpeModel& operator=(BpeModel&&) noexcept;
  ~BpeModel();

  size_t vocab_size() const { return token_bytes_.size(); }
  size_t num_merges() const { return merges_.size(); }

  /// Bytes of `id` (< vocab_size()); the view lives as long as the model.
  std::string_view bytes(TokenId id) const { return token_bytes_[static_cast<size_t>(id)]; }

  /// The id whose bytes are `bytes`, or kNoToken.
  TokenId find(std::string_view bytes) const;

  /// Appends the ids of `word` (one pre-tokenized word, any bytes) to `out`.
  void encode_word(std::string_view word, std::vector<TokenId>& out) const;

  /// Words cached so far (for tests).
  size_t cached_words() const;

 private:
  struct Merge {
    uint32_t rank;
    TokenId merged;
  };
  struct Cache;

  BpeModel() = default;
  static uint64_t pair_key(TokenId left, TokenId right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
           static_cast<uint32_t>(right);
  }
  void merge_word(std::string_view word, std::vector<TokenId>& out) const;

  std::vector<std::string> token_bytes_;
  std::unordered_map<std::string_view, TokenId> ids_;  // views into token_bytes_
  std::unordered_map<uint64_t, Merge> merges_;
  TokenId byte_tokens_[256];
  std::unique_ptr<Cache> cache_;
};

}  // namespace llm
}  // namespace torchedge
