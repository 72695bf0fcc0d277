#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value that is only read and changed under a `pthread_mutex_t`: the shape of
/// `Synchronization.Mutex` and `NIOLockedValueBox`, over a lock ThreadSanitizer understands.
///
/// On Linux, ThreadSanitizer cannot see `Synchronization.Mutex` (it reports a counter incremented
/// under one as racing); with a pthread mutex a report means a real race. Every piece of shared
/// mutable state in Airlock sits behind one of these.
// @unchecked Sendable: `value` is only touched inside `withLock`, which holds the mutex.
// The lock is taken on every request by every transport, most of them in other modules: its
// accessors are inlinable so that each caller gets a specialized, inlined lock and unlock.
// `value` skips Swift's run-time exclusivity check: the mutex already makes every access
// exclusive, and the check (an access-set insert and removal per `withLock`) was 2 % of
// `airlock serve`'s samples under load.
//
// Public, not `package`: the compiler serializes an `@inlinable` body for other modules only when
// the declaration is public. An `@inlinable package` function is compiled as an ordinary call, so
// every caller in another module ran the generic, unspecialized `withLock` (run-time metadata
// lookups on every request). AirlockBase is not a product; nothing outside the package uses it.
public final class Locked<Value>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline package var value: Value
    @usableFromInline package let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates the lock around an initial value.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

extension Locked where Value == Void {
    /// Creates a lock that guards a critical section rather than a value.
    public convenience init() {
        self.init(())
    }

    /// Runs `body` while holding the mutex, without touching the (empty) value: a lock that only
    /// orders critical sections never reports an access of its own to ThreadSanitizer.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
