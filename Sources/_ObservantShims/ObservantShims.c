#include "ObservantShims.h"
#include <pthread.h>
#if !defined(__APPLE__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include <sched.h>
#include <stddef.h>

_Thread_local void *_observant_current_recorder OBSERVANT_TLS = NULL;
_Thread_local void *_observant_current_context OBSERVANT_TLS = NULL;
_Thread_local void *_observant_current_buffer_pool OBSERVANT_TLS = NULL;
_Thread_local uint64_t _observant_stamp_next OBSERVANT_TLS = 0;
_Thread_local uint64_t _observant_stamp_end OBSERVANT_TLS = 0;
_Thread_local void *_observant_frame_registrar OBSERVANT_TLS = NULL;
_Thread_local uint64_t _observant_frame_expected OBSERVANT_TLS = 0;
_Thread_local uint64_t _observant_frame_depth OBSERVANT_TLS = 0;
_Thread_local uint64_t _observant_frame_place OBSERVANT_TLS = 0;
_Thread_local uint64_t _observant_frame_anchored OBSERVANT_TLS = 0;
_Thread_local uint32_t _observant_bridge_suspended OBSERVANT_TLS = 0;
_Thread_local void *_observant_bridge_thread_recorder OBSERVANT_TLS = NULL;
int _observant_bridge_on = 0;
observant_type_traits_slot _observant_type_traits[OBSERVANT_TYPE_TRAITS_SLOTS];
uintptr_t _observant_inline_kind_types[OBSERVANT_INLINE_KIND_SLOTS];
uintptr_t _observant_inline_kinds[OBSERVANT_INLINE_KIND_SLOTS];

// MARK: Transaction context

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

// MARK: Dependency buffers

static pthread_key_t buffer_pool_key;
static pthread_once_t buffer_pool_key_once = PTHREAD_ONCE_INIT;
static void (*buffer_pool_release)(void *) = NULL;

static void buffer_pool_destructor(void *pool) {
  _observant_current_buffer_pool = NULL;
  void (*release)(void *) = __atomic_load_n(&buffer_pool_release, __ATOMIC_ACQUIRE);
  if (pool != NULL && release != NULL) {
    release(pool);
  }
}

static void make_buffer_pool_key(void) { pthread_key_create(&buffer_pool_key, buffer_pool_destructor); }

void observant_buffer_pool_install(void *pool, void (*release)(void *)) {
  pthread_once(&buffer_pool_key_once, make_buffer_pool_key);
  __atomic_store_n(&buffer_pool_release, release, __ATOMIC_RELEASE);
  _observant_current_buffer_pool = pool;
  // The pthread slot exists only so the pool is released at thread exit.
  pthread_setspecific(buffer_pool_key, pool);
}

// MARK: Bridge to another observation system

static void *(*bridge_make)(void) = NULL;
static void (*bridge_release)(void *) = NULL;
static pthread_key_t bridge_key;
static pthread_once_t bridge_key_once = PTHREAD_ONCE_INIT;

static void bridge_recorder_destructor(void *recorder) {
  _observant_bridge_thread_recorder = NULL;
  void (*release)(void *) = __atomic_load_n(&bridge_release, __ATOMIC_ACQUIRE);
  if (recorder != NULL && release != NULL) { release(recorder); }
}

static void make_bridge_key(void) { pthread_key_create(&bridge_key, bridge_recorder_destructor); }

void observant_bridge_turn_on(void *(*make)(void), void (*release)(void *)) {
  pthread_once(&bridge_key_once, make_bridge_key);
  __atomic_store_n(&bridge_make, make, __ATOMIC_RELEASE);
  __atomic_store_n(&bridge_release, release, __ATOMIC_RELEASE);
  __atomic_store_n(&_observant_bridge_on, 1, __ATOMIC_RELEASE);
}

void observant_bridge_turn_off(void) { __atomic_store_n(&_observant_bridge_on, 0, __ATOMIC_RELEASE); }

/// This thread's bridge recorder, made on first use (while the bridge is on).
static void *observant_bridge_thread_recorder(void) {
  void *recorder = _observant_bridge_thread_recorder;
  if (recorder != NULL) { return recorder; }
  recorder = __atomic_load_n(&bridge_make, __ATOMIC_ACQUIRE)();
  _observant_bridge_thread_recorder = recorder;
  // The pthread slot exists only so the recorder is released at thread exit.
  pthread_setspecific(bridge_key, recorder);
  return recorder;
}

void *observant_bridge_recorder_for_reads(void) {
  // Acquire: pairs with the release that turned the bridge on, after storing `bridge_make`.
  if (__atomic_load_n(&_observant_bridge_on, __ATOMIC_ACQUIRE) == 0) { return NULL; }
  return observant_bridge_thread_recorder();
}

// MARK: Stamps

#define OBSERVANT_STAMP_BLOCK 4096
// Stamps below one block are never handed out: 0 means "none", and small numbers stay free for
// the runtime's own markers.
static uint64_t stamp_counter = OBSERVANT_STAMP_BLOCK;

uint64_t observant_stamp_refill(void) {
  uint64_t first = __atomic_fetch_add(&stamp_counter, OBSERVANT_STAMP_BLOCK, __ATOMIC_RELAXED);
  _observant_stamp_next = first + 1;
  _observant_stamp_end = first + OBSERVANT_STAMP_BLOCK;
  return first;
}

// MARK: Executors

#if defined(__APPLE__)
// On Apple platforms the main actor's executor is the main thread, and the runtime entry point
// below exists only in recent OS versions.
int observant_is_current_executor(void *identity, uintptr_t implementation) {
  (void)identity;
  (void)implementation;
  return pthread_main_np() ? 1 : 0;
}

int observant_is_main_thread(void) { return pthread_main_np() ? 1 : 0; }
#else
// The main thread, recorded when the library is loaded (by the main thread, before any other
// thread exists). Code on the main thread runs on the main actor's executor (synchronous code
// outside any job, or a main-actor job), so asking this first spares a runtime call there; main-
// actor jobs on other threads still get the runtime's answer.
static pthread_t observant_main_thread;
static int observant_main_thread_known;

__attribute__((constructor)) static void observant_record_main_thread(void) {
  // Only if this is the main thread (its thread id is the process id): a library loaded later by
  // another thread leaves the fast path off.
  if (syscall(SYS_gettid) != getpid()) { return; }
  observant_main_thread = pthread_self();
  observant_main_thread_known = 1;
}

int observant_is_main_thread(void) {
  return observant_main_thread_known && pthread_equal(pthread_self(), observant_main_thread) ? 1 : 0;
}

// Declared by the Swift runtime (swift/Runtime/Concurrency.h) with the Swift calling convention;
// a serial executor reference is two words. Flags 0: answer, never crash (the plain
// swift_task_isCurrentExecutor may trap when the answer is no).
__attribute__((swiftcall)) extern _Bool swift_task_isCurrentExecutorWithFlags(void *identity, uintptr_t implementation, uint64_t flags);

int observant_is_current_executor(void *identity, uintptr_t implementation) {
  return swift_task_isCurrentExecutorWithFlags(identity, implementation, 0) ? 1 : 0;
}
#endif

// MARK: Sanitizers

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

void observant_yield(void) { sched_yield(); }
