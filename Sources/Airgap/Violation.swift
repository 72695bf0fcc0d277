import AirlockBase
import Foundation

/// One attempt at real network access that Airgap detected.
///
/// ``kind`` says where it was seen and ``wasBlocked`` whether it was stopped. The URLSession
/// layer (``Kind/request``) fills every field from the request: `httpMethod`, `url` and
/// `contentType`. The socket layer knows only where the connection was going: a
/// ``Kind/connect`` has a `tcp://` or `udp://` URL (or `raw://AF_PACKET` with `httpMethod`
/// `"SOCKET"` for a raw socket), a ``Kind/resolve`` a `dns://name` URL (`dns-ptr://address` for
/// a reverse lookup), both with `host` and `port` (and, for the seed's reports, `httpMethod`
/// `"CONNECT"` / `"RESOLVE"`). Violations of child processes have one call-stack line,
/// `child process PID (program)`.
///
/// `Violation` is `Codable`; JSON reports (``Airgap/writeReport()`` with a `.json` path) encode
/// an array of them with ISO 8601 dates:
///
/// ```swift
/// let data = try JSONEncoder().encode(Airgap.violations)
/// ```
public struct Violation: Sendable, Equatable, Codable {
    /// Where Airgap saw the attempt.
    public enum Kind: String, Sendable, Codable {
        /// An HTTP request through a `URLSession` (the guard protocol saw it).
        case request
        /// A socket `connect`, a send to an address (TCP or UDP), or a raw socket.
        case connect
        /// A host-name lookup.
        case resolve
    }

    /// Where Airgap saw the attempt: a request, a connect, or a name lookup.
    public let kind: Kind
    /// Whether the attempt was stopped. Airgap blocks in both modes, so its own violations are
    /// always `true`; `false` is kept for reports written by earlier versions.
    public let wasBlocked: Bool
    /// The test that triggered the violation: `"Suite/test()"` under Swift Testing,
    /// `"-[Class test]"`-style names under XCTest, `"<unknown test>"` when no test was running.
    public let testName: String
    /// The HTTP method (`"GET"`, `"POST"`), or `"CONNECT"` / `"RESOLVE"` for the socket layer.
    public let httpMethod: String
    /// The absolute URL of the request with credentials hidden (`Redaction.standard`), or `tcp://address:port`, `udp://address:port`,
    /// `dns://name` for the socket layer.
    public let url: String
    /// Symbolicated stack frames captured where the violation was detected, innermost first.
    /// Text reports show the first 10.
    ///
    /// The guard captures only the stack's return addresses when the violation happens (a few
    /// microseconds); the first read of this property symbolicates them (once per distinct
    /// stack, cached), which can take from a tenth of a second to seconds in a large test
    /// binary. A reporter that does not read it never pays for it.
    public var callStack: [String] { stack.frames }
    /// When the violation was detected. Encoded as ISO 8601 in JSON reports.
    public let timestamp: Date
    /// The request's `Content-Type` header, if it had one.
    public let contentType: String?
    /// The host name or numeric address the code tried to reach, when known.
    public let host: String?
    /// The port the code tried to reach, when known.
    public let port: Int?
    /// The call stack: frames, or return addresses symbolicated when first read.
    let stack: ViolationStack

    /// Creates a violation.
    /// - Parameters:
    ///   - testName: The test that triggered it.
    ///   - httpMethod: The HTTP method, or `"CONNECT"` / `"RESOLVE"`.
    ///   - url: The URL, or a `tcp://`, `udp://`, `dns://` description.
    ///   - callStack: Stack frames, innermost first.
    ///   - timestamp: When it happened; now by default.
    ///   - contentType: The request's `Content-Type`, if any.
    ///   - host: The host or address, if known.
    ///   - port: The port, if known.
    ///   - kind: Where it was seen. Defaults to what `httpMethod` says: `"CONNECT"` is a connect,
    ///     `"RESOLVE"` a lookup, anything else a request.
    ///   - wasBlocked: Whether it was stopped. Defaults to `true`.
    public init(
        testName: String,
        httpMethod: String,
        url: String,
        callStack: [String],
        timestamp: Date = Date(),
        contentType: String? = nil,
        host: String? = nil,
        port: Int? = nil,
        kind: Kind? = nil,
        wasBlocked: Bool = true
    ) {
        self.init(
            testName: testName, httpMethod: httpMethod, url: url, stack: ViolationStack(frames: callStack),
            timestamp: timestamp, contentType: contentType, host: host, port: port, kind: kind, wasBlocked: wasBlocked
        )
    }

    /// A violation whose call stack is `stack` (return addresses are symbolicated when first read).
    init(
        testName: String, httpMethod: String, url: String, stack: ViolationStack, timestamp: Date = Date(),
        contentType: String? = nil, host: String? = nil, port: Int? = nil, kind: Kind? = nil, wasBlocked: Bool = true
    ) {
        self.kind = kind ?? (httpMethod == "CONNECT" ? .connect : httpMethod == "RESOLVE" ? .resolve : .request)
        self.wasBlocked = wasBlocked
        self.testName = testName
        self.httpMethod = httpMethod
        // Violations go into messages and report files: credentials in the URL (query and
        // fragment tokens, a user-info password) never reach them.
        self.url = URLRedaction.standard(url)
        self.stack = stack
        self.timestamp = timestamp
        self.contentType = contentType
        self.host = host
        self.port = port
    }
}

extension Violation {
    /// The user's frame that made the call, when the stack shows it (symbolicates the stack).
    var userFrame: UserFrame? {
        stack.userFrame
    }
}

extension Violation {
    /// Two violations are equal when every field is, the call stacks compared as symbolicated
    /// frames.
    public static func == (lhs: Violation, rhs: Violation) -> Bool {
        lhs.kind == rhs.kind && lhs.wasBlocked == rhs.wasBlocked && lhs.testName == rhs.testName
            && lhs.httpMethod == rhs.httpMethod && lhs.url == rhs.url && lhs.timestamp == rhs.timestamp
            && lhs.contentType == rhs.contentType && lhs.host == rhs.host && lhs.port == rhs.port
            && lhs.callStack == rhs.callStack
    }
}

extension Violation {
    private enum CodingKeys: String, CodingKey {
        case kind, wasBlocked, testName, httpMethod, url, callStack, timestamp, contentType, host, port
    }

    /// Decodes a violation as ``Airgap/writeReport()`` encodes it.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        wasBlocked = try container.decode(Bool.self, forKey: .wasBlocked)
        testName = try container.decode(String.self, forKey: .testName)
        httpMethod = try container.decode(String.self, forKey: .httpMethod)
        url = try container.decode(String.self, forKey: .url)
        stack = ViolationStack(frames: try container.decode([String].self, forKey: .callStack))
        timestamp = try container.decode(Date.self, forKey: .timestamp)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        host = try container.decodeIfPresent(String.self, forKey: .host)
        port = try container.decodeIfPresent(Int.self, forKey: .port)
    }

    /// Encodes the violation with its call stack symbolicated.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(wasBlocked, forKey: .wasBlocked)
        try container.encode(testName, forKey: .testName)
        try container.encode(httpMethod, forKey: .httpMethod)
        try container.encode(url, forKey: .url)
        try container.encode(callStack, forKey: .callStack)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encodeIfPresent(host, forKey: .host)
        try container.encodeIfPresent(port, forKey: .port)
    }
}
