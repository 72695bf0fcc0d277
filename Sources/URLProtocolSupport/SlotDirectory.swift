import AirlockBase
import AirlockCore

/// Which owner — an `HTTPMock` or a forwarding observer (`HTTPLogger`) — serves which protocol slot.
///
/// Each live owner holds one slot number, and its sessions list the `URLProtocol` subclass made
/// for that number, so a loading request finds its owner from its own class: one array read, no
/// reflection over URLSession's internals. Slots of released mocks are reused, oldest first and
/// only once `quarantine` later slots have been released too, so that a configuration copied from
/// a released mock does not quietly reach the next owner of its slot, while the number of distinct
/// protocol classes stays near the number of mocks alive at once.
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
        /// Released slots, oldest first, from `freeHead` on.
        var free: [Int] = []
        var freeHead = 0
    }

    private let quarantine = 256

    private let state = Locked(State())

    package init() {}

    /// Takes a free slot, empty until ``assign(_:to:)``.
    package func reserve() -> Int {
        state.withLock { state in
            if state.free.count - state.freeHead > quarantine {
                let slot = state.free[state.freeHead]
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
            state.free.append(slot)
        }
    }

    /// The owner holding `slot`, if it is alive.
    package func owner(at slot: Int) -> AnyObject? {
        state.withLock { state in
            state.entries.indices.contains(slot) ? state.entries[slot].owner : nil
        }
    }
}
