import AirlockBase

/// A path in the registration DSL, holding its queued responses, its headers and nested paths.
///
/// A nested path's pattern is appended to its parent's: `Path("/admin") { Path("/audit") { … } }`
/// registers `/admin/audit`. Paths may be patterns: `*` matches one segment (`/api/*/users`),
/// `**` zero or more (`/api/**/data`), and `*` inside a segment matches within it (`/v*/items`).
/// A query constraint applies to this path only; nested paths do not inherit it.
///
/// ```swift
/// Path("/search", query: ["q": "swift"], matching: .contains) {
///     MockResponse.plaintext("ok")
/// }
/// ```
public struct Path: Sendable {
    /// The path or path pattern, starting with `/`.
    public let path: String
    /// Query parameters the request must carry, as value lists per name; `nil` for any query.
    public let query: [String: [String]]?
    /// How `query` is compared with the request's parameters.
    public let matching: QueryMatching
    /// What else a request must satisfy, such as `.post` or `.json(…)`; `nil` for nothing more.
    public let requirement: RequestMatcher?
    /// The scenario state the path's responses need and move to; `nil` outside scenarios.
    public let scenario: ScenarioStep?
    let elements: [PathElement]

    /// Declares a path, optionally requiring query parameters.
    /// - Parameters:
    ///   - path: A path or pattern starting with `/`.
    ///   - query: Parameters the request must carry; `nil` accepts any query.
    ///   - matching: `.exact` (the default) accepts only these parameters; `.contains` ignores others.
    ///   - requirement: What else a request must satisfy, such as `.post && .json(…)`; not inherited.
    ///   - scenario: The scenario state the responses need and move to; not inherited.
    ///   - content: `MockResponse`s, `Headers` and nested `Path`s.
    public init(
        _ path: String,
        query: [String: String]? = nil,
        matching: QueryMatching = .exact,
        requiring requirement: RequestMatcher? = nil,
        scenario: ScenarioStep? = nil,
        @PathBuilder _ content: () -> [PathElement]
    ) {
        self.init(path, lists: query?.mapValues { [$0] }, matching: matching, requirement: requirement, scenario: scenario, elements: content())
    }

    /// Declares a path whose query parameters repeat, such as `?id=1&id=2`.
    ///
    /// ```swift
    /// Path("/items", query: ["id": ["1", "2"]]) { MockResponse.plaintext("two items") }
    /// ```
    ///
    /// - Parameters:
    ///   - path: A path or pattern starting with `/`.
    ///   - query: The values each parameter must carry, in any order.
    ///   - matching: `.exact` (the default) accepts only these parameters and values; `.contains`
    ///     requires at least them.
    ///   - requirement: What else a request must satisfy, such as `.post && .json(…)`; not inherited.
    ///   - scenario: The scenario state the responses need and move to; not inherited.
    ///   - content: `MockResponse`s, `Headers` and nested `Path`s.
    public init(
        _ path: String,
        query: [String: [String]],
        matching: QueryMatching = .exact,
        requiring requirement: RequestMatcher? = nil,
        scenario: ScenarioStep? = nil,
        @PathBuilder _ content: () -> [PathElement]
    ) {
        self.init(path, lists: query, matching: matching, requirement: requirement, scenario: scenario, elements: content())
    }

    private init(
        _ path: String,
        lists: [String: [String]]?,
        matching: QueryMatching,
        requirement: RequestMatcher?,
        scenario: ScenarioStep?,
        elements: [PathElement]
    ) {
        self.path = path
        self.query = lists
        self.matching = matching
        self.requirement = requirement
        self.scenario = scenario
        self.elements = elements
    }

    func registrations(
        host: String,
        parentPath: String,
        inheritedDirect: [String: String],
        inheritedCascading: [String: String]
    ) -> [Registration] {
        var headers: [Headers] = []
        var responses: [MockResponse] = []
        var children: [Path] = []
        for element in elements {
            switch element.kind {
            case .headers(let value): headers.append(value)
            case .response(let value): responses.append(value)
            case .path(let value): children.append(value)
            }
        }
        let fullPath = Self.join(parentPath, path)
        var result: [Registration] = []
        if !responses.isEmpty {
            let scoped = headers.merged(onto: inheritedDirect)
            result.append(
                Registration(
                    host: host,
                    path: fullPath,
                    query: query,
                    queryMatching: matching,
                    requirement: requirement,
                    scenario: scenario,
                    responses: responses.map { $0.inheriting(scoped) }
                )
            )
        }
        let cascading = headers.merged(onto: inheritedCascading, cascadingOnly: true)
        for child in children {
            result += child.registrations(
                host: host,
                parentPath: fullPath,
                inheritedDirect: cascading,
                inheritedCascading: cascading
            )
        }
        return result
    }

    /// `/admin` + `/audit` = `/admin/audit`; `/` + `/x` = `/x`. A child that does not start with
    /// `/` is kept as written, so that registration rejects it and says why.
    static func join(_ parent: String, _ child: String) -> String {
        guard !parent.isEmpty, child.hasPrefix("/") else { return child }
        let trimmed = parent.hasSuffix("/") ? String(parent.dropLast()) : parent
        return trimmed + child
    }
}

/// An element of a `Path` block: a `MockResponse`, `Headers` or a nested `Path`.
public struct PathElement: Sendable {
    enum Kind: Sendable {
        case response(MockResponse)
        case headers(Headers)
        case path(Path)
    }

    let kind: Kind
}
