import Foundation

/// Rejects keys a stub file does not know — `"statusCode": 404` would otherwise be ignored and
/// serve 200 — naming the place and the nearest known key.
enum StrictKeys {
    static let topLevel: Set<String> = ["stubs"]
    static let stub: Set<String> = ["host", "path", "method", "query", "queryMatching", "responses", "scenarioName", "requiredScenarioState", "newScenarioState"]
    static let response: Set<String> = ["status", "headers", "body", "json", "file", "fault", "lifetime", "delay", "dribble", "template"]
    static let dribble: Set<String> = ["chunks", "seconds"]

    static func check(_ object: Any, source: String) throws(StubFileError) {
        if let stubs = object as? [Any] {
            try check(stubs: stubs, source: source)
        } else if let top = object as? [String: Any] {
            if top["stubs"] != nil {
                try check(keys: top, allowed: topLevel, at: "(top level)", what: "the top level", source: source)
                try check(stubs: top["stubs"] as? [Any] ?? [], source: source)
            } else if top["path"] != nil {
                try check(stub: top, at: "(top level)", source: source)
            } else {
                try check(keys: top, allowed: topLevel, at: "(top level)", what: "the top level", source: source)
            }
        }
    }

    private static func check(stubs: [Any], source: String) throws(StubFileError) {
        for (index, value) in stubs.enumerated() {
            guard let stub = value as? [String: Any] else { continue }
            try check(stub: stub, at: "stubs[\(index)]", source: source)
        }
    }

    private static func check(stub: [String: Any], at place: String, source: String) throws(StubFileError) {
        try check(keys: stub, allowed: Self.stub, at: place, what: "a stub", source: source)
        for (index, value) in (stub["responses"] as? [Any] ?? []).enumerated() {
            guard let response = value as? [String: Any] else { continue }
            let at = "\(place == "(top level)" ? "" : place + ".")responses[\(index)]"
            try check(keys: response, allowed: Self.response, at: at, what: "a response", source: source)
            if let dribble = response["dribble"] as? [String: Any] {
                try check(keys: dribble, allowed: Self.dribble, at: "\(at).dribble", what: "dribble", source: source)
            }
        }
    }

    private static func check(keys object: [String: Any], allowed: Set<String>, at place: String, what: String, source: String) throws(StubFileError) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            let location = place == "(top level)" ? key : "\(place).\(key)"
            let suggestion = nearest(key, in: allowed).map { "; did you mean \"\($0)\"?" } ?? ""
            throw StubFileError(
                file: source,
                location: location,
                problem: "is not a field of \(what)\(suggestion)",
                expected: "one of " + allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            )
        }
    }

    /// The known key closest to `key` (case-insensitive, at most a third of its letters apart).
    static func nearest(_ key: String, in candidates: Set<String>) -> String? {
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
