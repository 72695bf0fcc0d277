/// Secret names, normalized (``normalize(_:)``), looked up from text or from raw bytes
/// (a JSON key, a form field) without building a string for names that cannot be in the set.
package struct NameSet {
    package let names: Set<String>
    /// The UTF-8 length of the longest name.
    private let longest: Int

    package init(_ names: some Sequence<String>) {
        self.names = Set(names.map(Self.normalize))
        longest = self.names.map(\.utf8.count).max() ?? 0
    }

    /// A name as compared: lowercased, without `_`, `-`, `.` and spaces (`accessToken`,
    /// `access_token` and `Access-Token` are all `accesstoken`).
    package static func normalize(_ name: some StringProtocol) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != "." && $0 != " " })
    }

    package func union(_ other: NameSet) -> NameSet { NameSet(names.union(other.names)) }

    package func contains(_ name: some StringProtocol) -> Bool {
        !names.isEmpty && names.contains(Self.normalize(name))
    }

    /// Whether the name in `bytes[range]` (UTF-8) is in the set.
    package func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard !names.isEmpty else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longest) { buffer in
            var count = 0
            for index in range {
                let byte = bytes[index]
                if byte >= 0x80 {
                    return names.contains(Self.normalize(String(decoding: bytes[range], as: UTF8.self)))
                }
                if byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: " ") { continue }
                // Lowercasing other characters never shortens a name: this one is too long already.
                guard count < longest else { return false }
                buffer[count] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                count += 1
            }
            return names.contains(String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self))
        }
    }
}
