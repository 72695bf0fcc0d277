/// A trie over pattern segments, so that matching a request costs what its own segments cost,
/// not what the number of registered patterns costs.
///
/// Each node finds its children by a dictionary lookup for literal segments, one slot each for
/// `*` and `**`, and a small index of in-segment globs keyed by their literal prefix. Matching
/// walks only the branches the request's segments can take. Nodes live in one array and refer to
/// each other by index, which keeps a large trie compact and cheap to build.
struct SegmentTrie: Sendable {
    struct Node: Sendable {
        var literal: [Substring: Int] = [:]
        var star: Int?
        var doubleStar: Int?
        var globs: GlobIndex?
        /// The payload of a pattern that ends here.
        var value: Int?
    }

    /// In-segment globs of one node, bucketed by the length and text of their literal prefix.
    struct GlobIndex: Sendable {
        var byPrefix: [Substring: [(glob: Glob, child: Int)]] = [:]
        var prefixLengths: [Int] = []

        func matches(of segment: Substring) -> [Int] {
            let bytes = segment.utf8
            var children: [Int] = []
            for length in prefixLengths {
                guard length <= bytes.count else { break }
                let end = bytes.index(bytes.startIndex, offsetBy: length)
                guard let entries = byPrefix[segment[segment.startIndex..<end]] else { continue }
                for entry in entries where entry.glob.matches(segment) {
                    children.append(entry.child)
                }
            }
            return children
        }

        func child(for glob: Glob) -> Int? {
            byPrefix[glob.prefix]?.first { $0.glob == glob }?.child
        }

        mutating func insert(_ glob: Glob, child: Int) {
            byPrefix[glob.prefix, default: []].append((glob, child))
            let length = glob.prefix.utf8.count
            if !prefixLengths.contains(length) {
                prefixLengths.append(length)
                prefixLengths.sort()
            }
        }
    }

    private(set) var nodes: [Node] = [Node()]

    /// The payload stored for exactly this pattern, if any.
    func value(for pattern: Pattern) -> Int? {
        var node = 0
        for segment in pattern.segments {
            let next: Int?
            switch segment {
            case .literal(let text): next = nodes[node].literal[text]
            case .star: next = nodes[node].star
            case .doubleStar: next = nodes[node].doubleStar
            case .glob(let glob): next = nodes[node].globs?.child(for: glob)
            }
            guard let next else { return nil }
            node = next
        }
        return nodes[node].value
    }

    /// Stores a payload for a pattern, creating the nodes it needs.
    mutating func setValue(_ value: Int?, for pattern: Pattern) {
        var node = 0
        for segment in pattern.segments {
            node = child(of: node, for: segment)
        }
        nodes[node].value = value
    }

    private mutating func child(of node: Int, for segment: Pattern.Segment) -> Int {
        let existing: Int?
        switch segment {
        case .literal(let text): existing = nodes[node].literal[text]
        case .star: existing = nodes[node].star
        case .doubleStar: existing = nodes[node].doubleStar
        case .glob(let glob): existing = nodes[node].globs?.child(for: glob)
        }
        if let existing { return existing }
        let created = nodes.count
        nodes.append(Node())
        switch segment {
        case .literal(let text): nodes[node].literal[text] = created
        case .star: nodes[node].star = created
        case .doubleStar: nodes[node].doubleStar = created
        case .glob(let glob):
            if nodes[node].globs == nil { nodes[node].globs = GlobIndex() }
            nodes[node].globs!.insert(glob, child: created)
        }
        return created
    }

    /// Appends the payload of every pattern that matches `segments` to `payloads`. A payload
    /// can be appended more than once when several `**` paths reach it.
    func collectMatches(_ segments: [Substring], into payloads: inout [Int]) {
        visit(0, segments, 0, &payloads)
    }

    private func visit(_ index: Int, _ segments: [Substring], _ position: Int, _ payloads: inout [Int]) {
        if let doubleStar = nodes[index].doubleStar {
            // `**` consumes zero or more segments.
            for next in position...segments.count {
                visit(doubleStar, segments, next, &payloads)
            }
        }
        guard position < segments.count else {
            if let value = nodes[index].value { payloads.append(value) }
            return
        }
        let segment = segments[position]
        if let child = nodes[index].literal[segment] {
            visit(child, segments, position + 1, &payloads)
        }
        if let star = nodes[index].star, !segment.isEmpty {
            visit(star, segments, position + 1, &payloads)
        }
        if let globs = nodes[index].globs {
            for child in globs.matches(of: segment) {
                visit(child, segments, position + 1, &payloads)
            }
        }
    }
}

extension StringProtocol {
    /// Splits on an ASCII separator byte without Unicode segmentation: hosts and paths are
    /// compared byte for byte.
    func splitSegments(on separator: UInt8) -> [Substring] {
        var segments: [Substring] = []
        let bytes = utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == separator {
                segments.append(Substring(self[start..<index]))
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        segments.append(Substring(self[start..<index]))
        return segments
    }
}
