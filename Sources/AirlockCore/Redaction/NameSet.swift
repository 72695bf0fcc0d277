/// Secret names, normalized (``Redaction/normalize(_:)``), looked up from text or from raw bytes
/// (a JSON key, a form field) without building a string for names that cannot be in the set.
struct NameSet {
    let names: Set<String>
    /// The UTF-8 length of the longest name.
    private let longest: Int

    init(_ names: some Sequence<String>) {
        self.names = Set(names.map(Redaction.normalize))
        longest = self.names.map(\.utf8.count).max() ?? 0
    }

    func union(_ other: NameSet) -> NameSet { NameSet(names.union(other.names)) }

    func contains(_ name: some StringProtocol) -> Bool {
        !names.isEmpty && names.contains(Redaction.normalize(name))
    }

    /// Whether the name in `bytes[range]` (UTF-8) is in the set.
    func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard !names.isEmpty else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longest) { buffer in
            var count = 0
            for index in range {
                let byte = bytes[index]
                if byte >= 0x80 {
                    return names.contains(Redaction.normalize(String(decoding: bytes[range], as: UTF8.self)))
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
