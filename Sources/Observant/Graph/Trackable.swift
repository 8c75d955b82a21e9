/// A class whose `@Tracked` properties can be observed, without macros.
///
/// ```swift
/// final class Profile: Trackable {
///   let trackingRegistrar = TrackingRegistrar()
///   @Tracked var name = ""
///   @Tracked var followers = 0
///   @TrackedWeak var delegate: ProfileDelegate?
///   var cache: [String: Int] = [:]   // not @Tracked: reads and writes are invisible to observers
/// }
/// ```
///
/// The registrar is the one stored property Swift cannot add for you without a macro; each
/// `@Tracked` property needs nothing else.
public protocol Trackable: AnyObject {
  /// The registrar of this object. Declare it as `let trackingRegistrar = TrackingRegistrar()`.
  var trackingRegistrar: TrackingRegistrar { get }
}
