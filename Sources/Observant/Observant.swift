// Observant: macro-free observation tracking.
//
// The collections every observable model needs (`IdentifiedArray`, `OrderedSet`) come along with
// `import Observant`, because the identity rules of the tracking runtime are defined over them.
@_exported import ObservantCollections
