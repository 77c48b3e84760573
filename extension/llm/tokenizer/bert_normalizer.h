// torchedge/extension/llm/tokenizer/bert_normalizer.h
//
// The text steps of a BERT (WordPiece) tokenizer before the vocabulary is
// consulted, as Hugging Face tokenizers' BertNormalizer and BertPreTokenizer
// define them:
//
//   normalize     1. clean_text: drop U+0000, U+FFFD and control characters
//                    (Cc, Cf, Co, except \t \n \r); whitespace becomes ' '
//                 2. handle_chinese_chars: a space either side of each CJK
//                    ideograph (is_cjk_ideograph), so each is a word
//                 3. strip_accents: NFD, then drop Mn (nonspacing marks)
//                 4. lowercase: per character (unicode_normalization.h)
//   pre_tokenize  split on whitespace (dropped), then on punctuation (each
//                 punctuation character a word of its own): ASCII
//                 punctuation (which includes $ + < = > ^ ` | ~) and the
//                 Unicode categories Pc Pd Ps Pe Pi Pf Po
//
// Text is UTF-8 in; bytes that are not valid UTF-8 become U+FFFD (which
// clean_text drops). The Unicode data is that of unicode_categories.h and
// unicode_normalization.h (Python's unicodedata, Unicode 14). Characters
// whose properties changed between that version and the ones the reference
// implementation was built with (a few hundred rare marks, format
// characters and new lower-case pairs) may normalize differently; the tests
// (tests/embedding/test_wordpiece_tokenizer.py) sweep every code point and
// bound that set.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torchedge {
namespace llm {

struct BertNormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;  // BERT's default: the same as lowercase
  bool lowercase = true;
};

/// True for the CJK Unified Ideographs (and their extensions and
/// compatibility blocks) that BERT treats as one word each.
bool is_cjk_ideograph(uint32_t code_point);

/// ASCII punctuation or a Unicode punctuation category (see above).
bool is_bert_punctuation(uint32_t code_point);

/// Appends the normalized code points of UTF-8 `text` to `out`.
void bert_normalize(std::string_view text, const BertNormalizerOptions& options,
                    std::u32string& out);

/// Appends the words of normalized `text` (non-empty views into it, in order).
void bert_pre_tokenize(std::u32string_view text, std::vector<std::u32string_view>& words);

}  // namespace llm
}  // namespace torchedge
