import Foundation

/// How much of their full search the randomized tests run: all of it in the plain debug build
/// (`swift test`, where they are meant to search), a quarter in the optimized build with internal
/// invariant checks (every write then checks the whole transaction), a sixteenth under a sanitizer
/// (each of those is about ten times slower again). CI runs the plain debug build and two sanitized
/// ones (the thread sanitizer in an optimized build, the address sanitizer in a debug build when
/// it fits in CI's time);
/// `Scripts/fuzz` runs the optimized build with internal checks. The fixed seeds keep every run
/// reproducible.
public enum RandomTestBudget {
  /// What a budget of `full` repetitions comes to in this build (at least 1).
  public static func scaled(_ full: Int) -> Int {
    max(1, full / divisor)
  }

  /// Whether the tests run under the thread or the address sanitizer (`Scripts/sanitize` sets
  /// their options in the environment).
  public static let isSanitized: Bool = {
    let environment = ProcessInfo.processInfo.environment
    return environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil
  }()

  /// `full` outside the sanitizers, `full / divisor` under one (at least 1): for the length of a
  /// loop that is not a search (cycles of a leak test, the size of a large collection, a fixed
  /// fuzzing budget), where a shorter loop shows the same result and the sanitizer's own checks are
  /// the point of the run. The optimized build with internal checks keeps the full length.
  public static func underSanitizer(_ full: Int, dividedBy divisor: Int = 16) -> Int {
    isSanitized ? max(1, full / divisor) : full
  }

  /// The cycles of a leak test: 100,000 (where a leak of a few bytes per cycle shows on the heap),
  /// 6,250 under a sanitizer (which does the leak checking itself, and where the heap is not
  /// measured).
  public static var leakCycles: Int { underSanitizer(100_000) }

  private static let divisor: Int = {
    if isSanitized { return 16 }
    #if OBSERVANT_INTERNAL_CHECKS
    return 4
    #else
    return 1
    #endif
  }()
}
