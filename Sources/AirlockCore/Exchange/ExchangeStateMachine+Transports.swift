import Foundation

// The events as each transport calls them: one concrete entry point per kind of transport.
//
// The transports live in other modules, where a `package` generic is never specialized: a call
// to the generic events looked up the machine's type metadata and copied its plan through value
// witnesses on every request (about 0.1 µs of a socket request's 0.5 µs in `start` alone, in the
// profile of `Benchmarks/ServerPipeline`). Each entry point here is compiled for its kind, and
// the generic body it calls is specialized into it. The two extensions say the same thing on
// purpose: they differ only in the type they are compiled for.

extension ExchangeStateMachine where Kind == SocketTransport {
    /// The transport is ready to carry the exchange out.
    /// - Parameters:
    ///   - idleTimeout: How long the client waits for the next thing to arrive before it gives up;
    ///     `nil` for a socket, whose client decides alone. Read only when the exchange waits.
    ///   - takesBodyInPieces: Whether the client takes a body in pieces as they arrive. Read only
    ///     for a body sent in pieces.
    package mutating func start(idleTimeout: @autoclosure () -> TimeInterval?, takesBodyInPieces: @autoclosure () -> Bool) -> Action {
        handleStart(idleTimeout: idleTimeout(), takesBodyInPieces: takesBodyInPieces())
    }

    /// The wait the last action asked for has passed.
    package mutating func timerFired() -> Action {
        handleTimerFired()
    }

    /// The body the last action asked for is read.
    package mutating func bodyLoaded(_ loaded: Result<Data, ExchangeFailure>) -> Action {
        handleBodyLoaded(loaded)
    }

    /// The gate the stream waits on is open.
    package mutating func gateOpened() -> Action {
        handleGateOpened()
    }
}

extension ExchangeStateMachine where Kind == URLSessionTransport {
    /// The transport is ready to carry the exchange out.
    /// - Parameters:
    ///   - idleTimeout: How long the client waits for the next thing to arrive before it gives up
    ///     (a `URLSession`'s timeout). Read only when the exchange waits.
    ///   - takesBodyInPieces: Whether the client takes a body in pieces as they arrive; `false`
    ///     when only the last piece would reach it (swift-corelibs-foundation's completion
    ///     handlers): the whole body then goes once its time has passed. Read only for a body
    ///     sent in pieces.
    package mutating func start(idleTimeout: @autoclosure () -> TimeInterval?, takesBodyInPieces: @autoclosure () -> Bool) -> Action {
        handleStart(idleTimeout: idleTimeout(), takesBodyInPieces: takesBodyInPieces())
    }

    /// The wait the last action asked for has passed.
    package mutating func timerFired() -> Action {
        handleTimerFired()
    }

    /// The body the last action asked for is read.
    package mutating func bodyLoaded(_ loaded: Result<Data, ExchangeFailure>) -> Action {
        handleBodyLoaded(loaded)
    }

    /// The gate the stream waits on is open.
    package mutating func gateOpened() -> Action {
        handleGateOpened()
    }
}

extension MockRegistry {
    /// Decides everything about one request for a socket (see ``resolving(_:for:at:)``).
    package func resolve(_ request: IncomingRequest, for transport: Transport<SocketTransport>, at date: Date = Date()) -> ExchangeStateMachine<SocketTransport> {
        resolving(request, for: transport, at: date)
    }

    /// Decides everything about one request for a `URLProtocol` (see ``resolving(_:for:at:)``).
    package func resolve(_ request: IncomingRequest, for transport: Transport<URLSessionTransport>, at date: Date = Date()) -> ExchangeStateMachine<URLSessionTransport> {
        resolving(request, for: transport, at: date)
    }
}
