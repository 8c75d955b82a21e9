// Observant: macro-free observation tracking.
//
// The collections every observable model needs (`IdentifiedArray`, `OrderedSet`) come along with
// `import Observant`, because the identity rules of the tracking runtime are defined over them.
//
// The module is layered; each folder uses only the folders listed before it (Scripts/check-layers
// checks it, in CI):
//   Support       thread-local slots (raw), stamps, diagnostics, internal checks, array helpers
//   Graph         registrars, observer tables, dependency edges and their snapshots, recording
//                 reads (the recorder and its index), field keys and names, access logs, the
//                 read-forwarding hook
//   State         the types an observable value is made of: ObservableState, StateRegistrar,
//                 StateField, IdentityComparable
//   Identity      when a write changes nothing: the identity table, ==, ===, boxed values and
//                 content tokens for set-backs
//   Transactions  per-thread transactions, write records, in-place mutation frames, delivering
//                 notifications (late ones too), scheduled observers, the flush
//   Bridge        reporting reads and changes to another observation system (Apple's, through
//                 the ObservantObservationBridge product): implements the graph's read hook
//   Copies        value copies: content differences, reconciliation after wholesale replacement
//   Observers     one-shot and persistent synchronous observers
//   Derived       derived values: memoized computations, observers of their inputs and sources
//                 for their readers
//   Reactions     Reaction: persistent observers that re-run after transactions
//   Values        TrackedValues: the values of a closure as an asynchronous sequence
//   Tracking      the public entry points: withTracking, recordAccesses, transaction, ...
//   Declarations  the accessors: @Tracked, @TrackedWeak, StateRegistrar's read and write, in-place
//                 mutation of fields and collection elements, live-state anchors, the runtime's
//                 own fields (InternalField)
@_exported import ObservantCollections
