import AirlockBase
import AirlockCore
import Dispatch

/// Which owner — an `HTTPMock` or a forwarding observer (`HTTPLogger`) — serves which protocol slot.
///
/// Each live owner holds one slot number, and its sessions list the `URLProtocol` subclass made
/// for that number, so a loading request finds its owner from its own class: one array read, no
/// reflection over URLSession's internals. Slots of released mocks are reused, oldest first and
/// only once `quarantine` later slots have been released too and ten minutes have passed, so that
/// a configuration copied from a released mock does not quietly reach the next owner of its slot
/// (a test that makes hundreds of mocks a minute on a loaded machine included), while the number
/// of distinct protocol classes stays near the number of mocks made in ten minutes.
// Not generic: every request asks it for its owner, and a generic class's nested state would be
// reached through metadata looked up at run time from the modules that use it. Callers cast the
// owner they get to their own type.
package final class SlotDirectory: Sendable {
    private struct Entry {
        /// The owner, held weakly.
        weak var owner: AnyObject?
    }

    private struct State {
        var entries: [Entry] = []
        /// Released slots, oldest first, from `freeHead` on, each with when it was released.
        var free: [(slot: Int, released: UInt64)] = []
        var freeHead = 0
    }

    /// How many later slots must have been released before a slot is reused.
    private let quarantine = 256
    /// How long after its release a slot may be reused, in nanoseconds: ten minutes.
    private let quarantineTime: UInt64 = 600 * 1_000_000_000

    private let state = Locked(State())

    package init() {}

    /// Takes a free slot, empty until ``assign(_:to:)``.
    package func reserve() -> Int {
        state.withLock { state in
            if state.free.count - state.freeHead > quarantine,
                DispatchTime.now().uptimeNanoseconds - state.free[state.freeHead].released >= quarantineTime
            {
                let slot = state.free[state.freeHead].slot
                state.freeHead += 1
                if state.freeHead * 2 > state.free.count {
                    state.free.removeFirst(state.freeHead)
                    state.freeHead = 0
                }
                return slot
            }
            state.entries.append(Entry(owner: nil))
            return state.entries.count - 1
        }
    }

    /// Puts `owner` in its reserved slot.
    package func assign(_ slot: Int, to owner: AnyObject) {
        state.withLock { $0.entries[slot] = Entry(owner: owner) }
    }

    /// Returns a slot for reuse once its owner is gone.
    package func release(_ slot: Int) {
        state.withLock { state in
            state.entries[slot] = Entry(owner: nil)
            state.free.append((slot, DispatchTime.now().uptimeNanoseconds))
        }
    }

    /// The owner holding `slot`, if it is alive.
    package func owner(at slot: Int) -> AnyObject? {
        state.withLock { state in
            state.entries.indices.contains(slot) ? state.entries[slot].owner : nil
        }
    }
}
