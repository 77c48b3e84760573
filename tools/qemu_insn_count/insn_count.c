/*
 * A QEMU TCG plugin (user-mode qemu-aarch64, QEMU 7.2's plugin API, version 1)
 * that counts the guest instructions executed between marker instructions.
 *
 *   qemu-aarch64 -plugin qemu_insn_count.so[,outfile=PATH][,functions=N] program ...
 *
 * Markers (extension/runner/insn_markers.h): `movz xzr, #0x7e01` opens a
 * counted region, `movz xzr, #0x7e02` closes it. Both write the zero register,
 * so they do nothing on real hardware, and no compiler emits them. Every
 * executed instruction after an opening marker up to (not including) the
 * next closing one is counted; regions add up. At exit the plugin writes one
 * line
 *
 *   insn_count total=<all executed> marked=<in regions> regions=<closed regions>
 *
 * to PATH, or through qemu_plugin_outs (shown with -d plugin) without it.
 * functions=N adds the N functions that executed the most instructions
 * inside the regions, one line each ("function <count> <symbol>"), by the
 * symbol of each translation block's first instruction (the main binary's
 * symbols: shared libraries show as "?"). That costs a callback per block
 * executed; the counts above stay exact.
 *
 * Counting is per translation block: an inline add of the block's length
 * when it starts (cheap: no call per instruction). A marker's callback
 * corrects for the instructions of its block that follow it. The counter is
 * one process-wide integer: run the guest single-threaded for exact counts.
 *
 * Debian ships no qemu-plugin.h, so the few declarations used are written
 * here from the plugin API's documentation (docs/devel/tcg-plugins.rst).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the QEMU plugin API subset used (ABI of QEMU 7.2) ---- */
#include "tools/qemu_insn_count/qemu_plugin_api.h"

#define INSN_COUNT_EXPORT __attribute__((visibility("default")))
INSN_COUNT_EXPORT int qemu_plugin_version = 1;

/* ---- the plugin ---- */
/* movz xzr, #imm16: 0xd2800000 | imm16 << 5 | 31 (insn_markers.h emits the same words). */
enum { kMarkerBegin = 0xd28fc03fu, kMarkerEnd = 0xd28fc05fu };

static uint64_t executed;   /* instructions of every block entered */
static uint64_t marked;     /* instructions inside closed regions */
static uint64_t region_start;
static bool in_region;
static uint64_t regions;
static char outfile[4096];

/* functions=N: instructions per symbol inside the regions (open addressing
 * on the symbol string's address, which QEMU keeps for the whole run). */
enum { kSymbolSlots = 1 << 14 };
struct SymbolCount {
  const char* name;
  uint64_t count;
};
static struct SymbolCount symbols[kSymbolSlots];
static int top_functions;

static struct SymbolCount* symbol_slot(const char* name) {
  size_t i = ((uintptr_t)name >> 3) & (kSymbolSlots - 1);
  for (size_t probes = 0; probes < kSymbolSlots; ++probes, i = (i + 1) & (kSymbolSlots - 1)) {
    if (symbols[i].name == name) return &symbols[i];
    if (symbols[i].name == NULL) {
      symbols[i].name = name;
      return &symbols[i];
    }
  }
  return NULL; /* full: that block goes uncounted per function */
}

/* One per translated block (never freed: a run translates a bounded set). */
struct BlockRecord {
  struct SymbolCount* slot;
  uint64_t length;
};

static void on_block(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  const struct BlockRecord* block = (const struct BlockRecord*)userdata;
  if (in_region) block->slot->count += block->length;
}

static int by_count_descending(const void* a, const void* b) {
  const uint64_t x = ((const struct SymbolCount*)a)->count;
  const uint64_t y = ((const struct SymbolCount*)b)->count;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* userdata = instructions after the marker in its block << 1 | (1 if closing). */
static void on_marker(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  const uintptr_t data = (uintptr_t)userdata;
  const uint64_t after = data >> 1;
  if ((data & 1u) == 0) {
    /* Counting starts after the opening marker. */
    region_start = executed - after;
    in_region = true;
  } else if (in_region) {
    /* The closing marker and what follows it are not counted. */
    marked += executed - after - 1 - region_start;
    in_region = false;
    ++regions;
  }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed, n);
  if (top_functions > 0 && n > 0) {
    const char* name = qemu_plugin_insn_symbol(qemu_plugin_tb_get_insn(tb, 0));
    struct BlockRecord* block = malloc(sizeof *block);
    if (block != NULL) {
      block->slot = symbol_slot(name != NULL ? name : "?");
      block->length = n;
      if (block->slot != NULL) {
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, block);
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    uint32_t word;
    if (qemu_plugin_insn_size(insn) != sizeof word) continue;
    memcpy(&word, qemu_plugin_insn_data(insn), sizeof word);
    if (word != kMarkerBegin && word != kMarkerEnd) continue;
    const uintptr_t data = (uintptr_t)(n - 1 - i) << 1 | (word == kMarkerEnd);
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, (void*)data);
  }
}

static void emit(FILE* f, const char* line) {
  if (f != NULL) {
    fputs(line, f);
  } else {
    qemu_plugin_outs(line);
  }
}

static void on_plugin_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  FILE* f = NULL;
  if (outfile[0] != '\0' && (f = fopen(outfile, "w")) == NULL) {
    fprintf(stderr, "qemu_insn_count: cannot write %s\n", outfile);
    return;
  }
  char line[1024];
  snprintf(line, sizeof line,
           "insn_count total=%" PRIu64 " marked=%" PRIu64 " regions=%" PRIu64 "\n", executed,
           marked, regions);
  emit(f, line);
  if (top_functions > 0) {
    qsort(symbols, kSymbolSlots, sizeof symbols[0], by_count_descending);
    for (int i = 0; i < top_functions && i < kSymbolSlots && symbols[i].count > 0; ++i) {
      snprintf(line, sizeof line, "function %" PRIu64 " %s\n", symbols[i].count, symbols[i].name);
      emit(f, line);
    }
  }
  if (f != NULL) fclose(f);
}

INSN_COUNT_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                          char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    const char* arg = argv[i];
    if (strncmp(arg, "outfile=", 8) == 0 && strlen(arg + 8) < sizeof outfile) {
      strcpy(outfile, arg + 8);
    } else if (strncmp(arg, "functions=", 10) == 0 && atoi(arg + 10) >= 0) {
      top_functions = atoi(arg + 10);
    } else {
      fprintf(stderr,
              "qemu_insn_count: unknown option '%s' (expected outfile=PATH or functions=N)\n", arg);
      return -1;
    }
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
  return 0;
}
