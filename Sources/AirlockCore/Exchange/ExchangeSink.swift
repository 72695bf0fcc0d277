import AirlockBase
import Dispatch
import Foundation

/// A transport's side of an exchange that has to wait for something — a delay, a dribble's next
/// piece, a stream's pause, a file read, a gate: where the exchange's ``ExchangeStateMachine``
/// is kept, the transport's timer, and the one `switch` that carries a ``ExchangeStateMachine/Delivery``
/// out. ``run(_:)`` — the core's — drives it: it carries each delivery out and wakes the machine
/// when what it waits for has happened, so no transport decides any of it again.
///
/// An exchange answered at once needs no sink: the transport carries the first action's delivery
/// out itself.
package protocol ExchangeSink: AnyObject, Sendable {
    /// What the transport can be handed besides a response.
    associatedtype Kind: TransportKind

    /// Runs `work` after `seconds` (0: as soon as it can) on the transport's own timer and
    /// thread, unless the exchange is over by then (the client went away).
    func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void)

    /// Hands an event to the exchange's machine, under whatever keeps it (its event loop, a
    /// lock), and returns what the machine asks for.
    func withMachine(_ event: (inout ExchangeStateMachine<Kind>) -> ExchangeStateMachine<Kind>.Action) -> ExchangeStateMachine<Kind>.Action

    /// Carries one delivery out: writes, fails, forwards, acts out a fault.
    func carry(_ delivery: ExchangeStateMachine<Kind>.Delivery)
}

extension ExchangeSink {
    /// Carries `action` out: its delivery now, then waits for what it names — a timer, a file
    /// read off the transport's thread, a gate — and hands the machine the event when it comes.
    package func run(_ action: ExchangeStateMachine<Kind>.Action) {
        if let delivery = action.delivery { carry(delivery) }
        switch action.next {
        case .none:
            break
        case .timer(let seconds):
            schedule(after: seconds) { self.run(self.withMachine { $0.handleTimerFired() }) }
        case .load(let body, let owner):
            // Reading a file may block: never on the transport's thread.
            DispatchQueue.global().async {
                let loaded = body.load(owner: owner)
                self.schedule(after: 0) { self.run(self.withMachine { $0.handleBodyLoaded(loaded) }) }
            }
        case .gate(let gate):
            gate.whenOpen { self.schedule(after: 0) { self.run(self.withMachine { $0.handleGateOpened() }) } }
        }
    }
}
