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
    package static func parse(
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
    ///
    /// Walks the pattern once, keeping the set of positions in `parts` it can have reached, so
    /// the cost is the pattern's segments times the parts, whatever the number of `**` (trying
    /// each way of splitting the parts between several `**` would be exponential).
    package func matches(_ parts: [Substring]) -> Bool {
        var reached = [Bool](repeating: false, count: parts.count + 1)
        reached[0] = true
        var next = reached
        for segment in segments {
            switch segment {
            case .doubleStar:
                // Zero or more parts: every position at or after one reached.
                var any = false
                for position in reached.indices {
                    any = any || reached[position]
                    next[position] = any
                }
            case .star, .literal, .glob:
                next[0] = false
                for position in parts.indices {
                    next[position + 1] = reached[position] && Self.segment(segment, matches: parts[position])
                }
            }
            swap(&reached, &next)
            guard reached.contains(true) else { return false }
        }
        return reached[parts.count]
    }

    private static func segment(_ segment: Pattern.Segment, matches part: Substring) -> Bool {
        switch segment {
        case .doubleStar: true
        case .star: !part.isEmpty
        case .literal(let text): part == text
        case .glob(let glob): glob.matches(part)
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
