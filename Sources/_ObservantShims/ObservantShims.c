#include "ObservantShims.h"
#include <pthread.h>
#include <stddef.h>

_Thread_local void *_observant_current_recorder OBSERVANT_TLS = NULL;
_Thread_local void *_observant_current_context OBSERVANT_TLS = NULL;

static pthread_key_t context_key;
static pthread_once_t context_key_once = PTHREAD_ONCE_INIT;
// Written by every thread's first install, read at thread exit: atomic (every writer stores the
// same function, but unsynchronized, that would still be a data race).
static void (*context_release)(void *) = NULL;

static void context_destructor(void *context) {
  _observant_current_context = NULL;
  void (*release)(void *) = __atomic_load_n(&context_release, __ATOMIC_ACQUIRE);
  if (context != NULL && release != NULL) {
    release(context);
  }
}

static void make_context_key(void) { pthread_key_create(&context_key, context_destructor); }

void observant_context_install(void *context, void (*release)(void *)) {
  pthread_once(&context_key_once, make_context_key);
  __atomic_store_n(&context_release, release, __ATOMIC_RELEASE);
  _observant_current_context = context;
  // The pthread slot exists only so the context is released at thread exit.
  pthread_setspecific(context_key, context);
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OBSERVANT_TSAN 1
#endif
#endif

#ifdef OBSERVANT_TSAN
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
const int observant_tsan_enabled = 1;
void observant_tsan_ignore_begin(void) { __tsan_ignore_thread_begin(); }
void observant_tsan_ignore_end(void) { __tsan_ignore_thread_end(); }
#else
const int observant_tsan_enabled = 0;
void observant_tsan_ignore_begin(void) {}
void observant_tsan_ignore_end(void) {}
#endif
