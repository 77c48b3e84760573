#include <cstring>

#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"
#include "runtime/core/spin_lock.h"

namespace torchedge {

namespace {
struct Entry {
  const char* id;
  const BackendInterface* backend;
};
Entry g_backends[kMaxRegisteredBackends];
size_t g_num_backends = 0;
SpinLock g_lock;  // every Module load registers its backends again
}  // namespace

Error register_backend(const char* id, const BackendInterface* backend) {
  const SpinLockGuard guard(g_lock);
  for (size_t i = 0; i < g_num_backends; ++i) {
    if (strcmp(g_backends[i].id, id) == 0) {
      g_backends[i].backend = backend;
      return Error::Ok;
    }
  }
  TE_CHECK_OR_RETURN(g_num_backends < kMaxRegisteredBackends, Error::OutOfResources,
                     "backend registry full (%zu backends)", kMaxRegisteredBackends);
  g_backends[g_num_backends++] = Entry{id, backend};
  return Error::Ok;
}

const BackendInterface* find_backend(const char* id) {
  const SpinLockGuard guard(g_lock);
  for (size_t i = 0; i < g_num_backends; ++i) {
    if (strcmp(g_backends[i].id, id) == 0) return g_backends[i].backend;
  }
  return nullptr;
}

}  // namespace torchedge
