extension ThreadLocal {
  /// The recorder of the innermost tracking scope on this thread, if any, unretained: the scope
  /// keeps it alive while it is installed.
  @inlinable @inline(__always)
  internal static var recorder: Unmanaged<Recorder>? {
    guard let raw = recorderAddress else { return nil }
    return Unmanaged<Recorder>.fromOpaque(raw)
  }

  /// The recorder an accessor's read goes to: the current tracking scope's, or else, while the
  /// observation bridge is on, this thread's bridge recorder, which records nothing and forwards
  /// every read (see `ReadForwarding`). One call, as `recorder` is: while the bridge is off, an
  /// untracked read pays one more load inside it, and a tracked read nothing.
  @inlinable @inline(__always)
  internal static var recorderForReads: Unmanaged<Recorder>? {
    guard let raw = recorderAddressForReads else { return nil }
    return Unmanaged<Recorder>.fromOpaque(raw)
  }

  /// Makes `recorder` current and returns the previous one, to restore with `restore(_:)`.
  @usableFromInline
  internal static func push(_ recorder: Recorder?) -> UnsafeMutableRawPointer? {
    push(address: recorder.map { Unmanaged.passUnretained($0).toOpaque() })
  }
}
