import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation

extension Cassette {
    /// A request the cassette could not answer while it did not record (a replay miss): in
    /// ``RecordMode/none``, or in ``RecordMode/once`` once the file exists.
    ///
    /// The request failed — through `URLSession` with `URLError(.resourceUnavailable)`, through a
    /// socket with `502 Bad Gateway` and `Airlock-Error: replay-miss` — and the test frameworks
    /// report each miss as a failure of the test that owns the cassette.
    public struct Miss: Sendable, CustomStringConvertible {
        /// The request, redacted as the mock's messages show it.
        public let request: RecordedRequest
        /// The diagnosis: the request, the nearest recorded entries with what differs for each,
        /// and the command that records the missing exchange.
        public let message: String

        /// The ``message``.
        public var description: String { message }

        /// The response header that marks a socket's answer to a replay miss.
        package static let errorHeader = ReplayMissResponse.header.name
        /// Its value.
        package static let errorHeaderValue = ReplayMissResponse.header.value
    }

    /// The requests this cassette could not answer, oldest first: the replay misses of this run.
    ///
    /// Empty while the mode records (a request the file lacks is then forwarded and recorded). The
    /// `.cassette` trait records one `Issue` per miss when the test ends, and the XCTest
    /// `cassette()` helper one `XCTFail`, so a test cannot pass on a response the cassette never
    /// gave — even if it swallows the error.
    ///
    /// ```swift
    /// let cassette = try Cassette(contentsOf: URL(fileURLWithPath: "Fixtures/users.har"), mode: .none)
    /// let mock = HTTPMock(cassette: cassette)
    /// _ = try? await mock.urlSession.data(from: URL(string: "https://api.example.com/unrecorded")!)
    /// print(cassette.misses.map(\.request.url))   // ["https://api.example.com/unrecorded"]
    /// ```
    public var misses: [Miss] {
        missLog.withLock { $0 }
    }

    /// Keeps a replay miss, for ``misses``.
    package func recordMiss(request: RecordedRequest, message: String) {
        missLog.withLock { $0.append(Miss(request: request, message: message)) }
    }
}

extension Cassette: UnmatchedRequestHandler {}
