import Foundation

/// The tests that build a separate package of a user's (minutes each, on top of `swift test`'s own
/// build) run when `AIRLOCK_CONSUMER_TESTS=1`, as CI runs them (`.ci/run`).
public enum ConsumerPackages {
    /// Whether this run builds them.
    public static let areTested = ProcessInfo.processInfo.environment["AIRLOCK_CONSUMER_TESTS"] == "1"
    /// Why they are skipped otherwise.
    public static let reason = "builds a separate package of a user's (minutes): run with AIRLOCK_CONSUMER_TESTS=1, as CI does"
}
