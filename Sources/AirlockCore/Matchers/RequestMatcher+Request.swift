import AirlockBase

extension RequestMatcher {
    /// The request's method, such as `"POST"` (case-insensitive).
    public static func method(_ method: String) -> RequestMatcher {
        let expected = method.uppercased()
        return RequestMatcher(description: "method \(expected)") { request in
            request.method == expected ? [] : ["method \(request.method) vs \(expected)"]
        }
    }

    /// `GET` requests.
    public static var get: RequestMatcher { method("GET") }
    /// `POST` requests.
    public static var post: RequestMatcher { method("POST") }
    /// `PUT` requests.
    public static var put: RequestMatcher { method("PUT") }
    /// `PATCH` requests.
    public static var patch: RequestMatcher { method("PATCH") }
    /// `DELETE` requests.
    public static var delete: RequestMatcher { method("DELETE") }
    /// `HEAD` requests.
    public static var head: RequestMatcher { method("HEAD") }

    /// The host, exact or a pattern with the stub rules (`*.example.com`, `**.example.com`).
    /// An invalid pattern matches nothing and says why.
    public static func host(_ pattern: String) -> RequestMatcher {
        do {
            let compiled = try HostPattern(pattern)
            return RequestMatcher(description: "host \(compiled)") { request in
                compiled.matches(request.host) ? [] : ["host \(request.host) vs \(compiled)"]
            }
        } catch {
            return RequestMatcher(description: "host \(pattern) (invalid)") { _ in [error.description] }
        }
    }

    /// The path, exact or a pattern with the stub rules (`/users/*`, `/api/**/data`).
    /// An invalid pattern matches nothing and says why.
    public static func path(_ pattern: String) -> RequestMatcher {
        do {
            let compiled = try PathPattern(pattern)
            return RequestMatcher(description: "path \(compiled)") { request in
                compiled.matches(request.path) ? [] : ["path \(request.path) vs \(compiled)"]
            }
        } catch {
            return RequestMatcher(description: "path \(pattern) (invalid)") { _ in [error.description] }
        }
    }

    /// Query parameters, compared as lists per name (repeated keys are not collapsed).
    /// - Parameters:
    ///   - items: The values each parameter must carry.
    ///   - matching: `.exact` accepts only these parameters; `.contains` (the default) ignores others.
    public static func query(_ items: [String: [String]], matching: QueryMatching = .contains) -> RequestMatcher {
        let constraint = QueryConstraint(items, matching: matching)
        let label = "query \(matching == .exact ? "exactly" : "contains") \(QueryConstraint.describe(constraint.values))"
        return RequestMatcher(description: label) { request in
            constraint.differences(from: request.queryValues)
        }
    }

    /// Query parameters with one value each.
    /// - Parameters:
    ///   - items: The value each parameter must carry.
    ///   - matching: `.exact` accepts only these parameters; `.contains` (the default) ignores others.
    public static func query(_ items: [String: String], matching: QueryMatching = .contains) -> RequestMatcher {
        query(items.mapValues { [$0] }, matching: matching)
    }

    /// A header, present with any value (`value: nil`) or with exactly this value. Names compare
    /// case-insensitively.
    public static func header(_ name: String, _ value: String? = nil) -> RequestMatcher {
        RequestMatcher(description: value.map { "header \(name): \(Redaction.markHeader(name, $0))" } ?? "header \(name)") { request in
            switch (request.header(name), value) {
            case (nil, _): return ["header \(name) missing"]
            case (let actual?, let expected?) where actual != expected:
                return ["header \(name) is \"\(Redaction.markHeader(name, actual))\", not \"\(Redaction.markHeader(name, expected))\""]
            default: return []
            }
        }
    }
}
