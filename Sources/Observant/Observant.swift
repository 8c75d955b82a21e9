// Observant: macro-free observation tracking.
//
// The collections every observable model needs (`IdentifiedArray`, `OrderedSet`) come along with
// `import Observant`, because the identity rules of the tracking runtime are defined over them.
//
// The module is layered; each folder uses only the folders listed before it:
//   Support       thread-local slots, stamps, diagnostics, internal checks
//   Graph         registrars, observer tables, dependency edges, recording reads, access logs
//   State         the types an observable value is made of: ObservableState, StateRegistrar,
//                 StateField, IdentityComparable
//   Identity      when a write changes nothing: the identity table, ==, ===
//   Transactions  per-thread transactions, in-place mutation frames, delivering notifications, flushes
//   Copies        value copies: content differences, reconciliation after wholesale replacement
//   Observers     one-shot and persistent synchronous observers
//   Derived       derived values: memoized computations, observers of their inputs and sources
//                 for their readers
//   Reactions     Reaction: persistent observers that re-run after transactions
//   Tracking      the public entry points: withTracking, recordAccesses, transaction, ...
//   Declarations  the accessors: @Tracked, @TrackedWeak, StateRegistrar's read and write, in-place
//                 mutation of fields and collection elements, live-state anchors
@_exported import ObservantCollections
