/// A parsed host or path pattern: literal segments, `*` (one segment), `**` (zero or more
/// segments) and in-segment globs such as `api-*`.
///
/// Hosts split on `.` and compare case-insensitively; paths split on `/` after their leading `/`.
package struct Pattern: Hashable, Sendable {
    package enum Kind: Sendable {
        case host
        case path
    }

    package enum Segment: Hashable, Sendable {
        case literal(Substring)
        /// `*`: exactly one non-empty segment.
        case star
        /// `**`: zero or more segments.
        case doubleStar
        /// A segment mixing literal text and `*`, each `*` matching any run within the segment.
        case glob(Glob)
    }

    /// The pattern as written (hosts lowercased).
    package let source: String
    package let segments: [Segment]
    /// How many `*` characters the pattern has: `**` counts as two.
    package let wildcardWeight: Int
    /// How many bytes of the pattern are not `*`.
    package let literalLength: Int

    package var isExact: Bool { wildcardWeight == 0 }

    /// Parses a host pattern such as `api.example.com`, `*.example.com` or `**.example.com`.
    package static func host(_ text: String) throws(PatternError) -> Pattern {
        let source = text.lowercased()
        guard !source.isEmpty else {
            throw PatternError("the host is empty", fix: "Pass a host name such as \"api.example.com\".")
        }
        if source.utf8.contains(UInt8(ascii: "/")) {
            throw PatternError(
                "the host \"\(text)\" contains a scheme or a path",
                fix: "Pass the bare host name, such as \"api.example.com\", and put the path in forPath:/Path(_:)."
            )
        }
        if source.utf8.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") }) {
            throw PatternError("the host \"\(text)\" contains white space", fix: "Remove the spaces.")
        }
        return try Pattern(source: source, separator: UInt8(ascii: "."), kind: .host, original: text)
    }

    /// Parses a path pattern such as `/users`, `/api/*/users` or `/api/**/data`.
    package static func path(_ text: String) throws(PatternError) -> Pattern {
        guard text.utf8.first == UInt8(ascii: "/") else {
            throw PatternError(
                "the path \"\(text)\" does not start with \"/\"",
                fix: "Write it as \"/\(text)\"."
            )
        }
        if let byte = text.utf8.first(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            throw PatternError(
                "the path \"\(text)\" contains \"\(Character(Unicode.Scalar(byte)))\"",
                fix: "Give query parameters with query:/queryItems: instead of in the path."
            )
        }
        return try Pattern(source: text, separator: UInt8(ascii: "/"), kind: .path, original: text)
    }

    private init(source: String, separator: UInt8, kind: Kind, original: String) throws(PatternError) {
        let body = kind == .path ? source.dropFirst() : Substring(source)
        var segments: [Segment] = []
        var weight = 0
        for part in body.splitSegments(on: separator) {
            if kind == .host && part.isEmpty {
                throw PatternError(
                    "the host \"\(original)\" has an empty label",
                    fix: "Remove the doubled or trailing \".\"."
                )
            }
            let stars = part.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "*") ? 1 : 0) }
            guard stars > 0 else {
                segments.append(.literal(part))
                continue
            }
            weight += stars
            if part == "*" {
                segments.append(.star)
            } else if part == "**" {
                segments.append(.doubleStar)
            } else if part.contains("**") {
                throw PatternError(
                    "the \(kind == .host ? "host" : "path") \"\(original)\" has \"**\" inside the segment \"\(part)\"",
                    fix: "\"**\" must be a whole segment (\(kind == .host ? "**.example.com" : "/api/**/data")); "
                        + "use a single \"*\" to match within a segment."
                )
            } else {
                segments.append(.glob(Glob(part)))
            }
        }
        self.source = source
        self.segments = segments
        self.wildcardWeight = weight
        self.literalLength = source.utf8.count - weight
    }
}

/// A segment with literal text around one or more `*`, such as `api-*` or `v*-beta`.
package struct Glob: Hashable, Sendable {
    /// The literal runs between the stars; at least two (the text before the first star and after
    /// the last, either possibly empty).
    package let parts: [Substring]

    package init(_ segment: Substring) {
        parts = segment.split(separator: "*", omittingEmptySubsequences: false)
    }

    /// The literal text before the first `*`.
    package var prefix: Substring { parts[0] }

    package func matches(_ segment: Substring) -> Bool {
        let bytes = segment.utf8
        let head = parts[0].utf8
        let tail = parts[parts.count - 1].utf8
        guard bytes.count >= head.count + tail.count,
            bytes.starts(with: head),
            bytes.reversed().starts(with: tail.reversed())
        else { return false }
        var cursor = bytes.index(bytes.startIndex, offsetBy: head.count)
        let end = bytes.index(bytes.endIndex, offsetBy: -tail.count)
        for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
            guard let found = Self.endOfFirst(middle.utf8, in: bytes[cursor..<end]) else { return false }
            cursor = found
        }
        return true
    }

    /// Where the first occurrence of `needle` (not empty) in `text` ends, by a plain scan: what
    /// `text.firstRange(of: needle)?.upperBound` gives, without that `_StringProcessing` method
    /// (macOS 13, iOS 16), so that the package keeps its macOS 12 / iOS 15 floor.
    private static func endOfFirst(_ needle: Substring.UTF8View, in text: Substring.UTF8View) -> String.Index? {
        var start = text.startIndex
        while start != text.endIndex {
            var position = start
            var candidate = needle.startIndex
            while candidate != needle.endIndex, position != text.endIndex, text[position] == needle[candidate] {
                text.formIndex(after: &position)
                needle.formIndex(after: &candidate)
            }
            if candidate == needle.endIndex { return position }
            if position == text.endIndex { return nil }
            text.formIndex(after: &start)
        }
        return nil
    }
}

/// Why a host or path pattern was rejected, and how to fix it.
package struct PatternError: Error, Sendable {
    package let problem: String
    package let fix: String

    package init(_ problem: String, fix: String) {
        self.problem = problem
        self.fix = fix
    }
}
