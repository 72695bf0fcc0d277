import AirlockBase
import Atomics
import Foundation

extension RouteIndex {
    /// A route index as published to requests: read without a lock, never changed.
    ///
    /// Route ids are positions in the registry's ``RouteTable`` of the same `epoch`; a request that
    /// matched on a snapshot of an older epoch (one taken before `removeAll()`) matches again.
    final class Snapshot: AtomicReference, Sendable {
        let index: RouteIndex
        /// The registry's ``MockRegistry/State/epoch`` when it was taken.
        let epoch: Int
        /// Which snapshot this is, of every registry's: a thread's scratch remembers the host it
        /// last matched on one (``Scratch/hostsKey``).
        let serial: UInt64

        init(_ index: RouteIndex, epoch: Int) {
            self.index = index
            self.epoch = epoch
            serial = snapshotSerials.wrappingIncrementThenLoad(ordering: .relaxed)
        }
    }

    /// The snapshot of a registry's routes that requests read: swapped atomically, so that a
    /// request loads it without a lock; made again, lazily, by the first request after a change.
    final class Publication: Sendable {
        private let current = ManagedAtomic<Snapshot?>(nil)

        /// The published snapshot, if one is current.
        func load() -> Snapshot? {
            current.load(ordering: .acquiring)
        }

        /// Publishes a snapshot made under the registry's lock.
        func publish(_ snapshot: Snapshot) {
            current.store(snapshot, ordering: .releasing)
        }

        /// Drops the published snapshot, under the registry's lock and *before* its index
        /// changes: once no request reads the old one, the index's arrays are uniquely referenced
        /// again and change in place instead of being copied.
        func invalidate() {
            // The old snapshot is released here, when the exchanged value goes out of scope.
            _ = current.exchange(nil, ordering: .acquiringAndReleasing)
        }
    }

    /// The buffers one match needs, reused by every match on the same thread: matching reads a
    /// shared snapshot without a lock, so its scratch space cannot live in the registry.
    ///
    /// A value, lent to a match as one `inout` access (``withCurrent(_:)``): its buffers are then
    /// read and grown without a dynamic exclusivity check each, as a class's properties would be.
    struct Scratch {
        var labelRanges: [Range<Int>] = []
        var segmentRanges: [Range<Int>] = []
        var matchedHosts: [Int] = []
        /// The snapshot and host that `matchedHosts` and `hostSteps` are for, if they are still
        /// what the last match found: requests come in runs for one host, and its trie walk is
        /// then skipped.
        var hostsKey: (serial: UInt64, host: String)?
        var hostSteps = 0
        var matchedGroups: [Int] = []
        var match = SegmentTrie.MatchScratch()
        /// The routes found, most specific first.
        var candidates: [Int] = []
        /// How many trie steps the last match took.
        var steps = 0

        /// Runs `body` with this thread's scratch space.
        static func withCurrent<Result>(_ body: (inout Scratch) throws -> Result) rethrows -> Result {
            let slot: Slot
            if let pointer = pthread_getspecific(scratchKey) {
                slot = Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue()
            } else {
                slot = Slot()
                pthread_setspecific(scratchKey, Unmanaged.passRetained(slot).toOpaque())
            }
            guard !slot.inUse else {
                var fresh = Scratch()
                return try body(&fresh)
            }
            slot.inUse = true
            defer { slot.inUse = false }
            return try body(&slot.scratch)
        }
    }

    /// A thread's ``Scratch``, kept in its thread-local slot.
    final class Slot {
        var scratch = Scratch()
        /// Whether a match on this thread is using it (a matcher that resolves a request of its
        /// own, say): then a nested match gets a fresh one.
        var inUse = false
    }
}

/// Numbers each ``RouteIndex/Snapshot`` made in the process.
private let snapshotSerials = ManagedAtomic<UInt64>(0)

/// The thread-local slot of ``RouteIndex/Scratch`` (its ``RouteIndex/Slot``); a thread's scratch is released when it ends.
private let scratchKey: pthread_key_t = {
    var key = pthread_key_t()
    #if canImport(Darwin)
    let result = pthread_key_create(&key) { Unmanaged<RouteIndex.Slot>.fromOpaque($0).release() }
    #else
    let result = pthread_key_create(&key) { pointer in
        if let pointer { Unmanaged<RouteIndex.Slot>.fromOpaque(pointer).release() }
    }
    #endif
    precondition(result == 0, "pthread_key_create failed: \(result)")
    return key
}()
