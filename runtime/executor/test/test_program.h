// torchedge/runtime/executor/test/test_program.h
//
// Builds small but complete .pte files in memory (flatbuffer + eh00 header
// + constant segment) with the flatc-generated builders, so executor tests
// need neither Python nor the portable kernels. The programs call the test
// kernels "test::mul.out" (a, b, out) and "test::add.out" (a, b, alpha, out)
// registered by register_test_kernels().
#pragma once

#include <cstdint>
#include <vector>

namespace torchedge {
namespace testing {

/// forward(x: float32[2, 3]) -> x * w + x, where w = [1..6] is a constant
/// stored in the constant segment. Planned arena: x, x*w and the output.
/// `extra_methods` adds "double"(x) -> x + x sharing nothing.
std::vector<uint8_t> build_mul_add_program(bool extra_methods = false,
                                           const char* add_kernel = "test::add");

/// The forward method of build_mul_add_program with w stored outside the
/// program: ExtraTensorInfo{fully_qualified_name = weight_key, EXTERNAL}, to
/// be served by a NamedDataMap (a .ptd). A plain flatbuffer, no segments.
std::vector<uint8_t> build_external_weight_program(const char* weight_key = "w");

/// Registers test::add.out and test::mul.out (float32, same shapes).
void register_test_kernels();

}  // namespace testing
}  // namespace torchedge
