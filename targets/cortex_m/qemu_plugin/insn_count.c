/* A QEMU TCG plugin counting the guest instructions executed between two
 * addresses: the firmware's torchedge_marker_begin() and
 * torchedge_marker_end() (targets/cortex_m/firmware_main.cpp), so the count
 * is execute() alone.
 *
 *   qemu-system-arm ... -plugin ./libinsn_count.so,begin=0x10001234,end=0x10001240 \
 *                   -d plugin -D insn_count.txt
 * prints "insn_count <n>" at exit (through qemu_plugin_outs: -d plugin).
 *
 * The plugin API's declarations: tools/qemu_insn_count/qemu_plugin_api.h.
 * Counting: every translated block
 * adds its instruction count to a counter when it executes (inline, cheap);
 * the marker functions' first instructions snapshot that counter. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/qemu_insn_count/qemu_plugin_api.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t g_executed;        /* instructions of executed blocks so far */
static uint64_t g_at_begin, g_at_end;
static uint64_t g_begin_addr, g_end_addr;
static int g_seen_begin, g_seen_end;

static void on_begin(unsigned int vcpu, void* userdata) {
  (void)vcpu; (void)userdata;
  g_at_begin = g_executed;
  g_seen_begin = 1;
}

static void on_end(unsigned int vcpu, void* userdata) {
  (void)vcpu; (void)userdata;
  g_at_end = g_executed;
  g_seen_end = 1;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &g_executed, n);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    const uint64_t addr = qemu_plugin_insn_vaddr(insn);
    /* Thumb addresses: the symbol's low bit is the Thumb flag. */
    if (addr == (g_begin_addr & ~1ull)) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_begin, QEMU_PLUGIN_CB_NO_REGS, NULL);
    } else if (addr == (g_end_addr & ~1ull)) {
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_end, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
  }
}

static void on_plugin_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id; (void)userdata;
  char line[96];
  if (g_seen_begin && g_seen_end) {
    snprintf(line, sizeof(line), "insn_count %" PRIu64 "\n", g_at_end - g_at_begin);
  } else {
    snprintf(line, sizeof(line), "insn_count missing-marker\n");
  }
  qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t* info,
                                                               int argc, char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "begin=", 6) == 0) g_begin_addr = strtoull(argv[i] + 6, NULL, 0);
    if (strncmp(argv[i], "end=", 4) == 0) g_end_addr = strtoull(argv[i] + 4, NULL, 0);
  }
  if (g_begin_addr == 0 || g_end_addr == 0) {
    qemu_plugin_outs("insn_count: give begin=ADDR,end=ADDR\n");
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
  return 0;
}
