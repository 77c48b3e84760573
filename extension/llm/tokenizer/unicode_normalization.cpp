#include "extension/llm/tokenizer/unicode_normalization.h"

#include <algorithm>
#include <cstddef>

namespace torchedge {
namespace llm {
namespace {

#include "extension/llm/tokenizer/normalization_tables.inc"

constexpr size_t kNumDecomposed = sizeof(kDecomposed) / sizeof(kDecomposed[0]);
constexpr size_t kNumClasses = sizeof(kCombiningClasses) / sizeof(kCombiningClasses[0]);
constexpr size_t kNumLower = sizeof(kLowerFrom) / sizeof(kLowerFrom[0]);
static_assert(sizeof(kDecompositionStart) / sizeof(kDecompositionStart[0]) == kNumDecomposed + 1,
              "one start per decomposition, plus the end");
static_assert(sizeof(kLowerTo) / sizeof(kLowerTo[0]) == kNumLower, "one target per mapping");

// Hangul syllable decomposition (Unicode 15, section 3.12).
constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = 19 * kNCount;

// Index of `code_point` in a sorted table, or -1.
template <size_t N>
ptrdiff_t find_sorted(const uint32_t (&table)[N], uint32_t code_point) {
  const uint32_t* it = std::lower_bound(table, table + N, code_point);
  return it != table + N && *it == code_point ? it - table : -1;
}

}  // namespace

void append_canonical_decomposition(uint32_t code_point, std::u32string& out) {
  if (code_point < 0xC0) {  // nothing below U+00C0 decomposes
    out.push_back(code_point);
    return;
  }
  if (code_point >= kSBase && code_point < kSBase + kSCount) {
    const uint32_t s = code_point - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
    return;
  }
  const ptrdiff_t i = find_sorted(kDecomposed, code_point);
  if (i < 0) {
    out.push_back(code_point);
    return;
  }
  for (size_t k = kDecompositionStart[i]; k < kDecompositionStart[i + 1]; ++k) {
    out.push_back(kDecompositionData[k]);
  }
}

uint8_t canonical_combining_class(uint32_t code_point) {
  if (code_point < 0x300 || code_point > 0x10FFFF) return 0;
  const uint32_t key = code_point << 8;
  const uint32_t* it = std::lower_bound(kCombiningClasses, kCombiningClasses + kNumClasses, key);
  return it != kCombiningClasses + kNumClasses && (*it >> 8) == code_point
             ? static_cast<uint8_t>(*it & 0xFF)
             : 0;
}

void append_nfd(std::u32string_view text, std::u32string& out) {
  const size_t begin = out.size();
  for (char32_t c : text) append_canonical_decomposition(c, out);
  // Canonical ordering: sort each run of non-starters by class, stably.
  size_t i = begin;
  while (i < out.size()) {
    if (canonical_combining_class(out[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < out.size() && canonical_combining_class(out[j]) != 0) ++j;
    if (j - i > 1) {
      std::stable_sort(out.begin() + static_cast<ptrdiff_t>(i), out.begin() + static_cast<ptrdiff_t>(j),
                       [](char32_t a, char32_t b) {
                         return canonical_combining_class(a) < canonical_combining_class(b);
                       });
    }
    i = j;
  }
}

void append_lowercase(uint32_t code_point, std::u32string& out) {
  if (code_point < 0x80) {
    out.push_back(code_point >= 'A' && code_point <= 'Z' ? code_point + 32 : code_point);
    return;
  }
  const ptrdiff_t i = find_sorted(kLowerFrom, code_point);
  if (i < 0) {
    out.push_back(code_point);
  } else if (kLowerTo[i] == 0) {  // U+0130, the one two-character lower case
    out.push_back('i');
    out.push_back(0x307);
  } else {
    out.push_back(kLowerTo[i]);
  }
}

const char* normalization_unicode_version() { return kNormalizationUnicodeVersion; }

}  // namespace llm
}  // namespace torchedge
