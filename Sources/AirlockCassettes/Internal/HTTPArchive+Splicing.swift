import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation

extension HTTPArchive {
    /// Why a file cannot be spliced: where its `log.entries` are not as read before.
    struct SpliceError: Error, CustomStringConvertible {
        let description: String
    }

    /// The file with the entries at these positions of `log.entries` replaced by new ones, and
    /// every other byte as it was: each new entry is written as ``data(redaction:)`` writes one,
    /// indented as the entry it replaces.
    static func splicing(_ original: Data, replacing replacements: [Int: RecordedRequest]) throws(SpliceError) -> Data {
        let bytes = [UInt8](original)
        var scanner = EntrySpans(bytes)
        let spans = try scanner.entries()
        var result = Data()
        var copied = 0
        for (position, span) in spans.enumerated() {
            guard let replacement = replacements[position] else { continue }
            result.append(contentsOf: bytes[copied..<span.lowerBound])
            // The indentation of the line the entry starts on.
            var lineStart = span.lowerBound
            while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
            let indent = bytes[lineStart..<span.lowerBound].allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                ? Array(bytes[lineStart..<span.lowerBound]) : []
            let entry = [UInt8]((try? encoder.encode(entry(replacement, redaction: .none))) ?? Data("{}".utf8))
            for (offset, byte) in entry.enumerated() {
                result.append(byte)
                // Every line takes the indentation but an empty one (an empty container's inside).
                if byte == UInt8(ascii: "\n"), offset + 1 < entry.count, entry[offset + 1] != UInt8(ascii: "\n") { result.append(contentsOf: indent) }
            }
            copied = span.upperBound
        }
        if let missing = replacements.keys.first(where: { $0 >= spans.count }) {
            throw SpliceError(description: "has no log.entries[\(missing)] (it holds \(spans.count) entries)")
        }
        result.append(contentsOf: bytes[copied...])
        return result
    }
}

extension HTTPArchive {
    /// The file with `log._verifiedAt` set to `date`, and every other byte as it was: the value
    /// replaced where the member is, else the member added before the first member of `log`
    /// that sorts after it (as ``data(redaction:)`` orders them), on a line of its own.
    static func stamping(_ original: Data, verifiedAt date: Date) throws(SpliceError) -> Data {
        let bytes = [UInt8](original)
        var scanner = EntrySpans(bytes)
        let members = try scanner.logMembers()
        let value = Array("\"\(HARFormat.string(from: date))\"".utf8)
        var result = bytes
        if let existing = members.first(where: { $0.name == "_verifiedAt" }) {
            result.replaceSubrange(existing.value, with: value)
        } else {
            guard let next = members.first(where: { $0.name > "_verifiedAt" }) ?? members.first else {
                throw SpliceError(description: "has an empty log object")
            }
            var lineStart = next.key.lowerBound
            while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
            let before = bytes[lineStart..<next.key.lowerBound]
            let separator: [UInt8] = before.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) ? [UInt8(ascii: "\n")] + before : [UInt8(ascii: " ")]
            result.insert(contentsOf: Array("\"_verifiedAt\" : ".utf8) + value + [UInt8(ascii: ",")] + separator, at: next.key.lowerBound)
        }
        return Data(result)
    }
}

/// Finds where each element of `log.entries` starts and ends in a JSON document's bytes, without
/// building values: strings (escapes included) are skipped, brackets counted.
private struct EntrySpans {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func entries() throws(HTTPArchive.SpliceError) -> [Range<Int>] {
        skipSpace()
        guard let log = try member("log", ofObjectAt: position) else { throw .init(description: "has no log object") }
        guard let entries = try member("entries", ofObjectAt: log) else { throw .init(description: "has no log.entries") }
        position = entries
        try expect(UInt8(ascii: "["))
        var spans: [Range<Int>] = []
        skipSpace()
        if peek == UInt8(ascii: "]") { return spans }
        while true {
            skipSpace()
            let start = position
            try skipValue()
            spans.append(start..<position)
            skipSpace()
            if peek == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return spans
        }
    }

    /// Each member of the `log` object: its name, where its key starts and ends, and where its
    /// value does.
    mutating func logMembers() throws(HTTPArchive.SpliceError) -> [(name: String, key: Range<Int>, value: Range<Int>)] {
        skipSpace()
        guard let log = try member("log", ofObjectAt: position) else { throw .init(description: "has no log object") }
        return try members(ofObjectAt: log)
    }

    /// The offset of the value of member `name` of the object starting at `offset`.
    private mutating func member(_ name: String, ofObjectAt offset: Int) throws(HTTPArchive.SpliceError) -> Int? {
        try members(ofObjectAt: offset).first { $0.name == name }?.value.lowerBound
    }

    /// Each member of the object starting at `offset`: its name, where its key starts and ends,
    /// and where its value does.
    private mutating func members(ofObjectAt offset: Int) throws(HTTPArchive.SpliceError) -> [(name: String, key: Range<Int>, value: Range<Int>)] {
        position = offset
        try expect(UInt8(ascii: "{"))
        var members: [(name: String, key: Range<Int>, value: Range<Int>)] = []
        skipSpace()
        if peek == UInt8(ascii: "}") { return members }
        while true {
            skipSpace()
            let keyStart = position
            try skipString()
            let key = keyStart..<position
            let name: String = if case .string(let text)? = try? JSONValue.parse(Data(bytes[key])) { text } else { "" }
            skipSpace()
            try expect(UInt8(ascii: ":"))
            skipSpace()
            let valueStart = position
            try skipValue()
            members.append((name, key, valueStart..<position))
            skipSpace()
            if peek == UInt8(ascii: ",") {
                position += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return members
        }
    }

    private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(HTTPArchive.SpliceError) {
        guard peek == byte else { throw .init(description: "is not the JSON it was (expected \"\(Character(Unicode.Scalar(byte)))\" at byte \(position))") }
        position += 1
    }

    private mutating func skipString() throws(HTTPArchive.SpliceError) {
        try expect(UInt8(ascii: "\""))
        while let byte = peek {
            position += 1
            if byte == UInt8(ascii: "\\") {
                position += 1
            } else if byte == UInt8(ascii: "\"") {
                return
            }
        }
        throw .init(description: "has a string that does not end")
    }

    /// Skips one value, nested ones included (counted, not recursed: depth costs nothing).
    private mutating func skipValue() throws(HTTPArchive.SpliceError) {
        var depth = 0
        repeat {
            skipSpace()
            guard let byte = peek else { throw .init(description: "ends inside a value") }
            switch byte {
            case UInt8(ascii: "\""): try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                position += 1
            default:
                // A scalar, a comma or a colon inside a container.
                position += 1
                while let next = peek, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\""), 0x20, 0x0A, 0x0D, 0x09].contains(next),
                    byte != UInt8(ascii: ","), byte != UInt8(ascii: ":")
                {
                    position += 1
                }
            }
        } while depth > 0
    }
}
