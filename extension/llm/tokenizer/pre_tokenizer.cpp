#include "extension/llm/tokenizer/pre_tokenizer.h"

#include <cstdint>

#include "extension/llm/tokenizer/unicode_categories.h"
#include "extension/llm/tokenizer/utf8.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// The four classes the GPT-2 pattern distinguishes.
enum class CharClass : uint8_t { Letter, Number, Space, Other };

struct ScanChar {
  CharClass cls;
  uint32_t length;
};

CharClass classify(uint32_t code_point) {
  if (code_point == kInvalidCodePoint) return CharClass::Other;
  if (is_letter(code_point)) return CharClass::Letter;
  if (is_number(code_point)) return CharClass::Number;
  if (is_whitespace(code_point)) return CharClass::Space;
  return CharClass::Other;
}

// ASCII by hand (a constexpr table, no lookups): its only letters are A-Z and
// a-z, its only numbers 0-9, its whitespace 0x09..0x0D and the space.
// tokenizer_unicode_test checks that the Unicode table agrees.
constexpr CharClass ascii_class(uint32_t c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) return CharClass::Letter;
  if (c >= '0' && c <= '9') return CharClass::Number;
  if ((c >= 0x09 && c <= 0x0D) || c == ' ') return CharClass::Space;
  return CharClass::Other;
}

struct AsciiClasses {
  CharClass cls[128];
};

constexpr AsciiClasses make_ascii_classes() {
  AsciiClasses t{};
  for (uint32_t c = 0; c < 128; ++c) t.cls[c] = ascii_class(c);
  return t;
}

constexpr AsciiClasses kAsciiClasses = make_ascii_classes();

// Scans one stretch of text [0, end) of `data`; every index is < end.
class Scanner {
 public:
  Scanner(const char* data, size_t end, std::vector<std::string_view>& words)
      : data_(data), end_(end), words_(words) {}

  ScanChar at(size_t pos) const {
    const auto b = static_cast<uint8_t>(data_[pos]);
    if (b < 0x80) return {kAsciiClasses.cls[b], 1};
    const Utf8Char c = read_utf8(data_ + pos, end_ - pos);
    return {classify(c.code_point), c.length};
  }

  // End of the run of `cls` characters starting at `pos`.
  size_t run_end(size_t pos, CharClass cls) const {
    while (pos < end_) {
      const ScanChar c = at(pos);
      if (c.cls != cls) break;
      pos += c.length;
    }
    return pos;
  }

  // 's 't 're 've 'm 'll 'd: the match length at `pos`, or 0.
  size_t contraction(size_t pos) const {
    if (data_[pos] != '\'' || pos + 1 >= end_) return 0;
    const char a = data_[pos + 1];
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (pos + 2 >= end_) return 0;
    const char b = data_[pos + 2];
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
  }

  // Length of the GPT-2 pattern's match at `pos` (always >= 1).
  size_t match(size_t pos) const {
    if (const size_t n = contraction(pos)) return n;
    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space, then a run.
    ScanChar first = at(pos);
    size_t body = pos;
    if (data_[pos] == ' ' && pos + 1 < end_) {
      const ScanChar next = at(pos + 1);
      if (next.cls != CharClass::Space) {
        first = next;
        body = pos + 1;
      }
    }
    if (first.cls != CharClass::Space) return run_end(body, first.cls) - pos;
    // `\s+(?!\S)` backs off one character so that the last whitespace can
    // lead the next word; a lone whitespace before \S falls to `\s+`.
    size_t last = pos, e = pos;
    while (e < end_) {
      const ScanChar c = at(e);
      if (c.cls != CharClass::Space) break;
      last = e;
      e += c.length;
    }
    if (e < end_ && last > pos) return last - pos;
    return e - pos;
  }

  void split_gpt2(size_t begin, size_t end) {
    for (size_t pos = begin; pos < end;) {
      const size_t n = match(pos);
      words_.emplace_back(data_ + pos, n);
      pos += n;
    }
  }

 private:
  const char* data_;
  size_t end_;
  std::vector<std::string_view>& words_;
};

void split_isolated_digits(std::string_view text, std::vector<std::string_view>& words) {
  const Scanner whole(text.data(), text.size(), words);
  size_t stretch = 0;  // start of the text since the last number
  for (size_t pos = 0; pos < text.size();) {
    const ScanChar c = whole.at(pos);
    if (c.cls == CharClass::Number) {
      // The stretch ends here: its scanner must not look past `pos`.
      if (pos > stretch) Scanner(text.data(), pos, words).split_gpt2(stretch, pos);
      words.emplace_back(text.data() + pos, c.length);
      stretch = pos + c.length;
    }
    pos += c.length;
  }
  if (text.size() > stretch) Scanner(text.data(), text.size(), words).split_gpt2(stretch, text.size());
}

struct NamedKind {
  const char* name;
  PreTokenizerKind kind;
};

constexpr NamedKind kNames[] = {
    {"gpt2", PreTokenizerKind::Gpt2},
    {"smollm", PreTokenizerKind::Gpt2IsolatedDigits},
};

}  // namespace

Result<PreTokenizer> PreTokenizer::from_name(std::string_view name) {
  for (const NamedKind& entry : kNames) {
    if (name == entry.name) return PreTokenizer(entry.kind);
  }
  record_error_message(
      "pre-tokenizer '%.*s' (tokenizer.ggml.pre) is not supported; supported: gpt2, smollm",
      static_cast<int>(name.size() > 64 ? 64 : name.size()), name.data());
  return Error::NotSupported;
}

const char* PreTokenizer::name() const {
  for (const NamedKind& entry : kNames) {
    if (entry.kind == kind_) return entry.name;
  }
  return "?";
}

void PreTokenizer::split(std::string_view text, std::vector<std::string_view>& words) const {
  switch (kind_) {
    case PreTokenizerKind::Gpt2:
      Scanner(text.data(), text.size(), words).split_gpt2(0, text.size());
      return;
    case PreTokenizerKind::Gpt2IsolatedDigits:
      split_isolated_digits(text, words);
      return;
  }
}

}  // namespace llm
}  // namespace torchedge
