import Foundation
import ProcessSupport
import Testing

/// How long a test waits for something that should happen before it gives up and fails.
///
/// A hang guard, not a performance limit: it only turns a wait that would never end into a
/// failure that names what did not happen. No test asserts how fast anything is. It sits above
/// ``Client/connectionTimeout``, so that a client's own time-out reports first.
let hangGuard: Duration = .seconds(180)

/// ProcessSupport's `withTimeout`, with this suite's ``hangGuard``.
func withTimeout<T: Sendable>(
    _ what: String,
    limit: Duration = hangGuard,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await ProcessSupport.withTimeout(what, limit: limit, operation)
}

/// ProcessSupport's `waitUntil`, with this suite's ``hangGuard``.
func waitUntil(
    _ what: String,
    limit: Duration = hangGuard,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    try await ProcessSupport.waitUntil(what, limit: limit, sourceLocation: sourceLocation, condition)
}
