/// URI references as `$id` and `$ref` use them: split into parts, and resolved against a base
/// (RFC 3986 §5.2, dot segments removed). Works for any scheme (`urn:`, `tag:`), which
/// Foundation's `URL(string:relativeTo:)` does not.
struct URIReference: Equatable {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?
    var fragment: String?

    /// Splits `text` as RFC 3986 Appendix B does; every text is some reference.
    init(_ text: String) {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if let colon = rest.firstIndex(of: ":"), !rest[..<colon].isEmpty, !rest[..<colon].contains("/") {
            scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            authority = String(afterSlashes[..<end])
            rest = afterSlashes[end...]
        }
        path = String(rest)
    }

    /// The reference written back.
    var text: String {
        var result = ""
        if let scheme { result += scheme + ":" }
        if let authority { result += "//" + authority }
        result += path
        if let query { result += "?" + query }
        if let fragment { result += "#" + fragment }
        return result
    }

    /// `reference` resolved against `base` (RFC 3986 §5.2.2).
    static func resolve(_ reference: String, against base: String) -> String {
        let relative = URIReference(reference)
        guard relative.scheme == nil else {
            var target = relative
            target.path = removingDotSegments(target.path)
            return target.text
        }
        let baseReference = URIReference(base)
        var target = URIReference("")
        target.scheme = baseReference.scheme
        target.fragment = relative.fragment
        if relative.authority != nil {
            target.authority = relative.authority
            target.path = removingDotSegments(relative.path)
            target.query = relative.query
        } else {
            target.authority = baseReference.authority
            if relative.path.isEmpty {
                target.path = baseReference.path
                target.query = relative.query ?? baseReference.query
            } else {
                if relative.path.hasPrefix("/") {
                    target.path = removingDotSegments(relative.path)
                } else if baseReference.authority != nil, baseReference.path.isEmpty {
                    target.path = removingDotSegments("/" + relative.path)
                } else {
                    let directory = baseReference.path.lastIndex(of: "/").map { String(baseReference.path[...$0]) } ?? ""
                    target.path = removingDotSegments(directory + relative.path)
                }
                target.query = relative.query
            }
        }
        return target.text
    }

    /// The reference without its fragment: `http://x/y.json#/a` → `http://x/y.json`.
    static func withoutFragment(_ text: String) -> String {
        text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }

    /// The reference's fragment, if it has one (`""` for a trailing `#`).
    static func fragment(of text: String) -> String? {
        text.firstIndex(of: "#").map { String(text[text.index(after: $0)...]) }
    }

    /// RFC 3986 §5.2.4.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if output.count > 1 || (output.count == 1 && !output[0].isEmpty) { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        var result = output.joined(separator: "/")
        if path.hasPrefix("/"), !result.hasPrefix("/") { result = "/" + result }
        return result
    }
}
