/// How many requests a verification expects.
///
/// ```swift
/// mock.verify(.post && .path("/users"), .exactly(1))
/// mock.verify(.path("/analytics/**"), .never)
/// ```
public struct Times: Sendable, Hashable, CustomStringConvertible {
    private enum Bound: Hashable, Sendable {
        case exactly(Int)
        case atLeast(Int)
        case atMost(Int)
    }

    private let bound: Bound

    /// Exactly `count` requests.
    public static func exactly(_ count: Int) -> Times { Times(bound: .exactly(count)) }
    /// `count` requests or more.
    public static func atLeast(_ count: Int) -> Times { Times(bound: .atLeast(count)) }
    /// `count` requests or fewer.
    public static func atMost(_ count: Int) -> Times { Times(bound: .atMost(count)) }
    /// Exactly one request.
    public static var once: Times { .exactly(1) }
    /// No request at all.
    public static var never: Times { .exactly(0) }

    /// Whether `count` requests satisfy the expectation.
    public func accepts(_ count: Int) -> Bool {
        switch bound {
        case .exactly(let expected): count == expected
        case .atLeast(let minimum): count >= minimum
        case .atMost(let maximum): count <= maximum
        }
    }

    /// `exactly 1 request`, `at least 2 requests`, `no request`.
    public var description: String {
        func requests(_ count: Int) -> String { count == 1 ? "1 request" : "\(count) requests" }
        switch bound {
        case .exactly(0): return "no request"
        case .exactly(let count): return "exactly \(requests(count))"
        case .atLeast(let count): return "at least \(requests(count))"
        case .atMost(let count): return "at most \(requests(count))"
        }
    }
}
