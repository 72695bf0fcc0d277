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

        func forEachMatch(of segment: Substring, _ body: (Int) -> Void) {
            let bytes = segment.utf8
            for length in prefixLengths {
                guard length <= bytes.count else { break }
                let end = bytes.index(bytes.startIndex, offsetBy: length)
                guard let entries = byPrefix[segment[segment.startIndex..<end]] else { continue }
                for entry in entries where entry.glob.matches(segment) {
                    body(entry.child)
                }
            }
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

    /// Calls `body` with the payload of every pattern that matches `segments`. A payload can be
    /// reported more than once when several `**` paths reach it.
    func forEachMatch(_ segments: [Substring], _ body: (Int) -> Void) {
        visit(0, segments, 0, body)
    }

    private func visit(_ index: Int, _ segments: [Substring], _ position: Int, _ body: (Int) -> Void) {
        let node = nodes[index]
        if let doubleStar = node.doubleStar {
            // `**` consumes zero or more segments.
            for next in position...segments.count {
                visit(doubleStar, segments, next, body)
            }
        }
        guard position < segments.count else {
            if let value = node.value { body(value) }
            return
        }
        let segment = segments[position]
        if let child = node.literal[segment] {
            visit(child, segments, position + 1, body)
        }
        if let star = node.star, !segment.isEmpty {
            visit(star, segments, position + 1, body)
        }
        node.globs?.forEachMatch(of: segment) { child in
            visit(child, segments, position + 1, body)
        }
    }
}
