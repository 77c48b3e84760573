// PreTokenizer: the GPT-2 pattern's splits (contractions, optional leading
// space, letter / number / other runs, whitespace backing off before a
// word), isolated digits for "smollm", and words that always cover the text.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "extension/llm/tokenizer/pre_tokenizer.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

std::vector<std::string> split(PreTokenizerKind kind, const std::string& text) {
  std::vector<std::string_view> words;
  PreTokenizer(kind).split(text, words);
  return std::vector<std::string>(words.begin(), words.end());
}

using Words = std::vector<std::string>;

std::vector<std::string> gpt2(const std::string& text) { return split(PreTokenizerKind::Gpt2, text); }
std::vector<std::string> smollm(const std::string& text) {
  return split(PreTokenizerKind::Gpt2IsolatedDigits, text);
}

TEST(PreTokenizerTest, Gpt2Words) {
  EXPECT_EQ(gpt2(""), Words{});
  EXPECT_EQ(gpt2("Hello world"), (Words{"Hello", " world"}));
  EXPECT_EQ(gpt2("Hello, world!"), (Words{"Hello", ",", " world", "!"}));
  EXPECT_EQ(gpt2("abc123 456"), (Words{"abc", "123", " 456"}));
  EXPECT_EQ(gpt2("a+=b;"), (Words{"a", "+=", "b", ";"}));
  EXPECT_EQ(gpt2("x  ->y"), (Words{"x", " ", " ->", "y"}));
}

TEST(PreTokenizerTest, Gpt2Contractions) {
  EXPECT_EQ(gpt2("I'm you're we've he'll she'd it's don't"),
            (Words{"I", "'m", " you", "'re", " we", "'ve", " he", "'ll", " she", "'d", " it", "'s",
                   " don", "'t"}));
  EXPECT_EQ(gpt2("I'M"), (Words{"I", "'", "M"}));  // lower case only
  EXPECT_EQ(gpt2("''s"), (Words{"''", "s"}));      // only at the start of a match
  EXPECT_EQ(gpt2("'"), (Words{"'"}));
  EXPECT_EQ(gpt2("'l"), (Words{"'", "l"}));
}

TEST(PreTokenizerTest, Gpt2Whitespace) {
  EXPECT_EQ(gpt2("hi   "), (Words{"hi", "   "}));          // trailing run kept whole
  EXPECT_EQ(gpt2("  hi"), (Words{" ", " hi"}));            // last space leads the word
  EXPECT_EQ(gpt2("a\n\nb"), (Words{"a", "\n", "\n", "b"}));  // \s+(?!\S), then \s+
  EXPECT_EQ(gpt2("a \n b"), (Words{"a", " \n", " b"}));
  EXPECT_EQ(gpt2("a\tb"), (Words{"a", "\t", "b"}));
  EXPECT_EQ(gpt2("\n"), (Words{"\n"}));
  EXPECT_EQ(gpt2(" "), (Words{" "}));
  EXPECT_EQ(gpt2("x \xe3\x80\x80y"), (Words{"x", " ", "\xe3\x80\x80", "y"}));  // U+3000
  EXPECT_EQ(gpt2("a\x1c" "b"), (Words{"a", "\x1c", "b"}));  // U+001C is not \s
}

TEST(PreTokenizerTest, Gpt2Unicode) {
  EXPECT_EQ(gpt2("naïve café"), (Words{"naïve", " café"}));
  EXPECT_EQ(gpt2("日本語テキスト"), (Words{"日本語テキスト"}));
  EXPECT_EQ(gpt2("e\xcc\x81"), (Words{"e", "\xcc\x81"}));  // combining mark: not \p{L}
  EXPECT_EQ(gpt2(" ½²"), (Words{" ½²"}));                   // No is \p{N}
  EXPECT_EQ(gpt2("ok 😀!"), (Words{"ok", " 😀!"}));
  EXPECT_EQ(gpt2("\xff\xfe a"), (Words{"\xff\xfe", " a"}));  // invalid bytes are "other"
}

TEST(PreTokenizerTest, IsolatedDigits) {
  EXPECT_EQ(smollm("abc123"), (Words{"abc", "1", "2", "3"}));
  EXPECT_EQ(smollm(" 12"), (Words{" ", "1", "2"}));
  EXPECT_EQ(smollm("a  1"), (Words{"a", "  ", "1"}));  // the stretch ends at the digit
  EXPECT_EQ(smollm("x1 y"), (Words{"x", "1", " y"}));
  EXPECT_EQ(smollm("٣٤"), (Words{"٣", "٤"}));  // Arabic-Indic digits are \p{N}
  EXPECT_EQ(smollm("v½"), (Words{"v", "½"}));
  EXPECT_EQ(smollm("no digits here"), gpt2("no digits here"));
}

TEST(PreTokenizerTest, WordsCoverAnyBytes) {
  std::mt19937 rng(11);
  const char alphabet[] = "ab 1\n\t'sé\xe2\x80\x80\xf0\x9f\x98\x80\xff";
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) text.push_back(alphabet[rng() % (sizeof(alphabet) - 1)]);
    for (PreTokenizerKind kind : {PreTokenizerKind::Gpt2, PreTokenizerKind::Gpt2IsolatedDigits}) {
      std::string joined;
      for (const std::string& w : split(kind, text)) {
        ASSERT_FALSE(w.empty());
        joined += w;
      }
      ASSERT_EQ(joined, text);
    }
  }
}

TEST(PreTokenizerTest, NamesAndUnknownNames) {
  Result<PreTokenizer> gpt2_pre = PreTokenizer::from_name("gpt2");
  ASSERT_TRUE(gpt2_pre.ok());
  EXPECT_EQ(gpt2_pre->kind(), PreTokenizerKind::Gpt2);
  EXPECT_STREQ(PreTokenizer(PreTokenizerKind::Gpt2IsolatedDigits).name(), "smollm");
  Result<PreTokenizer> unknown = PreTokenizer::from_name("llama-bpe");
  EXPECT_EQ(unknown.error(), Error::NotSupported);
  EXPECT_STREQ(last_error_message(),
               "pre-tokenizer 'llama-bpe' (tokenizer.ggml.pre) is not supported; supported: "
               "gpt2, smollm");
}

}  // namespace
}  // namespace llm
}  // namespace torchedge
