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
}

extension String {
    fileprivate func equalsIgnoringCase(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
