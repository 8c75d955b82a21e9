import _ObservantShims

/// Stamps: 64-bit numbers, each handed out once in the process, never 0.
///
/// A value-type field carries the stamp of the write that last changed it, and a value carries the
/// stamp of its last change; readers remember the stamps they read. Copies of a value carry the
/// stamps of the value they were copied from, so a stamp names one state of one field, whichever
/// copy holds it, and two copies that were changed differently carry different stamps.
///
/// Taking a stamp is a thread-local increment; once per 4,096 stamps a thread takes a new block
/// with one atomic add on a process-wide counter. Stamps of one thread increase; stamps of
/// different threads are unordered.
@usableFromInline
internal enum Stamp {
  /// A stamp never handed out before.
  @inlinable @inline(__always)
  internal static func next() -> UInt64 { observant_stamp_next() }

  /// "No stamp": class fields, which have no copies, are read and written with it, and an observer
  /// that read it hears every write of the field.
  @inlinable
  internal static var none: UInt64 { 0 }
}
