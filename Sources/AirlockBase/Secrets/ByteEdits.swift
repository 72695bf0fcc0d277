import Foundation

/// Replacements of byte ranges in one buffer, made in a single pass. Everything outside the
/// ranges is copied as it was; with no edit the input is returned itself.
package struct ByteEdits {
    package struct Edit {
        let range: Range<Int>
        let bytes: [UInt8]
    }

    package private(set) var edits: [Edit] = []

    package init() {}

    package var isEmpty: Bool { edits.isEmpty }

    package mutating func replace(_ range: Range<Int>, with bytes: [UInt8]) {
        edits.append(Edit(range: range, bytes: bytes))
    }

    package mutating func append(contentsOf other: ByteEdits) {
        edits += other.edits
    }

    /// The edits in order, overlapping ones merged into the first (whose text replaces them all),
    /// and those that would leave the bytes as they were dropped.
    package func resolved(in bytes: UnsafeBufferPointer<UInt8>) -> [Edit] {
        let sorted = edits.sorted { $0.range.lowerBound != $1.range.lowerBound ? $0.range.lowerBound < $1.range.lowerBound : $0.range.count > $1.range.count }
        var result: [Edit] = []
        result.reserveCapacity(sorted.count)
        for edit in sorted {
            if let last = result.last, edit.range.lowerBound < last.range.upperBound || edit.range.lowerBound == last.range.lowerBound {
                if edit.range.upperBound > last.range.upperBound {
                    result[result.count - 1] = Edit(range: last.range.lowerBound..<edit.range.upperBound, bytes: last.bytes)
                }
                continue
            }
            result.append(edit)
        }
        return result.filter { !$0.bytes.elementsEqual(bytes[$0.range]) }
    }

    /// `data` with the edits made; `data` itself when none changes a byte.
    package func applied(to data: Data) -> Data {
        guard !edits.isEmpty else { return data }
        return data.withUnsafeBytes { raw -> Data in
            let bytes = raw.bindMemory(to: UInt8.self)
            let edits = resolved(in: bytes)
            guard !edits.isEmpty else { return data }
            return Data(Self.splice(bytes, edits))
        }
    }

    /// `text` with the edits made (ranges are UTF-8 offsets).
    package func applied(to text: String) -> String {
        guard !edits.isEmpty else { return text }
        var text = text
        return text.withUTF8 { bytes in
            let edits = resolved(in: bytes)
            guard !edits.isEmpty else { return nil }
            return String(decoding: Self.splice(bytes, edits), as: UTF8.self)
        } ?? text
    }

    /// The pieces of one body, `parts` one after the other, with the edits (whose ranges are
    /// offsets in the joined body) made, so that the pieces joined are the joined body edited.
    /// A replaced range that spans a boundary puts its replacement in the piece where the range
    /// starts and drops the rest of the range from the pieces after; every piece stays, empty or
    /// not. Pieces no edit touches are returned themselves.
    package func applied(toParts parts: [Data]) -> [Data] {
        guard !edits.isEmpty else { return parts }
        var joined = Data(capacity: parts.reduce(0) { $0 + $1.count })
        for part in parts { joined.append(part) }
        return joined.withUnsafeBytes { raw -> [Data] in
            let bytes = raw.bindMemory(to: UInt8.self)
            let edits = resolved(in: bytes)
            guard !edits.isEmpty else { return parts }
            var result: [Data] = []
            result.reserveCapacity(parts.count)
            var start = 0
            var next = 0
            for (index, part) in parts.enumerated() {
                let end = start + part.count
                let isLast = index == parts.count - 1
                var output: [UInt8] = []
                var copied = start
                var touched = false
                // An edit that began in an earlier piece removes its bytes from this one.
                if next > 0, edits[next - 1].range.upperBound > start {
                    copied = min(edits[next - 1].range.upperBound, end)
                    touched = true
                }
                // The edits that start here (one at the very end of the body goes to the last piece).
                while next < edits.count, edits[next].range.lowerBound < end || (isLast && edits[next].range.lowerBound == end) {
                    let edit = edits[next]
                    output += bytes[copied..<edit.range.lowerBound]
                    output += edit.bytes
                    copied = min(edit.range.upperBound, end)
                    touched = true
                    next += 1
                }
                if touched {
                    output += bytes[copied..<end]
                    result.append(Data(output))
                } else {
                    result.append(part)
                }
                start = end
            }
            return result
        }
    }

    private static func splice(_ bytes: UnsafeBufferPointer<UInt8>, _ edits: [Edit]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + edits.reduce(0) { $0 + max(0, $1.bytes.count - $1.range.count) })
        var copied = 0
        for edit in edits {
            output += bytes[copied..<edit.range.lowerBound]
            output += edit.bytes
            copied = edit.range.upperBound
        }
        output += bytes[copied...]
        return output
    }
}

/// Byte classes the redaction passes share.
package enum RedactionBytes {
    /// ASCII letters, digits, `_` and `-`: the characters a token is made of. A secret value is
    /// replaced only where the bytes around it are not of this kind.
    @inline(__always)
    package static func isWord(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    @inline(__always)
    package static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    @inline(__always)
    package static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    @inline(__always)
    package static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The byte length of the white-space character at `index` (as `Character.isWhitespace`
    /// reads it), or 0 when it is something else.
    package static func whitespaceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let byte = bytes[index]
        if byte < 0x80 { return byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) ? 1 : 0 }
        let count = bytes.count - index
        switch byte {
        case 0xC2 where count >= 2: return bytes[index + 1] == 0x85 || bytes[index + 1] == 0xA0 ? 2 : 0
        case 0xE1 where count >= 3: return bytes[index + 1] == 0x9A && bytes[index + 2] == 0x80 ? 3 : 0
        case 0xE2 where count >= 3:
            let second = bytes[index + 1], third = bytes[index + 2]
            if second == 0x80, third <= 0x8A || third == 0xA8 || third == 0xA9 || third == 0xAF { return 3 }
            return second == 0x81 && third == 0x9F ? 3 : 0
        case 0xE3 where count >= 3: return bytes[index + 1] == 0x80 && bytes[index + 2] == 0x80 ? 3 : 0
        default: return 0
        }
    }

    /// The byte length of the line break at `index` (as `Character.isNewline` reads it), or 0.
    package static func newlineLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let byte = bytes[index]
        if byte < 0x80 { return byte >= 0x0A && byte <= 0x0D ? 1 : 0 }
        let count = bytes.count - index
        if byte == 0xC2, count >= 2, bytes[index + 1] == 0x85 { return 2 }
        if byte == 0xE2, count >= 3, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 { return 3 }
        return 0
    }

    /// Whether the bytes are valid UTF-8 (no overlong forms, surrogates or scalars past U+10FFFF).
    package static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte < 0x80 {
                index += 1
                continue
            }
            let length: Int
            let minimum: UInt32
            var scalar: UInt32
            switch byte {
            case 0xC2...0xDF: (length, minimum, scalar) = (2, 0x80, UInt32(byte & 0x1F))
            case 0xE0...0xEF: (length, minimum, scalar) = (3, 0x800, UInt32(byte & 0x0F))
            case 0xF0...0xF4: (length, minimum, scalar) = (4, 0x10000, UInt32(byte & 0x07))
            default: return false
            }
            guard index + length <= count else { return false }
            for offset in 1..<length {
                let next = bytes[index + offset]
                guard next & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | UInt32(next & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return false }
            index += length
        }
        return true
    }

    /// `text` escaped for the inside of a JSON string.
    package static func jsonEscaped(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        return output
    }
}
