// torchedge/fuzz/flatbuffer_mutator.cpp: see flatbuffer_mutator.h.
#include "fuzz/flatbuffer_mutator.h"

#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <unordered_set>

namespace torchedge {
namespace fuzz {
namespace {

constexpr int kMaxDepth = 24;
constexpr uint32_t kMaxVectorElements = 64;  // elements of one vector visited

template <typename T>
bool read(const uint8_t* data, size_t size, size_t at, T* out) {
  if (at > size || size - at < sizeof(T)) return false;
  memcpy(out, data + at, sizeof(T));
  return true;
}

class Walker {
 public:
  Walker(const uint8_t* data, size_t size, size_t max_slots)
      : data_(data), size_(size), max_slots_(max_slots) {}

  std::vector<FlatbufferSlot> walk() {
    uint32_t root = 0;
    if (read(data_, size_, 0, &root) && plausible_table(root)) table(root, 0);
    return std::move(slots_);
  }

 private:
  bool full() const { return slots_.size() >= max_slots_; }

  void add(size_t offset, size_t width, bool is_offset = false) {
    if (!full() && offset < size_) {
      slots_.push_back({offset, static_cast<uint8_t>(width < 8 ? width : 8), is_offset});
    }
  }

  // A table at `at`: its soffset leads to a vtable whose sizes fit.
  bool plausible_table(size_t at) const {
    int32_t back = 0;
    if (at % 4 != 0 || !read(data_, size_, at, &back)) return false;
    const int64_t vtable = static_cast<int64_t>(at) - back;
    uint16_t vtable_size = 0, table_size = 0;
    return vtable >= 0 && vtable % 2 == 0 &&
           read(data_, size_, static_cast<size_t>(vtable), &vtable_size) &&
           read(data_, size_, static_cast<size_t>(vtable) + 2, &table_size) &&
           vtable_size >= 4 && vtable_size % 2 == 0 && table_size >= 4 &&
           static_cast<size_t>(vtable) + vtable_size <= size_ && at + table_size <= size_;
  }

  void table(size_t at, int depth) {
    if (depth > kMaxDepth || full() || !visited_.insert(at).second) return;
    int32_t back = 0;
    read(data_, size_, at, &back);
    const size_t vtable = at - back;
    uint16_t vtable_size = 0, table_size = 0;
    read(data_, size_, vtable, &vtable_size);
    read(data_, size_, vtable + 2, &table_size);
    std::vector<uint16_t> fields;
    for (size_t f = 4; f + 2 <= vtable_size; f += 2) {
      uint16_t field = 0;
      if (read(data_, size_, vtable + f, &field) && field >= 4 && field < table_size) {
        fields.push_back(field);
      }
    }
    for (uint16_t field : fields) {
      // A field spans up to the next field that starts after it, or the table's end.
      size_t end = table_size;
      for (uint16_t other : fields) {
        if (other > field && other < end) end = other;
      }
      const size_t slot = at + field;
      uint32_t target = 0;
      const bool offset = end - field >= 4 && slot % 4 == 0 && read(data_, size_, slot, &target) &&
                          target != 0 && slot + target < size_;
      add(slot, end - field, offset);
      if (offset) follow(slot + target, depth + 1);
    }
  }

  // What an offset field points at: a table, or a vector (of scalars or of
  // offsets to tables).
  void follow(size_t at, int depth) {
    if (at >= size_ || full()) return;
    if (plausible_table(at)) {
      table(at, depth);
      return;
    }
    uint32_t length = 0;
    if (at % 4 != 0 || !read(data_, size_, at, &length) || length > size_ - at - 4) return;
    if (!visited_.insert(at).second) return;
    add(at, 4);  // the length word
    const uint32_t visit = length < kMaxVectorElements ? length : kMaxVectorElements;
    // Offsets to tables when every visited element is one; else scalars
    // (elements of 4 bytes when they fit, else bytes).
    bool tables = length * size_t{4} <= size_ - at - 4 && visit > 0;
    for (uint32_t i = 0; tables && i < visit; ++i) {
      uint32_t element = 0;
      const size_t slot = at + 4 + size_t{4} * i;
      tables = read(data_, size_, slot, &element) && element != 0 && plausible_table(slot + element);
    }
    const size_t width = length * size_t{4} <= size_ - at - 4 ? 4 : 1;
    for (uint32_t i = 0; i < visit && !full(); ++i) {
      const size_t slot = at + 4 + width * i;
      add(slot, width, tables);
      if (tables) {
        uint32_t element = 0;
        read(data_, size_, slot, &element);
        table(slot + element, depth + 1);
      }
    }
  }

  const uint8_t* data_;
  size_t size_;
  size_t max_slots_;
  std::vector<FlatbufferSlot> slots_;
  std::unordered_set<size_t> visited_;
};

// Arithmetic on the unsigned twin: the neighbours of an extreme wrap
// instead of overflowing (the harness runs under UBSan).
template <typename T>
T hostile(T old, std::mt19937& rng) {
  using L = std::numeric_limits<T>;
  using U = typename std::make_unsigned<T>::type;
  const U u = static_cast<U>(old);
  const U choices[] = {U(0), U(1), U(~U(0)), U(L::max()), U(L::min()), U(u + 1), U(u - 1),
                       U(u << 1), U(u >> 1), U(U(L::max()) / 2 + 1), U(rng())};
  return static_cast<T>(choices[rng() % (sizeof(choices) / sizeof(choices[0]))]);
}

template <typename T>
void replace(uint8_t* data, size_t at, std::mt19937& rng) {
  T value;
  memcpy(&value, data + at, sizeof(T));
  value = hostile(value, rng);
  memcpy(data + at, &value, sizeof(T));
}

}  // namespace

std::vector<FlatbufferSlot> flatbuffer_slots(const uint8_t* data, size_t size, size_t max_slots) {
  return Walker(data, size, max_slots).walk();
}

bool mutate_flatbuffer_field(uint8_t* data, size_t size, unsigned seed) {
  const std::vector<FlatbufferSlot> slots = flatbuffer_slots(data, size);
  if (slots.empty()) return false;
  std::mt19937 rng(seed);
  std::vector<size_t> values;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i].is_offset) values.push_back(i);
  }
  const bool any = values.empty() || rng() % 8 == 0;
  const FlatbufferSlot slot = slots[any ? rng() % slots.size() : values[rng() % values.size()]];
  // The widest a slot holds is its most likely type (an int64 size, an
  // int32 index or offset); narrower widths hit the low bytes of a wider
  // field or a packed small field.
  const size_t room = size - slot.offset;
  size_t width = slot.width < room ? slot.width : room;
  if (rng() % 4 == 0 && width > 1) width /= 2;
  if (width >= 8) {
    replace<int64_t>(data, slot.offset, rng);
  } else if (width >= 4) {
    replace<int32_t>(data, slot.offset, rng);
  } else if (width >= 2) {
    replace<int16_t>(data, slot.offset, rng);
  } else {
    replace<int8_t>(data, slot.offset, rng);
  }
  return true;
}

}  // namespace fuzz
}  // namespace torchedge
