import Foundation
import Testing

/// How long a test waits for something that should happen before it gives up and fails.
///
/// A hang guard, not a performance limit: it is far above how long anything here takes even on a
/// loaded machine, and only turns a wait that would never end into a failure that names what did
/// not happen. No test asserts how fast anything is. A suite with slower waits passes its own
/// `limit` (Airgap's tests wrap these with theirs).
///
/// Five minutes: under ThreadSanitizer on a loaded two-core machine, CPU-bound tests (thousands
/// of stubs registered, thousands of numbers parsed) held both threads of the cooperative pool
/// for over a minute, and a waiting test's own task could not even send its request; 60 s was
/// seen to run out that way.
package let hangGuard: Duration = .seconds(300)

/// What a bounded wait throws when what it waited for did not happen in time.
package struct TimedOut: Error, CustomStringConvertible {
    package let what: String
    package let limit: Duration

    package var description: String { "\(what) did not finish within \(limit) (a hang guard, not a performance limit)" }
}

/// Runs `operation` and returns its result, or throws ``TimedOut`` once `limit` has passed.
///
/// The operation runs in a task of its own (inheriting task-local values such as the current
/// test), which is cancelled on time-out and when the caller is cancelled; the caller gets its
/// answer at the deadline even if the operation ignores cancellation.
package func withTimeout<T: Sendable>(
    _ what: String,
    limit: Duration = hangGuard,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = TimeoutRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            race.begin(continuation)
            let work = Task {
                do {
                    race.finish(.success(try await operation()))
                } catch {
                    race.finish(.failure(error))
                }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                race.finish(.failure(TimedOut(what: what, limit: limit)))
            }
            race.track(work: work, timer: timer)
        }
    } onCancel: {
        race.cancelWork()
    }
}

/// The state of one ``withTimeout(_:limit:_:)``: the first result wins, the loser is cancelled.
private final class TimeoutRace<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is only read and written while holding `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var result: Result<T, any Error>?
    private var work: Task<Void, Never>?
    private var timer: Task<Void, Never>?
    private var isWorkCancelled = false

    func begin(_ continuation: CheckedContinuation<T, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func track(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let (finished, cancelWork) = lock.withLock { () -> (Bool, Bool) in
            self.work = work
            self.timer = timer
            return (result != nil, isWorkCancelled)
        }
        if finished {
            timer.cancel()
            Self.cancelOffThePool(work)
        } else if cancelWork {
            Self.cancelOffThePool(work)
        }
    }

    func finish(_ outcome: Result<T, any Error>) {
        let (continuation, work, timer) = lock.withLock { () -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Task<Void, Never>?) in
            guard result == nil else { return (nil, nil, nil) }
            result = outcome
            defer { self.continuation = nil }
            return (self.continuation, self.work, self.timer)
        }
        continuation?.resume(with: outcome)
        timer?.cancel()
        work.map(Self.cancelOffThePool)
    }

    /// Cancels `work` from a dispatch thread: cancelling a URLSession request calls into
    /// URLSession, which may wait for its internal queues, and that wait must never hold one of
    /// the few threads of the cooperative pool (2 on this machine) that every test shares.
    private static func cancelOffThePool(_ work: Task<Void, Never>) {
        DispatchQueue.global().async { work.cancel() }
    }

    func cancelWork() {
        let work = lock.withLock { () -> Task<Void, Never>? in
            isWorkCancelled = true
            return self.work
        }
        work.map(Self.cancelOffThePool)
    }
}

/// Polls `condition` until it holds; records an issue and throws if it still does not hold after
/// `limit`, so a condition that never comes true fails the test instead of hanging it.
package func waitUntil(
    _ what: String,
    limit: Duration = hangGuard,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while !condition() {
        guard clock.now < deadline else {
            try #require(condition(), "\(what): still not the case after \(limit) (a hang guard, not a performance limit)", sourceLocation: sourceLocation)
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

