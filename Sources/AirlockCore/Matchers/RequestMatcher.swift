import AirlockBase

/// A condition on a request, used both to stub (`requiring:`) and to verify (`mock.verify(…)`).
///
/// Matchers combine with `&&`, `||` and `!`:
///
/// ```swift
/// let createUser: RequestMatcher = .post && .path("/users") && .json(#"{"name": "Alice"}"#)
/// mock.addResponses(forPath: "/users", host: "api.example.com", requiring: createUser) {
///     MockResponse.empty(status: .created)
/// }
/// mock.verify(createUser, .exactly(1))
/// ```
///
/// Each matcher describes itself and, for a request it rejects, says what differed — the text
/// diagnostics and verification failures show.
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// What the matcher requires, with the values of headers, query items and fields marked, so
    /// that each output shows them as its mock's ``Redaction`` allows.
    package let template: String
    private let check: @Sendable (RecordedRequest) -> [String]
    /// How far a request is from matching, from 0 to 1, for a matcher that can say more than
    /// "matches" or "does not" (a WireMock mapping's request pattern); `nil` for the others.
    private var measure: (@Sendable (RecordedRequest) -> Double)?

    /// What the matcher requires, such as `method POST`, with credentials hidden by
    /// ``Redaction/standard``.
    public var description: String { Redaction.standard.render(template) }

    /// A matcher from a predicate: the validator of your own.
    ///
    /// ```swift
    /// RequestMatcher("has a trace id") { $0.header("X-Trace-Id") != nil }
    /// ```
    ///
    /// - Parameters:
    ///   - description: What the predicate requires, for messages.
    ///   - predicate: Whether a request satisfies it.
    public init(_ description: String, _ predicate: @escaping @Sendable (RecordedRequest) -> Bool) {
        self.template = description
        self.check = { predicate($0) ? [] : ["\(description): not satisfied"] }
    }

    /// A matcher that explains each mismatch.
    /// - Parameters:
    ///   - description: What the matcher requires.
    ///   - mismatches: What differs for a request; empty when it matches.
    public init(description: String, mismatches: @escaping @Sendable (RecordedRequest) -> [String]) {
        self.template = description
        self.check = mismatches
    }

    /// The same matcher, which also says how far a request it rejects is from matching (0 to 1),
    /// for the near-miss ranking of the unmatched-request diagnosis.
    package func measuring(_ distance: @escaping @Sendable (RecordedRequest) -> Double) -> RequestMatcher {
        var measured = self
        measured.measure = distance
        return measured
    }

    /// What a request the matcher rejects counts in the near-miss ranking: how far it is from
    /// matching when the matcher can say (never 0: it did not match), else one whole miss.
    package func missWeight(_ request: RecordedRequest) -> Double {
        guard let measure else { return 1 }
        let distance = measure(request)
        guard distance.isFinite else { return 1 }
        return Swift.min(1, Swift.max(0.000_001, distance))
    }

    /// Whether the request satisfies the matcher.
    public func matches(_ request: RecordedRequest) -> Bool {
        check(request).isEmpty
    }

    /// What differs between the request and the matcher; empty when it matches. Credentials
    /// are hidden by ``Redaction/standard``.
    public func mismatches(_ request: RecordedRequest) -> [String] {
        let redaction = Redaction.standard
        return check(request).map { redaction.render($0) }
    }

    /// What differs, with values marked for the output pass of the mock's redaction.
    package func mismatchTemplates(_ request: RecordedRequest) -> [String] {
        check(request)
    }

    /// Matches every request.
    public static var any: RequestMatcher {
        RequestMatcher(description: "any request") { _ in [] }
    }

    /// Both matchers must match.
    public static func && (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(description: "\(lhs.template) and \(rhs.template)") {
            lhs.mismatchTemplates($0) + rhs.mismatchTemplates($0)
        }
    }

    /// Either matcher must match.
    public static func || (lhs: RequestMatcher, rhs: RequestMatcher) -> RequestMatcher {
        RequestMatcher(description: "(\(lhs.template) or \(rhs.template))") { request in
            guard !lhs.matches(request), !rhs.matches(request) else { return [] }
            return ["neither \(lhs.template) nor \(rhs.template)"]
        }
    }

    /// The matcher must not match.
    public static prefix func ! (matcher: RequestMatcher) -> RequestMatcher {
        RequestMatcher(description: "not \(matcher.template)") { request in
            matcher.matches(request) ? ["\(matcher.template): matched, but must not"] : []
        }
    }
}
