import AirlockBase

/// The path and query of a URL as the client sent them (percent-encoded, without a fragment):
/// what WireMock's `url` compares, a proxy appends to its base, and a logged request shows. Read
/// from the URL's text, so nothing is decoded or normalised on the way.
package struct RequestTarget: Sendable {
    /// The path, never empty.
    package let path: String
    /// The query without its `?`; `nil` when there was none.
    package let query: String?

    /// The target of `scheme://authority/path?query#fragment`.
    package init(url: String) {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix { $0 != "#" }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let target = rest[authorityEnd...]
        let pathPart = target.prefix { $0 != "?" }
        path = pathPart.isEmpty ? "/" : String(pathPart)
        query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) }
    }

    /// `path?query`.
    package var pathAndQuery: String {
        guard let query else { return path }
        return path + "?" + query
    }
}
