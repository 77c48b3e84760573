#include "extension/test/heap_counter.h"

#include <cstdlib>

// glibc's real allocator entry points; our definitions below interpose the
// public names for the whole test binary.
extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void* __libc_memalign(size_t, size_t);

namespace {
thread_local bool g_counting = false;
thread_local size_t g_count = 0;
void note() {
  if (g_counting) ++g_count;
}
}  // namespace

extern "C" {
void* malloc(size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
  note();
  return __libc_calloc(n, m);
}
void* realloc(void* p, size_t n) {
  note();
  return __libc_realloc(p, n);
}
void* aligned_alloc(size_t alignment, size_t n) {
  note();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, size_t alignment, size_t n) {
  note();
  *out = __libc_memalign(alignment, n);
  return *out == nullptr ? 12 /* ENOMEM */ : 0;
}
}

namespace torchedge {
namespace testing {

HeapCounter::HeapCounter() {
  g_count = 0;
  g_counting = true;
}
HeapCounter::~HeapCounter() { g_counting = false; }
size_t HeapCounter::allocations() const { return g_count; }

}  // namespace testing
}  // namespace torchedge
