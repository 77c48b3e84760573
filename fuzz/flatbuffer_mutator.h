// torchedge/fuzz/flatbuffer_mutator.h
//
// A structure-aware mutation for libFuzzer harnesses whose input is a
// flatbuffer (.pte, .ptd): instead of flipping raw bytes, which mostly break
// the root offset or a vtable and die in the first verifier check, it finds
// the flatbuffer's fields and replaces one field's value with a hostile one
// (0, -1, the type's extremes, a neighbour of the old value, a size doubled),
// so the file still parses and the value reaches the checks behind the
// verifier: index bounds, size products, arena offsets, argument counts.
//
// The walker needs no schema. From the root table it reads each table's
// vtable; every present field is a slot. A 4-byte slot whose value, read as
// an offset, lands on a plausible table or vector inside the buffer is
// followed (bounded depth and count); a vector's length word and its
// elements are slots too. A slot may be a scalar of 1, 2, 4 or 8 bytes: the
// mutation picks a width the slot can hold. Anything the walk cannot read
// (a corrupt input) just yields fewer slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace torchedge {
namespace fuzz {

/// A field's position in the buffer, how many bytes it may span (up to the
/// next field or the table's end, at most 8), and whether the walk followed
/// it as an offset to a table or vector.
struct FlatbufferSlot {
  size_t offset;
  uint8_t width;
  bool is_offset;
};

/// The slots reachable from the root table of `data` (empty when `data` is
/// not a flatbuffer). At most `max_slots` are collected.
std::vector<FlatbufferSlot> flatbuffer_slots(const uint8_t* data, size_t size,
                                             size_t max_slots = 4096);

/// Replaces one slot's value in place with a hostile value chosen by `seed`:
/// a value slot 7 times in 8 (an offset slot's new value mostly breaks the
/// framing, which the flatbuffers verifier already rejects). Returns false
/// (data untouched) when `data` has no slot.
bool mutate_flatbuffer_field(uint8_t* data, size_t size, unsigned seed);

}  // namespace fuzz
}  // namespace torchedge
