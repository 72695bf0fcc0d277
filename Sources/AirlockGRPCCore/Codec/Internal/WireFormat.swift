/// Protobuf's wire types.
enum WireType: UInt8 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5

    var name: String {
        switch self {
        case .varint: "varint"
        case .fixed64: "64-bit"
        case .lengthDelimited: "length-delimited"
        case .startGroup: "start-group"
        case .endGroup: "end-group"
        case .fixed32: "32-bit"
        }
    }
}

/// Reads protobuf's wire format from a range of a byte array, checking every length against the
/// end of its range: a hostile input gives an error, never a read past the end.
struct WireReader {
    let bytes: [UInt8]
    private(set) var index: Int
    let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        index = start
        self.end = end ?? bytes.count
    }

    var isAtEnd: Bool { index >= end }

    mutating func varint() throws(WireProblem) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < end else { throw .truncated("a varint") }
            let byte = bytes[index]
            index += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            guard shift < 70 else { throw .malformed("a varint longer than 10 bytes") }
        }
    }

    mutating func fixed32() throws(WireProblem) -> UInt32 {
        guard end - index >= 4 else { throw .truncated("a 32-bit value") }
        var value: UInt32 = 0
        for offset in 0..<4 { value |= UInt32(bytes[index + offset]) << (8 * offset) }
        index += 4
        return value
    }

    mutating func fixed64() throws(WireProblem) -> UInt64 {
        guard end - index >= 8 else { throw .truncated("a 64-bit value") }
        var value: UInt64 = 0
        for offset in 0..<8 { value |= UInt64(bytes[index + offset]) << (8 * offset) }
        index += 8
        return value
    }

    /// A length-delimited value's range.
    mutating func lengthDelimited() throws(WireProblem) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(end - index) else {
            throw .malformed("a length of \(length) bytes past the end of its message (\(end - index) left)")
        }
        let start = index
        index += Int(length)
        return start..<index
    }

    /// A tag: field number and wire type.
    mutating func tag() throws(WireProblem) -> (number: Int32, type: WireType) {
        let tag = try varint()
        let number = tag >> 3
        guard number >= 1, number <= 536_870_911 else { throw .malformed("a tag with field number \(number)") }
        guard let type = WireType(rawValue: UInt8(tag & 7)) else { throw .malformed("a tag with wire type \(tag & 7)") }
        return (Int32(number), type)
    }

    /// Skips a value of this wire type (a group with everything inside it, bounded in depth).
    mutating func skip(_ type: WireType, number: Int32, depth: Int = 0) throws(WireProblem) {
        switch type {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .fixed32: _ = try fixed32()
        case .lengthDelimited: _ = try lengthDelimited()
        case .endGroup: throw .malformed("an end-group tag (field \(number)) with no group open")
        case .startGroup:
            guard depth < MessageCodec.maximumDepth else { throw .malformed("groups nested deeper than \(MessageCodec.maximumDepth) levels") }
            while true {
                guard !isAtEnd else { throw .truncated("a group (field \(number)) with no end") }
                let inner = try tag()
                if inner.type == .endGroup {
                    guard inner.number == number else { throw .malformed("group \(number) ended by an end-group tag of field \(inner.number)") }
                    return
                }
                try skip(inner.type, number: inner.number, depth: depth + 1)
            }
        }
    }
}

/// What the wire reader found wrong, before the codec adds the field path.
enum WireProblem: Error {
    case truncated(String)
    case malformed(String)

    var text: String {
        switch self {
        case .truncated(let what): "the message ends inside \(what) (truncated)"
        case .malformed(let what): "malformed protobuf: \(what)"
        }
    }
}

/// Writes protobuf's wire format.
struct WireWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func tag(_ number: Int32, _ type: WireType) {
        varint(UInt64(number) << 3 | UInt64(type.rawValue))
    }

    mutating func fixed32(_ value: UInt32) {
        for offset in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * offset))) }
    }

    mutating func fixed64(_ value: UInt64) {
        for offset in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * offset))) }
    }

    mutating func lengthDelimited(_ payload: [UInt8]) {
        varint(UInt64(payload.count))
        bytes += payload
    }
}
