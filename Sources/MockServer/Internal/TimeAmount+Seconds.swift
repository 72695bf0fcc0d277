import NIOCore

extension TimeAmount {
    /// A number of seconds as a time amount, without a conversion that could trap: the core caps
    /// delays at ``ResponseLimits/maximumSeconds``, and anything else still saturates instead of
    /// crashing.
    static func saturatingSeconds(_ seconds: Double) -> TimeAmount {
        let nanoseconds = (seconds * 1_000_000_000).rounded()
        guard nanoseconds.isFinite, nanoseconds > 0 else { return .zero }
        return nanoseconds < 9.0e18 ? .nanoseconds(Int64(nanoseconds)) : .nanoseconds(9_000_000_000_000_000_000)
    }
}
