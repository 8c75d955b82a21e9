extension Trackable {
  /// Records a read of a hand-written tracked property (one whose storage is not `@Tracked`):
  /// call it from the getter. The property is identified by its name.
  ///
  /// ```swift
  /// var title: String {
  ///   get { trackAccess(); return storage.title }
  ///   set { trackMutation { storage.title = newValue } }
  /// }
  /// ```
  ///
  /// - Parameter field: the property's name; leave out the default (`#function`).
  /// - Complexity: O(1); outside a tracking scope, one thread-local load.
  @inlinable
  public func trackAccess(_ field: StaticString = #function) {
    _recordAccess(trackingRegistrar, .unresolved, .field(owner: Self.self), text: field, seen: Stamp.none)
  }

  /// Runs `mutation`, a change of the hand-written tracked property `field`, telling its readers:
  /// synchronous observers before it runs, reactions after (when the transaction ends). There is
  /// nothing to compare, so every call notifies.
  ///
  /// - Parameters:
  ///   - field: the property's name; leave out the default (`#function`).
  ///   - mutation: the change to the property's storage.
  @inlinable
  public func trackMutation<Result>(_ field: StaticString = #function, _ mutation: () throws -> Result) rethrows
    -> Result
  {
    let registrar = trackingRegistrar
    let ticket = registrar._writeTicket
    let opened =
      ticket == 0
      ? false
      : registrar._announceFieldWrite(
        field, owner: Self.self, from: Stamp.none, live: true, place: 0, values: { nil }
      )
      .openedTransaction
    defer {
      // A reader that started depending on the field while the mutation ran may have read the old
      // value: told again, before the transaction the announcement opened ends (its re-runs are
      // not such readers).
      if registrar._readersMayHaveMissed(since: ticket) {
        registrar._deliverLate(field: field, overwriting: Stamp.none)
      }
      if opened { _endImplicitTransaction() }
    }
    return try mutation()
  }
}
