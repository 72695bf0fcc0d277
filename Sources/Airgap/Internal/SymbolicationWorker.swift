import AirlockBase
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One thread, started the first time a call stack is read, that symbolicates call stacks, one
/// job at a time in the order they were submitted. (Violations are delivered on the thread that
/// made the blocked call; only their stacks come here, when read.)
///
/// One thread because the runtime's symbolicator keeps what it has read of each image per thread:
/// on a thread of its own the images of a large test binary are read once, not once per thread
/// that happens to report.
final class SymbolicationWorker: Sendable {
    static let shared = SymbolicationWorker()

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var thread: pthread_t?
        var isStarted = false
    }

    /// Guards `State`; the worker waits on it for jobs.
    private let condition = Condition(State())

    /// Runs `job` on the worker, after the jobs submitted before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        let start = condition.withLock { state -> Bool in
            state.jobs.append(job)
            defer { state.isStarted = true }
            return !state.isStarted
        }
        condition.signal()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "Airgap symbolication"
            thread.start()
        }
    }

    /// Runs `body` on the worker after the jobs submitted before it, and waits for its result.
    /// On the worker itself it runs `body` at once.
    func perform<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
        if isCurrentThread { return body() }
        let completion = Completion<Result>()
        submit { completion.complete(body()) }
        return completion.wait()
    }

    /// Whether the caller runs on the worker.
    var isCurrentThread: Bool {
        condition.withLock { state in state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    private func run() {
        condition.withLock { $0.thread = pthread_self() }
        while true {
            let job = condition.waitUntil({ !$0.jobs.isEmpty }) { $0.jobs.removeFirst() }
            job()
        }
    }
}

/// A value and a pthread condition variable guarding it (ThreadSanitizer sees pthread locks, not
/// `Synchronization.Mutex`).
final class Condition<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched with `mutex` held.
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Waits until `ready` holds, then runs `body`, all with the lock held.
    func waitUntil<Result>(_ ready: (Value) -> Bool, then body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(value) { pthread_cond_wait(changed, mutex) }
        return body(&value)
    }

    /// Wakes every waiter (each checks its condition again).
    func signal() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
    }
}

/// A result delivered by one thread and awaited by another.
final class Completion<Value: Sendable>: Sendable {
    private let condition = Condition<Value?>(nil)

    func complete(_ value: Value) {
        condition.withLock { $0 = value }
        condition.signal()
    }

    func wait() -> Value {
        condition.waitUntil({ $0 != nil }) { $0! }
    }
}
