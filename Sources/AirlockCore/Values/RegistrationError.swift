import AirlockBase

/// A stub that was rejected when it was registered: what kind of failure it is, the stub, what
/// was wrong and how to fix it.
///
/// Registration never crashes: a stub with an invalid host or path pattern, or an invalid
/// lifetime or delay, is left out, reported on standard error, listed in the mock's
/// `registrationErrors`, and named in the message of any request that then goes unmatched.
/// Switch on ``code`` to tell failures apart; show ``description`` to people:
///
/// ```swift
/// mock.addResponses(forPath: "users", host: "api.example.com") { MockResponse.plaintext("hi") }
/// #expect(mock.registrationErrors.map(\.code) == [.invalidPath])  // the path "users" does not start with "/"
/// ```
public struct RegistrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure a ``RegistrationError`` is.
    ///
    /// An opaque value with a static member for each failure, so that kinds can be added without
    /// breaking a `switch`: compare with `==`, or switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidHost, invalidPath, invalidLifetime, invalidDelay, invalidDribble, invalidStatus, invalidHeader
        }

        private let base: Base

        /// The host pattern cannot be read: it is empty, has a scheme, a path, white space or an
        /// empty label, or `**` inside a label.
        public static let invalidHost = Code(base: .invalidHost)
        /// The path pattern cannot be read: it does not start with `/`, holds `?` or `#`, or has
        /// `**` inside a segment.
        public static let invalidPath = Code(base: .invalidPath)
        /// A response's lifetime would never serve it: `.multiple(n)` with n < 1.
        public static let invalidLifetime = Code(base: .invalidLifetime)
        /// A response's delay is negative, not a number, or longer than
        /// ``ResponseLimits/maximumSeconds``.
        public static let invalidDelay = Code(base: .invalidDelay)
        /// A response's dribble has too few or too many chunks, or a duration that cannot be
        /// waited.
        public static let invalidDribble = Code(base: .invalidDribble)
        /// A response's status is not an HTTP status code (100–599).
        public static let invalidStatus = Code(base: .invalidStatus)
        /// A response's header cannot be sent: a name that is not an RFC 9110 token, or a value
        /// with a control character (CR and LF would start another header).
        public static let invalidHeader = Code(base: .invalidHeader)

        /// The code's name, such as `invalidPath`.
        public var description: String { "\(base)" }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The stub as it was written, such as `host "api.example.com", path "users"`.
    public let stub: String
    /// What is wrong with it.
    public let problem: String
    /// How to fix it.
    public let fix: String

    package init(_ code: Code, stub: String, problem: String, fix: String) {
        self.code = code
        self.stub = stub
        self.problem = problem
        self.fix = fix
    }

    /// One line: the stub, the problem and the fix.
    public var description: String {
        "Airlock rejected the stub for \(stub): \(problem). \(fix)"
    }
}
