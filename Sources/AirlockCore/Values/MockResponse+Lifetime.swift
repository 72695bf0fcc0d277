import AirlockBase

extension MockResponse {
    /// How many times a queued response is served before it leaves its queue.
    public enum Lifetime: Hashable, Sendable {
        /// Served once, then removed. The default.
        case single
        /// Served the given number of times, then removed. The count must be at least 1.
        case multiple(Int)
        /// Never removed: served for every request that reaches its queue. Responses queued behind
        /// an eternal one are never served.
        case eternal

        /// How many times the response is served; `nil` for ``eternal``.
        var uses: Int? {
            switch self {
            case .single: 1
            case .multiple(let count): count
            case .eternal: nil
            }
        }
    }
}
