#include "extension/llm/tokenizer/bert_normalizer.h"

#include "extension/llm/tokenizer/unicode_categories.h"
#include "extension/llm/tokenizer/unicode_normalization.h"
#include "extension/llm/tokenizer/utf8.h"

namespace torchedge {
namespace llm {
namespace {

// \t \n \r are Cc but count as whitespace, not as control characters.
bool is_tab_or_newline(uint32_t c) { return c == '\t' || c == '\n' || c == '\r'; }

bool is_control(uint32_t c) {
  if (is_tab_or_newline(c)) return false;
  const GeneralCategory category = general_category(c);
  // Not Cn: the reference keeps unassigned code points.
  return category == GeneralCategory::Cc || category == GeneralCategory::Cf ||
         category == GeneralCategory::Co;
}

}  // namespace

bool is_cjk_ideograph(uint32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_punctuation(uint32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126)) {
    return true;
  }
  const GeneralCategory category = general_category(c);
  return category >= GeneralCategory::Pc && category <= GeneralCategory::Po;
}

void bert_normalize(std::string_view text, const BertNormalizerOptions& options,
                    std::u32string& out) {
  thread_local std::u32string cleaned;
  cleaned.clear();
  for (size_t pos = 0; pos < text.size();) {
    const Utf8Char ch = read_utf8(text.data() + pos, text.size() - pos);
    pos += ch.length;
    uint32_t c = ch.code_point == kInvalidCodePoint ? 0xFFFD : ch.code_point;
    if (options.clean_text) {
      if (c == 0 || c == 0xFFFD || is_control(c)) continue;
      if (is_tab_or_newline(c) || is_whitespace(c)) c = ' ';
    }
    if (options.handle_chinese_chars && is_cjk_ideograph(c)) {
      cleaned.push_back(' ');
      cleaned.push_back(c);
      cleaned.push_back(' ');
    } else {
      cleaned.push_back(c);
    }
  }
  thread_local std::u32string stripped;
  const std::u32string* current = &cleaned;
  if (options.strip_accents) {
    thread_local std::u32string decomposed;
    decomposed.clear();
    append_nfd(cleaned, decomposed);
    stripped.clear();
    for (char32_t c : decomposed) {
      if (general_category(c) != GeneralCategory::Mn) stripped.push_back(c);
    }
    current = &stripped;
  }
  if (!options.lowercase) {
    out.append(*current);
    return;
  }
  for (char32_t c : *current) append_lowercase(c, out);
}

void bert_pre_tokenize(std::u32string_view text, std::vector<std::u32string_view>& words) {
  size_t start = 0;  // of the word being read
  for (size_t i = 0; i < text.size(); ++i) {
    const uint32_t c = text[i];
    const bool space = is_whitespace(c);
    if (!space && !is_bert_punctuation(c)) continue;
    if (i > start) words.push_back(text.substr(start, i - start));
    if (!space) words.push_back(text.substr(i, 1));
    start = i + 1;
  }
  if (text.size() > start) words.push_back(text.substr(start));
}

}  // namespace llm
}  // namespace torchedge
