/// A small fixed-seed random number generator (SplitMix64), for randomized tests and shuffles that
/// must be the same on every run: the seed reproduces the sequence.
public struct SplitMix64: RandomNumberGenerator {
  /// The generator's state; any value is a valid seed.
  public var state: UInt64

  public init(state: UInt64) {
    self.state = state
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// A number in `0..<bound` (`bound` > 0).
  public mutating func int(_ bound: Int) -> Int {
    Int(next() % UInt64(bound))
  }
}
