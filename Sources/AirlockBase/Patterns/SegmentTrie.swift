/// A trie over pattern segments, so that matching a request costs what its own segments cost,
/// not what the number of registered patterns costs.
///
/// Nodes live in one array and refer to each other by index. A node's `*` and `**` children sit in
/// slots of their own; its in-segment globs in a small index keyed by their literal prefix; and
/// every literal edge of the whole trie in one open-addressing table keyed by (parent node,
/// fingerprint of the segment). That table replaces a dictionary per node: no per-node
/// allocations, and a lookup is one hash mix and a short probe, without `Hasher`.
package struct SegmentTrie: Sendable {
    package struct Node: Sendable {
        /// The literal segment that leads here (empty for the root and wildcard children).
        var label: String
        var star: Int32 = -1
        var doubleStar: Int32 = -1
        /// Index into `globIndexes`, or -1.
        var globs: Int32 = -1
        /// Whether any literal edge leaves this node: a match skips the edge table's probe (a
        /// cache miss in a large trie) at nodes that have none, such as a `*` at a pattern's end.
        var hasLiterals = false
        /// The payload of a pattern that ends here, or -1.
        var value: Int = -1
    }

    /// In-segment globs of one node, bucketed by the length and text of their literal prefix.
    package struct GlobIndex: Sendable {
        var byPrefix: [Substring: [(glob: Glob, child: Int32)]] = [:]
        var prefixLengths: [Int] = []

        func matches(of segment: Substring, into children: inout [Int32]) {
            let bytes = segment.utf8
            for length in prefixLengths {
                guard length <= bytes.count else { break }
                let end = bytes.index(bytes.startIndex, offsetBy: length)
                guard let entries = byPrefix[segment[segment.startIndex..<end]] else { continue }
                for entry in entries where entry.glob.matches(segment) {
                    children.append(entry.child)
                }
            }
        }

        func child(for glob: Glob) -> Int32? {
            byPrefix[glob.prefix]?.first { $0.glob == glob }?.child
        }

        mutating func insert(_ glob: Glob, child: Int32) {
            byPrefix[glob.prefix, default: []].append((glob, child))
            let length = glob.prefix.utf8.count
            if !prefixLengths.contains(length) {
                prefixLengths.append(length)
                prefixLengths.sort()
            }
        }
    }

    package private(set) var nodes: [Node] = [Node(label: "")]

    package init() {}
    private var edges = LiteralEdges()
    private var globIndexes: [GlobIndex] = []

    /// The payload stored for exactly this pattern, if any.
    package func value(for pattern: Pattern) -> Int? {
        var node: Int32 = 0
        for segment in pattern.segments {
            guard let next = existingChild(of: node, for: segment) else { return nil }
            node = next
        }
        let value = nodes[Int(node)].value
        return value < 0 ? nil : value
    }

    /// Stores a payload for a pattern (`nil` removes it), creating the nodes it needs.
    package mutating func setValue(_ value: Int?, for pattern: Pattern) {
        nodes[Int(node(for: pattern))].value = value ?? -1
    }

    /// The payload of a pattern, storing `make()` first if it has none; creates the nodes it needs.
    package mutating func value(for pattern: Pattern, orInsert make: () -> Int) -> (value: Int, inserted: Bool) {
        let node = Int(node(for: pattern))
        if nodes[node].value >= 0 { return (nodes[node].value, false) }
        nodes[node].value = make()
        return (nodes[node].value, true)
    }

    private mutating func node(for pattern: Pattern) -> Int32 {
        var node: Int32 = 0
        for segment in pattern.segments {
            node = child(of: node, for: segment)
        }
        return node
    }

    private func existingChild(of node: Int32, for segment: Pattern.Segment) -> Int32? {
        let current = nodes[Int(node)]
        switch segment {
        case .literal(let text):
            return edges.find(parent: node, fingerprint: Fingerprint.of(text.utf8)) { candidate in
                nodes[Int(candidate)].label.utf8.elementsEqual(text.utf8)
            }
        case .star: return current.star < 0 ? nil : current.star
        case .doubleStar: return current.doubleStar < 0 ? nil : current.doubleStar
        case .glob(let glob): return current.globs < 0 ? nil : globIndexes[Int(current.globs)].child(for: glob)
        }
    }

    private mutating func child(of node: Int32, for segment: Pattern.Segment) -> Int32 {
        if let existing = existingChild(of: node, for: segment) { return existing }
        let created = Int32(nodes.count)
        switch segment {
        case .literal(let text):
            nodes.append(Node(label: String(text)))
            nodes[Int(node)].hasLiterals = true
            edges.insert(parent: node, fingerprint: Fingerprint.of(text.utf8), child: created)
        case .star:
            nodes.append(Node(label: ""))
            nodes[Int(node)].star = created
        case .doubleStar:
            nodes.append(Node(label: ""))
            nodes[Int(node)].doubleStar = created
        case .glob(let glob):
            nodes.append(Node(label: ""))
            if nodes[Int(node)].globs < 0 {
                nodes[Int(node)].globs = Int32(globIndexes.count)
                globIndexes.append(GlobIndex())
            }
            globIndexes[Int(nodes[Int(node)].globs)].insert(glob, child: created)
        }
        return created
    }

    /// What one match needs besides the trie, kept by the caller between requests so that
    /// matching does not allocate.
    package struct MatchScratch: Sendable {
        /// The (`**` node, position) pairs already explored in this match: in a short array while
        /// there are few (a match usually explores a handful, and a linear scan of them costs less
        /// than hashing each), in `explored` once there are more.
        fileprivate var few: [Int] = []
        fileprivate var explored = Set<Int>()
        /// How many (node, position) steps the last match took: bounded by the trie's nodes times
        /// the request's segments plus one, whatever the patterns.
        package fileprivate(set) var steps = 0

        /// How many pairs the array holds before they move to the set.
        private static let fewLimit = 16

        package init() {}

        /// Notes a pair as explored; whether it was not before.
        fileprivate mutating func insert(_ pair: Int) -> Bool {
            if explored.isEmpty {
                if few.contains(pair) { return false }
                if few.count < Self.fewLimit {
                    few.append(pair)
                    return true
                }
                explored = Set(few)
            }
            return explored.insert(pair).inserted
        }

        fileprivate mutating func reset() {
            few.removeAll(keepingCapacity: true)
            // Most matches never fill the array: then the set has nothing to clear. Clearing
            // costs the set's capacity, so one hostile request that grew it does not make every
            // later request pay for it.
            if !explored.isEmpty {
                explored.removeAll(keepingCapacity: explored.capacity <= 256)
            }
            steps = 0
        }
    }

    /// Appends the payload of every pattern that matches `segments` to `payloads`. A payload
    /// can be appended more than once when several `**` paths reach it.
    ///
    /// The walk explores each (`**` node, position) pair once. Since the trie is a tree, every
    /// node below a `**` is then reached at most once per position, so a match costs at most the
    /// trie's nodes times the request's segments — several `**` in one pattern cannot make it
    /// exponential (`/**/a/**/a/**/a/z` against a thousand `a` segments would otherwise try
    /// every way of splitting them).
    package func collectMatches(_ segments: SegmentView, into payloads: inout [Int], scratch: inout MatchScratch) {
        scratch.reset()
        visit(0, segments, 0, &payloads, &scratch)
    }

    private func visit(_ index: Int32, _ segments: SegmentView, _ position: Int, _ payloads: inout [Int], _ scratch: inout MatchScratch) {
        scratch.steps += 1
        let node = Int(index)
        let doubleStar = nodes[node].doubleStar
        if doubleStar >= 0 {
            // `**` consumes zero or more segments. A pair explored before was explored by a loop
            // like this one, which went on to the end: so were all positions after it.
            let width = segments.count + 1
            for next in position...segments.count {
                guard scratch.insert(Int(doubleStar) * width + next) else { break }
                visit(doubleStar, segments, next, &payloads, &scratch)
            }
        }
        guard position < segments.count else {
            if nodes[node].value >= 0 { payloads.append(nodes[node].value) }
            return
        }
        let segment = segments[position]
        if nodes[node].hasLiterals,
            let literal = edges.find(parent: index, fingerprint: Fingerprint.of(segment), where: { candidate in
                Self.equal(nodes[Int(candidate)].label, segment)
            })
        {
            visit(literal, segments, position + 1, &payloads, &scratch)
        }
        let star = nodes[node].star
        if star >= 0, !segment.isEmpty {
            visit(star, segments, position + 1, &payloads, &scratch)
        }
        let globs = nodes[node].globs
        if globs >= 0 {
            var children: [Int32] = []
            let text = Substring(String(decoding: segment, as: UTF8.self))
            globIndexes[Int(globs)].matches(of: text, into: &children)
            for child in children {
                visit(child, segments, position + 1, &payloads, &scratch)
            }
        }
    }

    private static func equal(_ label: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let utf8 = label.utf8
        guard utf8.count == bytes.count else { return false }
        return utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? utf8.elementsEqual(bytes)
    }
}

/// A request's host labels or path segments as byte ranges over its UTF-8, so that matching
/// neither allocates nor builds a `Substring` per segment. Valid only inside `with`'s body.
package struct SegmentView {
    package let bytes: UnsafeBufferPointer<UInt8>
    package let ranges: [Range<Int>]

    package var count: Int { ranges.count }

    package subscript(position: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[ranges[position]])
    }

    /// Splits `text`, after its first `skipping` bytes, on an ASCII separator into `ranges` (a
    /// reused buffer) and runs `body` with the view.
    package static func with<Result>(
        _ text: String,
        skipping: Int = 0,
        separator: UInt8,
        ranges: inout [Range<Int>],
        _ body: (SegmentView) -> Result
    ) -> Result {
        var string = text
        return string.withUTF8 { bytes in
            ranges.removeAll(keepingCapacity: true)
            var start = min(skipping, bytes.count)
            for index in start..<bytes.count where bytes[index] == separator {
                ranges.append(start..<index)
                start = index + 1
            }
            ranges.append(start..<bytes.count)
            return body(SegmentView(bytes: bytes, ranges: ranges))
        }
    }
}

/// Every literal edge of a trie: (parent, segment fingerprint) → child, in one open-addressing
/// table with linear probing. Callers confirm a candidate by comparing the child's label.
package struct LiteralEdges: Sendable {
    private struct Slot: Sendable {
        var parent: Int32 = -1
        var child: Int32 = -1
        var fingerprint: UInt64 = 0
    }

    private var slots = [Slot](repeating: Slot(), count: 16)
    private var count = 0

    private static func mix(_ parent: Int32, _ fingerprint: UInt64) -> Int {
        // splitmix64's finaliser over the fingerprint and the parent.
        var x = fingerprint ^ (UInt64(UInt32(bitPattern: parent)) &* 0x9E37_79B9_7F4A_7C15)
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 31))
    }

    package func find(parent: Int32, fingerprint: UInt64, where isMatch: (Int32) -> Bool) -> Int32? {
        let mask = slots.count - 1
        var index = Self.mix(parent, fingerprint) & mask
        while slots[index].parent >= 0 {
            let slot = slots[index]
            if slot.parent == parent && slot.fingerprint == fingerprint && isMatch(slot.child) {
                return slot.child
            }
            index = (index + 1) & mask
        }
        return nil
    }

    package mutating func insert(parent: Int32, fingerprint: UInt64, child: Int32) {
        if (count + 1) * 2 > slots.count {
            grow()
        }
        place(Slot(parent: parent, child: child, fingerprint: fingerprint))
        count += 1
    }

    private mutating func place(_ slot: Slot) {
        let mask = slots.count - 1
        var index = Self.mix(slot.parent, slot.fingerprint) & mask
        while slots[index].parent >= 0 {
            index = (index + 1) & mask
        }
        slots[index] = slot
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        for slot in old where slot.parent >= 0 {
            place(slot)
        }
    }
}

/// FNV-1a over a segment's bytes: cheap, and good enough once mixed with the parent node.
package enum Fingerprint {
    package static func of(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

extension StringProtocol {
    /// Splits on an ASCII separator byte without Unicode segmentation: hosts and paths are
    /// compared byte for byte.
    package func splitSegments(on separator: UInt8) -> [Substring] {
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
