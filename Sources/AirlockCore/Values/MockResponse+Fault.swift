import AirlockBase

extension MockResponse {
    /// A way for the connection to misbehave instead of answering — what a client must survive.
    ///
    /// Over a real socket (`MockServer`) each fault happens on the wire. Through `URLSession`
    /// (a `URLProtocol` has no socket) the request fails with the `URLError` a client would see.
    public struct Fault: Hashable, Sendable, CustomStringConvertible {
        package enum Kind: Hashable, Sendable {
            case connectionReset
            case emptyResponse
            case malformedChunkedBody
            case randomBytesThenClose
        }

        package let kind: Kind

        /// The connection is reset (TCP RST) before any response. URLSession: `.networkConnectionLost`.
        public static var connectionReset: Fault { Fault(kind: .connectionReset) }
        /// The connection closes without a byte of response. URLSession: `.badServerResponse`.
        public static var emptyResponse: Fault { Fault(kind: .emptyResponse) }
        /// A chunked response whose chunk sizes are garbage. URLSession: `.cannotParseResponse`.
        public static var malformedChunkedBody: Fault { Fault(kind: .malformedChunkedBody) }
        /// Random bytes instead of HTTP, then the connection closes. URLSession: `.badServerResponse`.
        public static var randomBytesThenClose: Fault { Fault(kind: .randomBytesThenClose) }

        /// The fault's name, as in stub files: `connectionReset`, `emptyResponse`, …
        public var description: String {
            switch kind {
            case .connectionReset: "connectionReset"
            case .emptyResponse: "emptyResponse"
            case .malformedChunkedBody: "malformedChunkedBody"
            case .randomBytesThenClose: "randomBytesThenClose"
            }
        }

        /// Every fault, by name.
        package static let all: [Fault] = [.connectionReset, .emptyResponse, .malformedChunkedBody, .randomBytesThenClose]
    }

    /// A response that misbehaves on the connection instead of answering.
    ///
    /// ```swift
    /// Path("/flaky") {
    ///     MockResponse.fault(.connectionReset)
    ///     MockResponse.plaintext("ok on retry")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - fault: What goes wrong.
    ///   - lifetime: How many requests it affects. Defaults to `.single`.
    ///   - delivery: When it happens. Defaults to `.instant`.
    /// - Returns: A faulty response.
    public static func fault(_ fault: Fault, lifetime: Lifetime = .single, delivery: Delivery = .instant) -> MockResponse {
        MockResponse(body: .fault(fault), contentType: nil, status: .ok, lifetime: lifetime, delivery: delivery, headers: [:])
    }
}
