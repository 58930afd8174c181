/* util/caches.c: paimon_release_caches() and the registry of process-wide caches
 * (util/caches.h). */
#include "util/caches.h"

#include <assert.h>
#include <pthread.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "paimon/alloc.h"
#include "util/compress.h"
#include "util/util.h"

static pthread_mutex_t g_caches_mu = PTHREAD_MUTEX_INITIALIZER;
static void (*g_caches[PM_CACHES_MAX])(void);
static int g_ncaches;

void pm_caches_register(void (*release)(void)) {
  pthread_mutex_lock(&g_caches_mu);
  bool known = false;
  for (int i = 0; i < g_ncaches; i++) known = known || g_caches[i] == release;
  assert(known || g_ncaches < PM_CACHES_MAX);
  if (!known && g_ncaches < PM_CACHES_MAX) g_caches[g_ncaches++] = release;
  pthread_mutex_unlock(&g_caches_mu);
}

void paimon_release_caches(void) {
  void (*fns[PM_CACHES_MAX])(void);
  pthread_mutex_lock(&g_caches_mu);
  int n = g_ncaches;
  for (int i = 0; i < n; i++) fns[i] = g_caches[i];
  pthread_mutex_unlock(&g_caches_mu);
  /* each takes its own cache's lock: none is held here, so no lock order to keep */
  for (int i = 0; i < n; i++) fns[i]();
  pm_zstd_release_thread();
#if defined(__GLIBC__)
  /* glibc keeps freed heap (and, after a free, raises its mmap threshold so later large
   * blocks land in the heap too): give the free pages back to the OS. */
  if (pm_alloc_is_default()) (void)malloc_trim(0);
#endif
}
