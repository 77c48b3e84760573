#include "extension/llm/tokenizer/unicode_categories.h"

#include <cstddef>

namespace torchedge {
namespace llm {
namespace {

#include "extension/llm/tokenizer/unicode_tables.inc"

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr uint32_t kCategoryBits = 5;

constexpr size_t kNumRuns = sizeof(kCategoryRuns) / sizeof(kCategoryRuns[0]);

// The category of the last run starting at or before code_point (binary
// search; constexpr so the ASCII table below is built at compile time).
constexpr GeneralCategory search_runs(uint32_t code_point) {
  const uint32_t key = (code_point << kCategoryBits) | ((1u << kCategoryBits) - 1);
  size_t lo = 0, hi = kNumRuns;  // first entry > key lies in [lo, hi]
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (kCategoryRuns[mid] <= key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return static_cast<GeneralCategory>(kCategoryRuns[lo - 1] & ((1u << kCategoryBits) - 1));
}

// ASCII is most of the text a tokenizer sees: answer it without a search.
struct AsciiCategories {
  GeneralCategory category[128];
};

constexpr AsciiCategories make_ascii_categories() {
  AsciiCategories table{};
  for (uint32_t c = 0; c < 128; ++c) table.category[c] = search_runs(c);
  return table;
}

constexpr AsciiCategories kAscii = make_ascii_categories();
static_assert(kCategoryRuns[0] == 0x1a, "the table starts at U+0000 (Cc)");

}  // namespace

GeneralCategory general_category(uint32_t code_point) {
  if (code_point < 128) return kAscii.category[code_point];
  if (code_point > kMaxCodePoint) return GeneralCategory::Cn;
  return search_runs(code_point);
}

bool is_letter(uint32_t code_point) {
  const GeneralCategory c = general_category(code_point);
  return c >= GeneralCategory::Lu && c <= GeneralCategory::Lo;
}

bool is_number(uint32_t code_point) {
  const GeneralCategory c = general_category(code_point);
  return c >= GeneralCategory::Nd && c <= GeneralCategory::No;
}

bool is_whitespace(uint32_t code_point) {
  if ((code_point >= 0x09 && code_point <= 0x0D) || code_point == 0x85) return true;
  const GeneralCategory c = general_category(code_point);
  return c >= GeneralCategory::Zs && c <= GeneralCategory::Zp;
}

const char* unicode_version() { return kUnicodeVersion; }

}  // namespace llm
}  // namespace torchedge
