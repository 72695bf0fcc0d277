/// What the core needs to know about the transport a request came through, so that it can decide
/// everything about the exchange and leave the transport only the delivery.
package struct Transport: Sendable {
    /// How an unmatched request's message shows the stub that would answer it.
    package var snippetStyle: UnmatchedDiagnosis.SnippetStyle
    /// Whether the transport can fail a request with an arbitrary Swift error
    /// (`MockResponse.error(_:)`). A socket cannot: the core turns the error into a reset connection.
    package var carriesErrors: Bool
    /// Whether the `.fatalError` policy may stop the process. A server stays up for its other
    /// clients and answers `500` instead.
    package var mayStopProcess: Bool
    /// Whether an unmatched request's message lists the nearest stubs. A server whose admin API
    /// needs a token does not show its stubs to whoever can send a request.
    package var showsStubs = true

    /// A `URLProtocol` in the test process: Swift users, who write the DSL.
    package static let urlSession = Transport(snippetStyle: .swift, carriesErrors: true, mayStopProcess: true)
    /// A socket server: stub-file users, who write JSON.
    package static let socket = Transport(snippetStyle: .json, carriesErrors: false, mayStopProcess: false)
    /// A socket server whose admin API needs a token: messages leave its stubs out.
    package static let protectedSocket = Transport(snippetStyle: .json, carriesErrors: false, mayStopProcess: false, showsStubs: false)
}
