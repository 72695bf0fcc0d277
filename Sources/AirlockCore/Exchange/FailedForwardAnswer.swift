import Foundation

/// What a transport answers when a forward fails before the real host's answer began: `502 Bad
/// Gateway` with the failure's text, in the form the request's protocol has on the wire (a
/// transcoded request's: a gRPC call's `UNAVAILABLE`, the text its message). The core decides the
/// answer; a transport only writes it.
package struct FailedForwardAnswer: Sendable {
    /// A transcoded request's encoding (``Transcoding/encode``); `nil` for plain HTTP.
    let encoding: (@Sendable (MockResponse) -> MockResponse)?

    /// The answer to a forward that failed so.
    package func response(to failure: ExchangeFailure) -> MockResponse {
        let plain = MockResponse.plaintext(failure.description + "\n", status: .badGateway)
        return encoding.map { $0(plain) } ?? plain
    }
}
