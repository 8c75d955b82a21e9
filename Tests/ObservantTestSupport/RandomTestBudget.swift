import Foundation

/// How much of their full search the randomized tests run: all of it in the plain debug build
/// (`swift test`, where they are meant to search), a quarter in the optimized build with internal
/// invariant checks (every write then checks the whole transaction), a sixteenth under a sanitizer
/// (each of those is about ten times slower again). CI runs all three builds; the fixed seeds keep
/// every run reproducible.
public enum RandomTestBudget {
  /// What a budget of `full` repetitions comes to in this build (at least 1).
  public static func scaled(_ full: Int) -> Int {
    max(1, full / divisor)
  }

  private static let divisor: Int = {
    let environment = ProcessInfo.processInfo.environment
    if environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil { return 16 }
    #if OBSERVANT_INTERNAL_CHECKS
    return 4
    #else
    return 1
    #endif
  }()
}
