import AirlockBase

/// Headers declared in a `Host` or `Path` scope of the DSL.
///
/// Without cascade, the headers apply to the responses declared directly in their scope (for a
/// `Host`, the responses of its top-level paths). With `cascade: true` they also apply to every
/// nested path. Later headers in a scope override earlier ones with the same name, nested scopes
/// override outer ones, and a response's own headers override everything it inherits.
///
/// ```swift
/// Host("api.example.com") {
///     Headers(["X-Env": "Test"], cascade: true)   // every path below
///     Path("/admin") {
///         Headers(["X-Env": "AdminOnly"])          // only /admin's own responses
///         MockResponse.empty(status: .unauthorized)
///         Path("/audit") { MockResponse.plaintext("audit") } // X-Env: Test
///     }
/// }
/// ```
public struct Headers: Hashable, Sendable {
    /// The header fields.
    public let values: [String: String]
    /// Whether nested paths inherit them.
    public let cascade: Bool

    /// Declares headers for the enclosing scope.
    /// - Parameters:
    ///   - values: Header names and values.
    ///   - cascade: Whether nested paths inherit the headers. Defaults to `false`.
    public init(_ values: [String: String], cascade: Bool = false) {
        self.values = values
        self.cascade = cascade
    }
}

extension Array where Element == Headers {
    /// All the headers in declaration order, later ones winning.
    func merged(onto base: [String: String] = [:], cascadingOnly: Bool = false) -> [String: String] {
        reduce(base) { merged, headers in
            cascadingOnly && !headers.cascade ? merged : HeaderFields.merging(merged, with: headers.values)
        }
    }
}
