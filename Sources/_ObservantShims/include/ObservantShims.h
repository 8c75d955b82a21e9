// Thread-local slots for Observant's tracking runtime.
//
// Swift has no thread-local stored variables; `pthread_getspecific` costs a library call per read
// (about 4 ns here), which would dominate an untracked property read. A C11 `_Thread_local` read
// inlines to a single TLS-relative load, so "is a tracking scope active on this thread?" stays
// close to the cost of a plain stored-property read.
//
// These are internal to Observant; nothing here is public API.
#ifndef OBSERVANT_SHIMS_H
#define OBSERVANT_SHIMS_H

#include <stdint.h>

#if __has_attribute(always_inline)
#define OBSERVANT_INLINE static inline __attribute__((always_inline))
#else
#define OBSERVANT_INLINE static inline
#endif

// initial-exec: a direct %fs-relative load instead of a __tls_get_addr call. Observant's TLS is
// two pointers, well within the static TLS space glibc reserves for dlopen'ed libraries.
#if __has_attribute(tls_model)
#define OBSERVANT_TLS __attribute__((tls_model("initial-exec")))
#else
#define OBSERVANT_TLS
#endif

/// The access recorder of the innermost active tracking scope on this thread, or NULL.
extern _Thread_local void *_Nullable _observant_current_recorder OBSERVANT_TLS;

/// This thread's transaction context (owned +1 by the slot), or NULL.
extern _Thread_local void *_Nullable _observant_current_context OBSERVANT_TLS;

OBSERVANT_INLINE void *_Nullable observant_recorder_get(void) { return _observant_current_recorder; }
OBSERVANT_INLINE void observant_recorder_set(void *_Nullable recorder) { _observant_current_recorder = recorder; }

OBSERVANT_INLINE void *_Nullable observant_context_get(void) { return _observant_current_context; }

/// Installs `context` as this thread's transaction context. `release` is called with it when the
/// thread exits (once per thread; later calls on the same thread only replace the pointer).
void observant_context_install(void *_Nonnull context, void (*_Nonnull release)(void *_Nonnull));


/// Nonzero when this library was compiled with ThreadSanitizer (`swift build --sanitize=thread`).
extern const int observant_tsan_enabled;

/// Brackets code whose memory accesses ThreadSanitizer must not see (no-ops without it). Used only
/// around taking a `@Tracked` field's address: Swift can take a class field's address only through
/// a modifying access, which ThreadSanitizer reports as a write although nothing is written, so
/// two threads reading one field would be reported as a race.
void observant_tsan_ignore_begin(void);
void observant_tsan_ignore_end(void);

#endif
