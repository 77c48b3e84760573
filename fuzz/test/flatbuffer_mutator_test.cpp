// The structure-aware mutation (fuzz/flatbuffer_mutator.h) on a real .pte:
// it finds the program's fields, changes one field's bytes at a time, never
// the file's length, and mostly leaves a buffer that passes the flatbuffers
// verifier, so the hostile value reaches the checks behind it.
#include "fuzz/flatbuffer_mutator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "runtime/executor/test/test_program.h"
#include "schema/program_generated.h"

namespace torchedge {
namespace {

TEST(FlatbufferMutator, FindsTheProgramsFields) {
  const std::vector<uint8_t> pte = testing::build_mul_add_program(/*extra_methods=*/true);
  const std::vector<fuzz::FlatbufferSlot> slots = fuzz::flatbuffer_slots(pte.data(), pte.size());
  // Every execution plan's name and every operator's name (strings: a
  // length word and bytes), found by following offsets from the root.
  const auto* program = executorch_flatbuffer::GetProgram(pte.data());
  std::set<size_t> offsets;
  for (const fuzz::FlatbufferSlot& slot : slots) offsets.insert(slot.offset);
  auto at = [&](const void* p) { return static_cast<size_t>(static_cast<const uint8_t*>(p) - pte.data()); };
  for (const auto* plan : *program->execution_plan()) {
    EXPECT_TRUE(offsets.count(at(plan->name()))) << plan->name()->str();
    for (const auto* op : *plan->operators()) {
      EXPECT_TRUE(offsets.count(at(op->name()))) << op->name()->str();
    }
  }
  EXPECT_GT(slots.size(), 50u);
}

TEST(FlatbufferMutator, ChangesOneFieldAndKeepsTheLength) {
  const std::vector<uint8_t> pte = testing::build_mul_add_program(true);
  int changed = 0, still_loads = 0;
  for (unsigned seed = 0; seed < 400; ++seed) {
    std::vector<uint8_t> mutated = pte;
    ASSERT_TRUE(fuzz::mutate_flatbuffer_field(mutated.data(), mutated.size(), seed));
    ASSERT_EQ(mutated.size(), pte.size());
    size_t first = pte.size(), last = 0;
    for (size_t i = 0; i < pte.size(); ++i) {
      if (mutated[i] != pte[i]) {
        first = std::min(first, i);
        last = i;
      }
    }
    if (first == pte.size()) continue;  // the hostile value equalled the old one
    ++changed;
    EXPECT_LT(last - first, 8u) << "seed " << seed;  // one field of at most 8 bytes
    flatbuffers::Verifier verifier(mutated.data(), mutated.size());
    still_loads += executorch_flatbuffer::VerifyProgramBuffer(verifier);
  }
  EXPECT_GT(changed, 300);
  // Most field mutations keep the flatbuffer's framing intact.
  EXPECT_GT(still_loads, changed / 2);
}

TEST(FlatbufferMutator, NotAFlatbufferHasNoSlots) {
  const uint8_t junk[] = {0xff, 0xff, 0xff, 0x7f, 1, 2, 3};
  EXPECT_TRUE(fuzz::flatbuffer_slots(junk, sizeof(junk)).empty());
  EXPECT_TRUE(fuzz::flatbuffer_slots(junk, 0).empty());
  uint8_t copy[sizeof(junk)];
  memcpy(copy, junk, sizeof(junk));
  EXPECT_FALSE(fuzz::mutate_flatbuffer_field(copy, sizeof(copy), 1));
  EXPECT_EQ(0, memcmp(copy, junk, sizeof(junk)));
}

}  // namespace
}  // namespace torchedge
