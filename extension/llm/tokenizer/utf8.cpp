#include "extension/llm/tokenizer/utf8.h"

namespace torchedge {
namespace llm {
namespace {

constexpr uint32_t kReplacement = 0xFFFD;

struct LeadByte {
  uint32_t length;           // 1..4 bytes in the whole sequence; 0: never a lead byte
  uint8_t second_lo, second_hi;  // allowed range of the second byte
};

// Table 3-7 of the Unicode standard (well-formed UTF-8 byte sequences): the
// second byte's range depends on the lead byte; later bytes are 80..BF.
LeadByte lead_byte(uint8_t b) {
  if (b < 0x80) return {1, 0, 0};
  if (b < 0xC2) return {0, 0, 0};
  if (b < 0xE0) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b < 0xF0) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b < 0xF4) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

Utf8Char read_utf8(const char* data, size_t size) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data);
  const LeadByte lead = lead_byte(bytes[0]);
  if (lead.length == 1) return {bytes[0], 1};
  if (lead.length == 0) return {kInvalidCodePoint, 1};
  // Consume bytes while they can continue this sequence; stop at the first
  // that cannot (it is not part of the invalid subpart).
  uint32_t code_point = bytes[0] & (0xFF >> (lead.length + 1));
  uint32_t taken = 1;
  while (taken < lead.length && taken < size) {
    const uint8_t b = bytes[taken];
    const bool ok = taken == 1 ? (b >= lead.second_lo && b <= lead.second_hi) : is_continuation(b);
    if (!ok) break;
    code_point = (code_point << 6) | (b & 0x3F);
    ++taken;
  }
  if (taken < lead.length) return {kInvalidCodePoint, taken};
  return {code_point, taken};
}

void append_utf8(uint32_t code_point, std::string& out) {
  if (code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) {
    code_point = kReplacement;
  }
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

void append_utf8_lossy(std::string_view bytes, std::string& out) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    // Copy the longest valid run in one append; most text has no errors.
    size_t run = pos;
    Utf8Char c{0, 0};
    while (run < bytes.size()) {
      c = read_utf8(bytes.data() + run, bytes.size() - run);
      if (c.code_point == kInvalidCodePoint) break;
      run += c.length;
    }
    out.append(bytes.data() + pos, run - pos);
    if (run == bytes.size()) break;
    append_utf8(kReplacement, out);
    pos = run + c.length;
  }
}

size_t unfinished_utf8_tail(std::string_view bytes) {
  // A lead byte at most 3 bytes from the end, followed only by bytes that
  // can continue it, and fewer of them than its sequence needs.
  const size_t n = bytes.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const uint8_t b = static_cast<uint8_t>(bytes[n - back]);
    if (is_continuation(b)) continue;
    const LeadByte lead = lead_byte(b);
    if (lead.length <= back) return 0;  // ASCII, invalid, or already complete
    const Utf8Char c = read_utf8(bytes.data() + n - back, back);
    return c.length == back ? back : 0;  // all `back` bytes valid so far
  }
  return 0;
}

}  // namespace llm
}  // namespace torchedge
