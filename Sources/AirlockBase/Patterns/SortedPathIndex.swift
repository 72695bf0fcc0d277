/// Route ids sorted by a host key, then by their path pattern's text byte by byte, so that the
/// stubs whose path text shares the longest prefix with a request's path are found by a binary
/// search and a walk outward — the unmatched-request diagnosis's neighbours, without a pass over
/// every route.
///
/// In byte order, the texts that share at least `n` leading bytes with a path sit next to each
/// other around the place the path would be inserted, and the shared prefix only shrinks going
/// away from that place on either side: walking outward, always to the side whose next text shares
/// more, visits the texts from the longest shared prefix to the shortest.
///
/// Registering only appends to an unsorted tail, so it stays O(1); the first lookup after it sorts
/// the tail and merges it in.
package struct SortedPathIndex: Sendable {
    private struct Entry: Sendable {
        /// The host's path trie in the per-host index; 0 in the index over every host.
        let key: Int32
        let id: Int32
        let path: String
    }

    private var sorted: [Entry] = []
    private var tail: [Entry] = []
    /// Whether routes were cleared since the last settle, so that their entries should go.
    private var hasRemovals = false

    package init() {}

    /// Adds route `id`, registered with `path`, under `key`.
    package mutating func append(id: Int, key: Int, path: String) {
        tail.append(Entry(key: Int32(truncatingIfNeeded: key), id: Int32(truncatingIfNeeded: id), path: path))
    }

    /// Notes that some routes were cleared: the next settle drops the entries `isLive` rejects.
    package mutating func noteRemovals() {
        hasRemovals = true
    }

    /// Sorts what was appended since the last call into the index and drops cleared routes.
    package mutating func settle(isLive: (Int) -> Bool) {
        if hasRemovals {
            sorted.removeAll { !isLive(Int($0.id)) }
            tail.removeAll { !isLive(Int($0.id)) }
            hasRemovals = false
        }
        guard !tail.isEmpty else { return }
        tail.sort(by: Self.precedes)
        if sorted.isEmpty {
            swap(&sorted, &tail)
            return
        }
        var merged: [Entry] = []
        merged.reserveCapacity(sorted.count + tail.count)
        var left = 0
        var right = 0
        while left < sorted.count, right < tail.count {
            if Self.precedes(tail[right], sorted[left]) {
                merged.append(tail[right])
                right += 1
            } else {
                merged.append(sorted[left])
                left += 1
            }
        }
        merged.append(contentsOf: sorted[left...])
        merged.append(contentsOf: tail[right...])
        sorted = merged
        tail.removeAll()
    }

    /// Up to `count` live routes under `key` whose path text shares the longest prefix with
    /// `path`, longest first. Call ``settle(isLive:)`` first: routes still in the tail are not seen.
    package func nearest(to path: String, key: Int, count: Int, isLive: (Int) -> Bool) -> [Int] {
        let key = Int32(truncatingIfNeeded: key)
        var high = lowerBound(key: key, path: path)
        var low = high - 1
        var found: [Int] = []
        while found.count < count {
            let lowShares = low >= 0 && sorted[low].key == key ? Self.sharedPrefix(sorted[low].path, path) : -1
            let highShares = high < sorted.count && sorted[high].key == key ? Self.sharedPrefix(sorted[high].path, path) : -1
            guard lowShares >= 0 || highShares >= 0 else { break }
            let position: Int
            if highShares >= lowShares {
                position = high
                high += 1
            } else {
                position = low
                low -= 1
            }
            let id = Int(sorted[position].id)
            if isLive(id) { found.append(id) }
        }
        return found
    }

    /// The first position whose entry does not precede (`key`, `path`).
    private func lowerBound(key: Int32, path: String) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            let entry = sorted[middle]
            if entry.key < key || entry.key == key && Self.compare(entry.path, path) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    private static func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        if lhs.key != rhs.key { return lhs.key < rhs.key }
        let order = compare(lhs.path, rhs.path)
        return order != 0 ? order < 0 : lhs.id < rhs.id
    }

    /// Byte-wise order of two texts: negative, zero or positive.
    private static func compare(_ lhs: String, _ rhs: String) -> Int {
        let left = lhs.utf8
        let right = rhs.utf8
        let order = left.withContiguousStorageIfAvailable { leftBytes in
            right.withContiguousStorageIfAvailable { rightBytes in
                compare(leftBytes, rightBytes)
            }
        }
        if let order = order.flatMap({ $0 }) { return order }
        return compare(Array(left), Array(right))
    }

    private static func compare<Bytes: RandomAccessCollection<UInt8>>(_ lhs: Bytes, _ rhs: Bytes) -> Int where Bytes.Index == Int {
        let shared = min(lhs.count, rhs.count)
        for offset in 0..<shared {
            let left = lhs[lhs.startIndex + offset]
            let right = rhs[rhs.startIndex + offset]
            if left != right { return left < right ? -1 : 1 }
        }
        return lhs.count - rhs.count
    }

    /// How many leading bytes two texts share.
    package static func sharedPrefix(_ lhs: String, _ rhs: String) -> Int {
        // Over the bytes in place: a `zip` of the two UTF-8 views cost an unmatched request
        // several microseconds under the registry's lock.
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let shared = min(left.count, right.count)
                var offset = 0
                while offset < shared, left[offset] == right[offset] { offset += 1 }
                return offset
            }
        }
    }
}
