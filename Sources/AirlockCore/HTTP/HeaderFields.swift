import AirlockBase
import Foundation
import HTTPTypes

/// Header dictionaries merged the way HTTP reads them: names compare case-insensitively and the
/// later value (and spelling) wins.
package enum HeaderFields {
    /// `base` with every field of `overrides` laid over it.
    package static func merging(_ base: [String: String], with overrides: [String: String]) -> [String: String] {
        guard !base.isEmpty else { return overrides }
        guard !overrides.isEmpty else { return base }
        var merged = base
        for (name, value) in overrides {
            if merged[name] == nil, let existing = merged.keys.first(where: { $0.equalsIgnoringCase(name) }) {
                merged[existing] = nil
            }
            merged[name] = value
        }
        return merged
    }

    /// The value of the field called `name`, compared case-insensitively.
    package static func value(named name: String, in fields: [String: String]) -> String? {
        if let value = fields[name] { return value }
        return fields.first { $0.key.equalsIgnoringCase(name) }?.value
    }

    /// Content codings that leave the bytes as they are.
    package static func isIdentity(_ coding: String) -> Bool {
        let trimmed = coding.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty || trimmed == "identity"
    }
}

extension HTTPFields {
    /// The fields of a dictionary, sorted by name (a dictionary has no order of its own, and a
    /// stable one keeps files and messages stable). Names that are not RFC 9110 tokens are left
    /// out: registration rejects them before a response is served (``ResponseLimits``).
    package init(sortedDictionary dictionary: [String: String]) {
        self.init()
        reserveCapacity(dictionary.count)
        for (name, value) in dictionary.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            guard let fieldName = HTTPField.Name(name) else { continue }
            append(HTTPField(name: fieldName, value: value))
        }
    }

    /// Fields from name–value pairs, in order, repeated names kept. Names that are not tokens
    /// are left out.
    package init(pairs: some Sequence<(name: String, value: String)>) {
        self.init()
        for (name, value) in pairs {
            guard let fieldName = HTTPField.Name(name) else { continue }
            append(HTTPField(name: fieldName, value: value))
        }
    }

    /// The fields as a dictionary: repeated fields joined with `, ` (as `HTTPURLResponse` shows
    /// them), under the first spelling of the name.
    package var joinedDictionary: [String: String] {
        var dictionary: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in self {
            let canonical = field.name.canonicalName
            if let name = spelling[canonical] {
                dictionary[name, default: ""] += ", " + field.value
            } else {
                spelling[canonical] = field.name.rawName
                dictionary[field.name.rawName] = field.value
            }
        }
        return dictionary
    }

    /// The fields as a stub's headers (a dictionary) hold them: each name once, where it first
    /// occurs, under its first spelling, with a repeated name's values joined with `, `; the
    /// framing fields (`Content-Length`, `Transfer-Encoding`, `Connection`, `Keep-Alive`), which a
    /// stub's response gets anew, left out.
    package var joinedForAStub: [(name: String, value: String)] {
        var joined: [(name: String, value: String)] = []
        var positions: [String: Int] = [:]
        for field in self where !Self.framingNames.contains(field.name.canonicalName) {
            if let position = positions[field.name.canonicalName] {
                joined[position].value += ", " + field.value
            } else {
                positions[field.name.canonicalName] = joined.count
                joined.append((field.name.rawName, field.value))
            }
        }
        return joined
    }

    /// The fields that frame a message rather than describe it.
    private static let framingNames: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]

    /// The first value of the field called `name`, compared case-insensitively.
    package func first(named name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return self[fields: fieldName].first?.value
    }

    /// These fields without any whose name is in `names` (lowercased).
    package func removing(names: Set<String>) -> HTTPFields {
        guard contains(where: { names.contains($0.name.canonicalName) }) else { return self }
        return HTTPFields(filter { !names.contains($0.name.canonicalName) })
    }

    /// `base`'s fields whose names these fields do not have, followed by these fields: a
    /// response's own headers win over the ones it inherits.
    package func laid(over base: HTTPFields) -> HTTPFields {
        guard !base.isEmpty else { return self }
        let own = Set(map(\.name.canonicalName))
        var merged = HTTPFields(base.filter { !own.contains($0.name.canonicalName) })
        merged.append(contentsOf: self)
        return merged
    }

    /// The body's content coding, when it is not the identity (`gzip`, `br`, `gzip, br`).
    package var contentCoding: String? {
        let codings = self[values: .contentEncoding].filter { !HeaderFields.isIdentity($0) }
        return codings.isEmpty ? nil : codings.joined(separator: ", ")
    }
}

extension String {
    fileprivate func equalsIgnoringCase(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
