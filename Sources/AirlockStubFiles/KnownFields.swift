import AirlockBase
import AirlockCore
import Foundation

/// The nearest known field to a key a document does not know, for "did you mean" in errors.
package enum KnownFields {
    /// The known key closest to `key` (case-insensitive, at most a third of its letters apart).
    package static func nearest(_ key: String, in candidates: Set<String>) -> String? {
        let lowered = key.lowercased()
        if let same = candidates.first(where: { $0.lowercased() == lowered }) { return same }
        let scored = candidates.map { ($0, distance(lowered, $0.lowercased())) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let (best, score) = scored, score <= max(2, key.count / 3) else {
            // `statusCode` → `status`: a known key the given one starts with.
            return candidates.filter { lowered.hasPrefix($0.lowercased()) }.max { $0.count < $1.count }
        }
        return best
    }

    /// Levenshtein distance.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
