// Thread-local slots and small atomics for Observant's tracking runtime.
//
// Swift has no thread-local stored variables; `pthread_getspecific` costs a library call per read
// (about 4 ns here), which would dominate an untracked property read. A C11 `_Thread_local` read
// inlines to a single TLS-relative load, so "is a tracking scope active on this thread?" stays
// close to the cost of a plain stored-property read.
//
// These are internal to Observant; nothing here is public API.
#ifndef OBSERVANT_SHIMS_H
#define OBSERVANT_SHIMS_H

#include <stddef.h>
#include <stdint.h>

#if __has_attribute(always_inline)
#define OBSERVANT_INLINE static inline __attribute__((always_inline))
#else
#define OBSERVANT_INLINE static inline
#endif

// initial-exec: a direct %fs-relative load instead of a __tls_get_addr call. Observant's TLS is a
// few words, well within the static TLS space glibc reserves for dlopen'ed libraries.
#if __has_attribute(tls_model)
#define OBSERVANT_TLS __attribute__((tls_model("initial-exec")))
#else
#define OBSERVANT_TLS
#endif

// `pure` (the call reads memory and writes none, as far as the caller can tell) on the few calls
// an accessor makes on its fast path. Swift's optimizer treats a call into C it knows nothing
// about as one that may release any object, so a caller that borrowed the object it reads or
// writes (an element of an array, for instance) keeps it retained around the accessor: an atomic
// increment and decrement per access, most of an untracked read's cost. Told the call only
// reads, the optimizer retains the object only on the paths that call on into Observant.
// Only on functions that return a value the caller uses and whose effects a caller cannot miss
// if the optimizer drops or merges a call: a plain load, and a load behind a barrier (see each).
#if __has_attribute(pure)
#define OBSERVANT_PURE __attribute__((pure))
#else
#define OBSERVANT_PURE
#endif

// MARK: Tracking scope

/// The recorder of the innermost active tracking scope on this thread, or NULL.
extern _Thread_local void *_Nullable _observant_current_recorder OBSERVANT_TLS;

OBSERVANT_INLINE void *_Nullable observant_recorder_get(void) { return _observant_current_recorder; }
OBSERVANT_INLINE void observant_recorder_set(void *_Nullable recorder) { _observant_current_recorder = recorder; }

// MARK: Bridge to another observation system

/// Nonzero while the observation bridge is on (the `ObservantObservationBridge` product): reads
/// made outside any tracking scope then go to this thread's bridge recorder, which hands them to
/// the bridge.
extern int _observant_bridge_on;

OBSERVANT_INLINE int observant_bridge_is_on(void) { return __atomic_load_n(&_observant_bridge_on, __ATOMIC_ACQUIRE); }

/// Turns the bridge on, with `make` returning a new bridge recorder (+1) for a thread that reads
/// for the first time with the bridge on, and `release` releasing it when that thread exits.
void observant_bridge_turn_on(void *_Nonnull (*_Nonnull make)(void), void (*_Nonnull release)(void *_Nonnull));
void observant_bridge_turn_off(void);

/// This thread's bridge recorder, or NULL if it has none yet.
extern _Thread_local void *_Nullable _observant_bridge_thread_recorder OBSERVANT_TLS;

/// This thread's bridge recorder, made on first use, or NULL if the bridge is off.
void *_Nullable observant_bridge_recorder_for_reads(void);

/// The recorder an accessor's read goes to: this thread's tracking scope's, or else, while the
/// bridge is on, this thread's bridge recorder (NULL while it is off). A tracked read returns
/// before the bridge's switch is loaded; an untracked read pays that one load (relaxed:
/// `observant_bridge_recorder_for_reads` synchronizes with the switch) while it is off. Pure (see
/// `OBSERVANT_PURE`): besides loads it at most makes this thread's bridge recorder, once, so a call
/// the optimizer dropped or merged with another would have returned the same recorder.
OBSERVANT_INLINE OBSERVANT_PURE void *_Nullable observant_recorder_for_reads(void) {
  void *recorder = _observant_current_recorder;
  if (recorder != 0) { return recorder; }
  if (__builtin_expect(__atomic_load_n(&_observant_bridge_on, __ATOMIC_RELAXED) == 0, 1)) { return 0; }
  return observant_bridge_recorder_for_reads();
}

/// Nonzero while this thread's reads are not reported to the bridge (inside `withoutTracking`).
extern _Thread_local uint32_t _observant_bridge_suspended OBSERVANT_TLS;

OBSERVANT_INLINE uint32_t observant_bridge_suspended(void) { return _observant_bridge_suspended; }
OBSERVANT_INLINE void observant_bridge_set_suspended(uint32_t suspended) { _observant_bridge_suspended = suspended; }

// MARK: Transaction context

/// This thread's transaction context (owned +1 by the slot), or NULL.
extern _Thread_local void *_Nullable _observant_current_context OBSERVANT_TLS;

OBSERVANT_INLINE void *_Nullable observant_context_get(void) { return _observant_current_context; }

/// Installs `context` as this thread's transaction context. `release` is called with it when the
/// thread exits (once per thread; later calls on the same thread only replace the pointer).
void observant_context_install(void *_Nonnull context, void (*_Nonnull release)(void *_Nonnull));

// MARK: Dependency buffers

/// This thread's pool of spare dependency buffers (owned +1 by the slot), or NULL: the graph's own
/// per-thread scratch, apart from the transaction context, which belongs to a layer above it.
extern _Thread_local void *_Nullable _observant_current_buffer_pool OBSERVANT_TLS;

OBSERVANT_INLINE void *_Nullable observant_buffer_pool_get(void) { return _observant_current_buffer_pool; }

/// Installs `pool` as this thread's pool of dependency buffers. `release` is called with it when
/// the thread exits (once per thread).
void observant_buffer_pool_install(void *_Nonnull pool, void (*_Nonnull release)(void *_Nonnull));

// MARK: Stamps

/// The next stamp of this thread's block, and the end of the block.
extern _Thread_local uint64_t _observant_stamp_next OBSERVANT_TLS;
extern _Thread_local uint64_t _observant_stamp_end OBSERVANT_TLS;

/// Takes a new block of stamps from the process-wide counter and returns its first stamp.
uint64_t observant_stamp_refill(void);

/// A stamp never handed out before in this process, by any thread: a thread-local increment, and
/// once per 4,096 stamps one atomic add on a process-wide counter. Never 0.
OBSERVANT_INLINE uint64_t observant_stamp_next(void) {
  uint64_t next = _observant_stamp_next;
  if (__builtin_expect(next == _observant_stamp_end, 0)) { return observant_stamp_refill(); }
  _observant_stamp_next = next + 1;
  return next;
}

// MARK: In-place mutation frames

/// The innermost in-place mutation of an observable value on this thread: the address of the
/// value's registrar object (NULL when the innermost access is not of observable state) and the
/// stamp the value is expected to carry if every change so far went through its accessors.
extern _Thread_local void *_Nullable _observant_frame_registrar OBSERVANT_TLS;
extern _Thread_local uint64_t _observant_frame_expected OBSERVANT_TLS;
/// How many in-place mutations of tracked fields are open on this thread.
extern _Thread_local uint64_t _observant_frame_depth OBSERVANT_TLS;
/// Where the innermost frame's value is stored, as a place number (0 when not known or when the
/// frame is not anchored to live state): the place of the writes made to its fields.
extern _Thread_local uint64_t _observant_frame_place OBSERVANT_TLS;
/// Whether the innermost frame is anchored to live state (1) or not (0; also when none is open).
extern _Thread_local uint64_t _observant_frame_anchored OBSERVANT_TLS;

OBSERVANT_INLINE void *_Nullable observant_frame_registrar(void) { return _observant_frame_registrar; }
OBSERVANT_INLINE uint64_t observant_frame_expected(void) { return _observant_frame_expected; }
OBSERVANT_INLINE uint64_t observant_frame_depth(void) { return _observant_frame_depth; }
OBSERVANT_INLINE void observant_frame_set(void *_Nullable registrar, uint64_t expected) {
  _observant_frame_registrar = registrar;
  _observant_frame_expected = expected;
}
OBSERVANT_INLINE void observant_frame_set_expected(uint64_t expected) { _observant_frame_expected = expected; }
OBSERVANT_INLINE void observant_frame_set_depth(uint64_t depth) { _observant_frame_depth = depth; }
OBSERVANT_INLINE uint64_t observant_frame_place(void) { return _observant_frame_place; }
OBSERVANT_INLINE void observant_frame_set_place(uint64_t place) { _observant_frame_place = place; }
OBSERVANT_INLINE uint64_t observant_frame_anchored(void) { return _observant_frame_anchored; }
OBSERVANT_INLINE void observant_frame_set_anchored(uint64_t anchored) { _observant_frame_anchored = anchored; }

// MARK: Barriers

/// A full memory barrier (no store is reordered with a later load): what a write takes between
/// storing a value and checking whether a reader started depending on the field meanwhile.
/// On x86-64 a locked add to the stack (about 5 ns here) instead of `mfence` (about 18 ns), as
/// the Linux kernel does for `smp_mb()`: both drain the store buffer, the locked add is cheaper.
OBSERVANT_INLINE void observant_full_barrier(void) {
#if defined(__x86_64__)
  __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc");
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/// A relaxed atomic load of the word at `word`: a registrar's state word, read by every write
/// (see `OBSERVANT_PURE`; a Swift `Atomic`'s load, like an opaque call, keeps the object written
/// retained around it).
OBSERVANT_INLINE OBSERVANT_PURE uintptr_t observant_load_word_relaxed(const void *_Nonnull word) {
  return __atomic_load_n((const uintptr_t *)word, __ATOMIC_RELAXED);
}

/// `observant_full_barrier`, then a relaxed atomic load of the word at `word`: what a write does
/// after storing its value. Pure (see `OBSERVANT_PURE`) though the barrier is not a read: the
/// caller branches on the word, so the call is never dropped; a store before it cannot be moved
/// after it (it may write what the call reads), and once inlined (always) the barrier is an
/// `asm volatile` with a memory clobber, which nothing removes or moves memory accesses across.
/// Never merge this with a barrier whose result is a constant: the optimizer would see through it
/// and drop the barrier.
OBSERVANT_INLINE OBSERVANT_PURE uintptr_t observant_full_barrier_load_word(const void *_Nonnull word) {
  observant_full_barrier();
  return __atomic_load_n((const uintptr_t *)word, __ATOMIC_RELAXED);
}

// MARK: Type traits

/// The cache of `_TypeTraits` (Observant's answers to "what kind of value is this type?"): an
/// open-addressed table of (type metadata address, flags) pairs, process-wide and lock-free. In C
/// so that a look-up is a few inline loads (a Swift global would be initialized through
/// `swift_once` on every access). The flags word repeats the address's low 32 bits, so a reader
/// that catches two writers racing on one slot notices the mismatch and computes the answer itself.
///
/// A type looks in `OBSERVANT_TYPE_TRAITS_WAYS` consecutive slots from its hash. (A direct-mapped
/// table let two types used by one write evict each other on every call when their addresses
/// collided, which a change of the binary's layout decided: a row action then recomputed two
/// types' flags by reflection each time, three times its cost.)
#define OBSERVANT_TYPE_TRAITS_SLOTS 1024
#define OBSERVANT_TYPE_TRAITS_WAYS 4
typedef struct {
  uintptr_t address;
  uint64_t value;
} observant_type_traits_slot;
extern observant_type_traits_slot _observant_type_traits[OBSERVANT_TYPE_TRAITS_SLOTS];

static inline size_t observant_type_traits_index(uintptr_t type) {
  // Multiplicative hashing: the top bits of the product depend on every bit of the address.
  return (size_t)(((uint64_t)type * 0x9E3779B97F4A7C15ull) >> 54) & (OBSERVANT_TYPE_TRAITS_SLOTS - 1);
}

/// The flags in `slot` if it holds `type`'s, or 0.
static inline uint32_t observant_type_traits_in(observant_type_traits_slot *_Nonnull slot, uintptr_t type) {
  uint64_t value = __atomic_load_n(&slot->value, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&slot->address, __ATOMIC_ACQUIRE) == type && (uint32_t)(value >> 32) == (uint32_t)type) {
    return (uint32_t)value;
  }
  return 0;
}

/// The flags cached for the type at `type`, or 0 if none are.
OBSERVANT_INLINE uint32_t observant_type_traits_get(uintptr_t type) {
  size_t index = observant_type_traits_index(type);
  uint32_t flags = observant_type_traits_in(&_observant_type_traits[index], type);
  if (flags != 0) return flags;
  for (size_t way = 1; way < OBSERVANT_TYPE_TRAITS_WAYS; way++) {
    flags = observant_type_traits_in(&_observant_type_traits[(index + way) & (OBSERVANT_TYPE_TRAITS_SLOTS - 1)], type);
    if (flags != 0) return flags;
  }
  return 0;
}

/// Caches `flags` (never 0) for the type at `type`: in the first of its slots that is empty or
/// holds it, or else in one of them chosen by the address (a type evicts the same one each time).
OBSERVANT_INLINE void observant_type_traits_set(uintptr_t type, uint32_t flags) {
  size_t index = observant_type_traits_index(type);
  size_t chosen = (index + ((type >> 4) & (OBSERVANT_TYPE_TRAITS_WAYS - 1))) & (OBSERVANT_TYPE_TRAITS_SLOTS - 1);
  for (size_t way = 0; way < OBSERVANT_TYPE_TRAITS_WAYS; way++) {
    size_t position = (index + way) & (OBSERVANT_TYPE_TRAITS_SLOTS - 1);
    uintptr_t address = __atomic_load_n(&_observant_type_traits[position].address, __ATOMIC_ACQUIRE);
    if (address == 0 || address == type) {
      chosen = position;
      break;
    }
  }
  observant_type_traits_slot *_Nonnull slot = &_observant_type_traits[chosen];
  __atomic_store_n(&slot->value, (uint64_t)flags | ((uint64_t)(uint32_t)type << 32), __ATOMIC_RELEASE);
  __atomic_store_n(&slot->address, type, __ATOMIC_RELEASE);
}

// MARK: Inline value kinds

/// The kinds of the types whose values write records keep inline (`InlineValueKind`, each +1 for
/// the process's life), by type metadata address: a slot is taken once, by the first type to ask,
/// and never changes. In C for the same reason as the type traits. A type looks in
/// `OBSERVANT_INLINE_KIND_WAYS` consecutive slots from its hash: the first free one is claimed for
/// it (its type word first, then its kind), so that types whose addresses collide do not go
/// without a kind (each such write then made a kind, failed to install it, and boxed its values).
#define OBSERVANT_INLINE_KIND_SLOTS 256
#define OBSERVANT_INLINE_KIND_WAYS 4
extern uintptr_t _observant_inline_kind_types[OBSERVANT_INLINE_KIND_SLOTS];
extern uintptr_t _observant_inline_kinds[OBSERVANT_INLINE_KIND_SLOTS];

static inline size_t observant_inline_kind_index(uintptr_t type) {
  return (size_t)(((uint64_t)type * 0x9E3779B97F4A7C15ull) >> 56) & (OBSERVANT_INLINE_KIND_SLOTS - 1);
}

/// The kind of the type at `type`, or NULL (none yet, or its slot is still being filled).
OBSERVANT_INLINE void *_Nullable observant_inline_kind_get(uintptr_t type) {
  size_t index = observant_inline_kind_index(type);
  for (size_t way = 0; way < OBSERVANT_INLINE_KIND_WAYS; way++) {
    size_t position = (index + way) & (OBSERVANT_INLINE_KIND_SLOTS - 1);
    uintptr_t claimed = __atomic_load_n(&_observant_inline_kind_types[position], __ATOMIC_ACQUIRE);
    if (claimed == type) return (void *)__atomic_load_n(&_observant_inline_kinds[position], __ATOMIC_ACQUIRE);
    if (claimed == 0) return NULL;
  }
  return NULL;
}

/// Claims a free slot for the type at `type` and puts `kind` in it; nonzero if it did (zero if the
/// type has a slot already, or its slots are all other types').
OBSERVANT_INLINE int observant_inline_kind_install(uintptr_t type, void *_Nonnull kind) {
  size_t index = observant_inline_kind_index(type);
  for (size_t way = 0; way < OBSERVANT_INLINE_KIND_WAYS; way++) {
    size_t position = (index + way) & (OBSERVANT_INLINE_KIND_SLOTS - 1);
    uintptr_t expected = 0;
    if (__atomic_compare_exchange_n(
          &_observant_inline_kind_types[position], &expected, type, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&_observant_inline_kinds[position], (uintptr_t)kind, __ATOMIC_RELEASE);
      return 1;
    }
    if (expected == type) return 0;
  }
  return 0;
}

// MARK: Executors

/// Whether the running code executes on the serial executor `(identity, implementation)` (the two
/// words of an `UnownedSerialExecutor`): the Swift runtime's answer, which follows the executor a
/// job runs on rather than the thread (on Linux, the main actor's jobs need not run on the main
/// thread).
int observant_is_current_executor(void *_Nullable identity, uintptr_t implementation);

/// Nonzero on the process's main thread.
int observant_is_main_thread(void);

/// Gives up the processor (`sched_yield`): for a thread that has waited a while for another to
/// finish a few instructions (a preempted thread then gets to run).
void observant_yield(void);

// MARK: Sanitizers

/// Nonzero when this library was compiled with ThreadSanitizer (`swift build --sanitize=thread`).
extern const int observant_tsan_enabled;

/// Brackets code whose memory accesses ThreadSanitizer must not see (no-ops without it). Used only
/// around taking a `@Tracked` field's address: Swift can take a class field's address only through
/// a modifying access, which ThreadSanitizer reports as a write although nothing is written, so
/// two threads reading one field would be reported as a race.
void observant_tsan_ignore_begin(void);
void observant_tsan_ignore_end(void);

#endif
