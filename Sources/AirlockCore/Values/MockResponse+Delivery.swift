import AirlockBase
import Foundation

extension MockResponse {
    /// When a response is delivered to the client.
    public enum Delivery: Hashable, Sendable {
        /// Delivered as soon as the request arrives. The default.
        case instant
        /// Delivered after the given number of seconds, from 0 to ``ResponseLimits/maximumSeconds``
        /// (one day; other values are rejected when the stub is registered). The wait runs on a
        /// timer, never blocking other requests, and cancelling the request cancels the pending
        /// delivery.
        case delayed(TimeInterval)

        /// The delay in seconds (0 for ``instant``).
        package var seconds: TimeInterval {
            switch self {
            case .instant: 0
            case .delayed(let seconds): seconds
            }
        }
    }
}
