/// One host pattern — `api.example.com`, `*.example.com`, `**.example.com`, `api-*.example.com` —
/// matched on its own, for code that checks a host against a short list (such as Airgap's
/// allowed hosts) rather than a registry.
package struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    private let pattern: Pattern

    /// Parses a host pattern; hosts compare case-insensitively.
    /// - Throws: A ``RegistrationError``-style message (problem and fix) for an invalid pattern.
    package init(_ text: String) throws(HostPatternError) {
        do {
            pattern = try Pattern.host(text)
        } catch {
            throw HostPatternError(pattern: text, problem: error.problem, fix: error.fix)
        }
    }

    /// The pattern, lowercased.
    package var description: String { pattern.source }

    /// Whether `host` matches: `*` is one label, `**` zero or more, `*` inside a label any run.
    package func matches(_ host: String) -> Bool {
        let labels = host.lowercased().splitSegments(on: UInt8(ascii: "."))
        return Self.match(pattern.segments[...], labels[...])
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

/// Why a host pattern was rejected, and how to fix it.
package struct HostPatternError: Error, Sendable, CustomStringConvertible {
    package let pattern: String
    package let problem: String
    package let fix: String

    package var description: String { "invalid host pattern \"\(pattern)\": \(problem). \(fix)" }
}
