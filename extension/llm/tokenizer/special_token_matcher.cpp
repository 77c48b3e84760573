#include "extension/llm/tokenizer/special_token_matcher.h"

#include <algorithm>
#include <cstring>

namespace torchedge {
namespace llm {

void SpecialTokenMatcher::add(std::string_view text, TokenId id) {
  if (text.empty()) return;
  for (Entry& e : tokens_) {
    if (e.text == text) {
      e.id = id;
      return;
    }
  }
  tokens_.push_back(Entry{std::string(text), id});
  std::vector<uint32_t>& bucket = by_first_byte_[static_cast<uint8_t>(text[0])];
  bucket.push_back(static_cast<uint32_t>(tokens_.size() - 1));
  std::stable_sort(bucket.begin(), bucket.end(), [this](uint32_t a, uint32_t b) {
    return tokens_[a].text.size() > tokens_[b].text.size();
  });
}

SpecialTokenMatcher::Match SpecialTokenMatcher::find(std::string_view text, size_t from) const {
  if (!tokens_.empty()) {
    for (size_t pos = from; pos < text.size(); ++pos) {
      const std::vector<uint32_t>& bucket = by_first_byte_[static_cast<uint8_t>(text[pos])];
      for (uint32_t index : bucket) {
        const Entry& e = tokens_[index];
        if (e.text.size() <= text.size() - pos &&
            std::memcmp(text.data() + pos, e.text.data(), e.text.size()) == 0) {
          return Match{pos, e.text.size(), e.id};
        }
      }
    }
  }
  return Match{text.size(), 0, kNoToken};
}

}  // namespace llm
}  // namespace torchedge
