import AirlockBase

/// What the core needs to know about the transport a request came through, so that it can decide
/// everything about the exchange and leave the transport only the delivery.
///
/// What a transport can carry is part of its type (``TransportKind``): a socket cannot fail a
/// request with a Swift error or stop the process, so an exchange planned for one can hold
/// neither — the core turns such errors into a reset connection and the `.fatalError` policy into
/// a `500` before the transport sees the exchange.
package struct Transport<Kind: TransportKind>: Sendable {
    /// How an unmatched request's message shows the stub that would answer it.
    package var snippetStyle: UnmatchedDiagnosis.SnippetStyle
    /// Whether an unmatched request's message lists the nearest stubs. A server whose admin API
    /// needs a token does not show its stubs to whoever can send a request.
    package var showsStubs = true
    /// Whether the client receives bodies decoded from the content coding their fields name, as
    /// a `URLSession` hands them to its callers; a socket sends the bytes as they are kept.
    package var decodesContentCoding: Bool
    /// Whether the transport makes the request a redirect asks for itself (a `URLProtocol` on
    /// Linux, where swift-corelibs-foundation does not follow what a protocol reports), so the
    /// core works out each 3xx response's redirect rule for it.
    package var followsRedirects: Bool
    /// Whether the transport can open a WebSocket (a server can; a `URLProtocol` never sees a
    /// WebSocket task).
    package var carriesWebSockets: Bool
    /// The error a request fails with when a stub asks for `error`, if the transport can carry one.
    let carry: @Sendable (MockResponse.ErrorBox) -> Kind.Failure?
    /// How the `.fatalError` policy stops the process, if the transport may stop it.
    let stopping: @Sendable (String) -> Kind.Stop?
}

/// What a kind of transport can be handed besides a response, by type.
package protocol TransportKind: Sendable {
    /// The Swift error a request can fail with (`Never`: none).
    associatedtype Failure: CarriedFailure
    /// What stopping the process carries (`Never`: the transport stays up for its other clients).
    associatedtype Stop: Sendable
}

/// A Swift error a transport can fail a request with, and how the journal names it.
package protocol CarriedFailure: Sendable {
    /// How the journal names the failure.
    var summary: String { get }
}

extension Never: CarriedFailure {
    package var summary: String {
        switch self {}
    }
}

/// A `URLProtocol` in the test process: any Swift error reaches the client as it is, and the
/// `.fatalError` policy stops the process with the message.
package enum URLSessionTransport: TransportKind {
    package typealias Failure = MockResponse.ErrorBox
    package typealias Stop = String
}

/// A socket: it can reset a connection but not hand over a Swift error, and it never stops the
/// process its other clients rely on.
package enum SocketTransport: TransportKind {
    package typealias Failure = Never
    package typealias Stop = Never
}

extension Transport where Kind == URLSessionTransport {
    /// A `URLProtocol` in the test process: Swift users, who write the DSL.
    package static var urlSession: Transport {
        Transport(snippetStyle: .swift, decodesContentCoding: true, followsRedirects: true, carriesWebSockets: false, carry: { $0 }, stopping: { $0 })
    }
}

extension Transport where Kind == SocketTransport {
    /// A socket server: stub-file users, who write JSON.
    package static var socket: Transport {
        Transport(snippetStyle: .json, decodesContentCoding: false, followsRedirects: false, carriesWebSockets: true, carry: { _ in nil }, stopping: { _ in nil })
    }

    /// A socket server whose admin API needs a token: messages leave its stubs out.
    package static var protectedSocket: Transport {
        Transport(snippetStyle: .json, showsStubs: false, decodesContentCoding: false, followsRedirects: false, carriesWebSockets: true, carry: { _ in nil }, stopping: { _ in nil })
    }
}
