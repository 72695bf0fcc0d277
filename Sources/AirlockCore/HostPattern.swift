/// One host pattern — `api.example.com`, `*.example.com`, `**.example.com`, `api-*.example.com` —
/// matched on its own, for code that checks a host against a short list (such as Airgap's
/// allowed hosts) rather than a registry.
package struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    private let pattern: Pattern

    /// Parses a host pattern; hosts compare case-insensitively.
    /// - Throws: A ``RegistrationError``-style message (problem and fix) for an invalid pattern.
    package init(_ text: String) throws(PatternSyntaxError) {
        pattern = try Pattern.parse(text, as: .host, with: Pattern.host)
    }

    /// The pattern, lowercased.
    package var description: String { pattern.source }

    /// Whether `host` matches: `*` is one label, `**` zero or more, `*` inside a label any run.
    package func matches(_ host: String) -> Bool {
        pattern.matches(host.lowercased().splitSegments(on: UInt8(ascii: ".")))
    }
}

/// One path pattern — `/users`, `/users/*`, `/api/**/data` — matched on its own.
package struct PathPattern: Hashable, Sendable, CustomStringConvertible {
    private let pattern: Pattern

    /// Parses a path pattern, which must start with `/`.
    package init(_ text: String) throws(PatternSyntaxError) {
        pattern = try Pattern.parse(text, as: .path, with: Pattern.path)
    }

    /// The pattern as written.
    package var description: String { pattern.source }

    /// Whether the percent-decoded `path` matches.
    package func matches(_ path: String) -> Bool {
        let trimmed = path.isEmpty ? "" : String(path.dropFirst())
        return pattern.matches(trimmed.splitSegments(on: UInt8(ascii: "/")))
    }
}

extension Pattern {
    /// Parses with `parser`, reporting a failure as a ``PatternSyntaxError`` that names the part and the text.
    static func parse(
        _ text: String,
        as part: PatternSyntaxError.Part,
        with parser: (String) throws(PatternError) -> Pattern
    ) throws(PatternSyntaxError) -> Pattern {
        do {
            return try parser(text)
        } catch {
            throw PatternSyntaxError(part: part, pattern: text, problem: error.problem, fix: error.fix)
        }
    }

    /// Matches one pattern against a request's labels or segments, without a trie.
    func matches(_ parts: [Substring]) -> Bool {
        Self.match(segments[...], parts[...])
    }

    private static func match(_ segments: ArraySlice<Pattern.Segment>, _ labels: ArraySlice<Substring>) -> Bool {
        guard let first = segments.first else { return labels.isEmpty }
        let rest = segments.dropFirst()
        switch first {
        case .doubleStar:
            var remaining = labels
            while true {
                if match(rest, remaining) { return true }
                guard !remaining.isEmpty else { return false }
                remaining = remaining.dropFirst()
            }
        case .star:
            guard let label = labels.first, !label.isEmpty else { return false }
            return match(rest, labels.dropFirst())
        case .literal(let text):
            guard let label = labels.first, label == text else { return false }
            return match(rest, labels.dropFirst())
        case .glob(let glob):
            guard let label = labels.first, glob.matches(label) else { return false }
            return match(rest, labels.dropFirst())
        }
    }
}

/// Why a host or path pattern was rejected, which of the two it was, and how to fix it.
package struct PatternSyntaxError: Error, Sendable, CustomStringConvertible {
    /// Which part of a stub the pattern is for.
    package enum Part: String, Sendable {
        case host
        case path
    }

    package let part: Part
    package let pattern: String
    package let problem: String
    package let fix: String

    package var description: String { "invalid \(part.rawValue) pattern \"\(pattern)\": \(problem). \(fix)" }
}
