// Marker instructions that bound a region whose executed instructions the
// QEMU instruction-count plugin (tools/qemu_insn_count) counts.
//
// On aarch64 each marker is one `movz xzr, #imm16`: a write to the zero
// register, which does nothing on hardware (and no compiler emits), so the
// markers may stay in release builds. The plugin recognises the two words
// below; regions must not nest. Elsewhere the markers compile to nothing.
#pragma once

namespace torchedge {

#if defined(__aarch64__)
// `volatile` and the memory clobber keep the compiler from moving work of
// the measured region across a marker.
// movz xzr, #0x7e01
inline void insn_count_begin() { __asm__ volatile(".inst 0xd28fc03f" ::: "memory"); }
// movz xzr, #0x7e02
inline void insn_count_end() { __asm__ volatile(".inst 0xd28fc05f" ::: "memory"); }
#else
inline void insn_count_begin() {}
inline void insn_count_end() {}
#endif

}  // namespace torchedge
