import AirlockBase

/// A stub's query requirement: parameter lists per name, compared without regard to order.
package struct QueryConstraint: Hashable, Sendable {
    /// Values per name, each list sorted.
    package let values: [String: [String]]
    package let matching: QueryMatching

    package init(_ values: [String: [String]], matching: QueryMatching) {
        self.values = values.mapValues { $0.sorted() }
        self.matching = matching
    }

    package func matches(_ request: [String: [String]]) -> Bool {
        switch matching {
        case .exact:
            return request == values
        case .contains:
            return values.allSatisfy { name, expected in
                guard let actual = request[name] else { return false }
                return Self.isSubmultiset(expected, of: actual)
            }
        }
    }

    /// What differs between the request's query and this constraint; empty when it matches.
    package func differences(from request: [String: [String]]) -> [String] {
        var differences: [String] = []
        for name in values.keys.sorted() {
            let expected = values[name, default: []]
            guard let actual = request[name] else {
                differences.append("query missing \(name)")
                continue
            }
            let fits = matching == .exact ? actual == expected : Self.isSubmultiset(expected, of: actual)
            if !fits {
                let mark = { (values: [String]) in values.map { Redaction.markField(name, $0) }.joined(separator: ",") }
                differences.append("query \(name)=\(mark(actual)) vs \(mark(expected))")
            }
        }
        if matching == .exact {
            for name in request.keys.sorted() where values[name] == nil {
                differences.append("query has unexpected \(name)")
            }
        }
        return differences
    }

    /// Whether every element of sorted `small` occurs in sorted `large`, counting repeats.
    private static func isSubmultiset(_ small: [String], of large: [String]) -> Bool {
        var index = large.startIndex
        for element in small {
            while index < large.endIndex && large[index] < element { index += 1 }
            guard index < large.endIndex && large[index] == element else { return false }
            index += 1
        }
        return true
    }

    /// A query as value lists per name, the form a constraint compares with: each list sorted, so
    /// that order does not matter, or (`sorted: false`) in the order sent. Stub matching, the
    /// `.query(…)` request matcher, cassette entries and the unmatched-request diagnosis all read
    /// a query through this.
    package static func lists(_ items: some Sequence<(name: String, value: String?)>, sorted: Bool = true) -> [String: [String]] {
        var lists: [String: [String]] = [:]
        for item in items {
            lists[item.name, default: []].append(item.value ?? "")
        }
        return sorted ? lists.mapValues { $0.sorted() } : lists
    }

    /// `q=swift&page=1`, names sorted, repeated names repeated.
    package static func describe(_ values: [String: [String]]) -> String {
        guard !values.isEmpty else { return "(none)" }
        return values.keys.sorted().flatMap { name in
            values[name, default: []].map { "\(name)=\(Redaction.markField(name, $0))" }
        }.joined(separator: "&")
    }
}
