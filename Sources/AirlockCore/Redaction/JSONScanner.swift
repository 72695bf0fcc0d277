import AirlockBase

/// A JSON text read where it lies, without building values: it says where each string value and
/// each value under a secret key is, as byte ranges, so that a redaction can rewrite those bytes
/// and copy everything else (key order, white space, number spelling, escapes) as it was.
///
/// Reads one document, or several separated by white space (NDJSON), after an optional UTF-8
/// byte-order mark. Iterative: nesting depth costs heap, not stack.
enum JSONScanner {
    enum Found {
        /// The content (between the quotes) of a string value whose key is secret.
        case secretString(Range<Int>)
        /// A number, boolean, object or array whose key is secret, whole.
        case secretValue(Range<Int>)
        /// The content of another string value: not a key, not inside a secret value.
        case string(Range<Int>, escaped: Bool)
    }

    private struct Frame {
        let isObject: Bool
        /// Where the container starts when its key is secret, else -1.
        let secretStart: Int
    }

    private enum State {
        case value
        case afterValue
    }

    /// Reads `bytes`, reporting what it finds in order.
    /// - Parameters:
    ///   - isSecretKey: Whether the key with this content (between its quotes) is secret; `escaped`
    ///     says whether the content holds escapes (decode it with ``decode(_:_:)``).
    ///   - found: Called for each string value and each value under a secret key.
    /// - Returns: Whether the bytes are JSON; when not, some values may have been reported already.
    static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>,
        isSecretKey: (_ content: Range<Int>, _ escaped: Bool) -> Bool,
        found: (Found) -> Void
    ) -> Bool {
        let count = bytes.count
        var index = hasByteOrderMark(bytes) ? 3 : 0
        var frames: [Frame] = []
        /// The index in `frames` of the outermost secret container, or -1.
        var secretFrame = -1
        var pendingSecret = false
        var state = State.value

        func skipSpaces() {
            while index < count, RedactionBytes.isJSONSpace(bytes[index]) { index += 1 }
        }

        /// A key and its colon, at `index`; sets `pendingSecret`.
        func key() -> Bool {
            guard index < count, bytes[index] == UInt8(ascii: "\""), let (end, escaped) = string(bytes, at: index) else { return false }
            pendingSecret = secretFrame < 0 && isSecretKey(index + 1..<end - 1, escaped)
            index = end
            skipSpaces()
            guard index < count, bytes[index] == UInt8(ascii: ":") else { return false }
            index += 1
            return true
        }

        func close() {
            let frame = frames.removeLast()
            if frame.secretStart >= 0 {
                found(.secretValue(frame.secretStart..<index))
            }
            if secretFrame == frames.count { secretFrame = -1 }
        }

        while true {
            skipSpaces()
            switch state {
            case .value:
                guard index < count else { return false }
                let start = index
                let byte = bytes[index]
                if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    let isObject = byte == UInt8(ascii: "{")
                    frames.append(Frame(isObject: isObject, secretStart: pendingSecret ? start : -1))
                    if pendingSecret { secretFrame = frames.count - 1 }
                    pendingSecret = false
                    index += 1
                    skipSpaces()
                    guard index < count else { return false }
                    if bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        index += 1
                        close()
                        state = .afterValue
                    } else if isObject {
                        guard key() else { return false }
                    }
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    guard let (end, escaped) = string(bytes, at: index) else { return false }
                    index = end
                    if pendingSecret {
                        found(.secretString(start + 1..<end - 1))
                    } else if secretFrame < 0 {
                        found(.string(start + 1..<end - 1, escaped: escaped))
                    }
                } else if byte == UInt8(ascii: "n") {
                    guard literal("null", bytes, at: index) else { return false }
                    index += 4
                } else if byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") {
                    let word = byte == UInt8(ascii: "t") ? "true" : "false"
                    guard literal(word, bytes, at: index) else { return false }
                    index += word.utf8.count
                    if pendingSecret { found(.secretValue(start..<index)) }
                } else {
                    guard let end = number(bytes, at: index) else { return false }
                    index = end
                    if pendingSecret { found(.secretValue(start..<index)) }
                }
                pendingSecret = false
                state = .afterValue
            case .afterValue:
                guard let top = frames.last else {
                    // A document ended: the text ends too, or another one follows (NDJSON).
                    if index == count { return true }
                    state = .value
                    continue
                }
                guard index < count else { return false }
                let byte = bytes[index]
                if byte == UInt8(ascii: ",") {
                    index += 1
                    if top.isObject {
                        skipSpaces()
                        guard key() else { return false }
                    }
                    state = .value
                } else if byte == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    close()
                } else {
                    return false
                }
            }
        }
    }

    static func hasByteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// The end (after the closing quote) of the string whose opening quote is at `start`, and
    /// whether it holds escapes; `nil` when it is not a valid JSON string.
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (end: Int, escaped: Bool)? {
        var index = start + 1
        var escaped = false
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (index + 1, escaped) }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                guard index + 1 < count else { return nil }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 6 <= count, (index + 2..<index + 6).allSatisfy({ hexValue(bytes[$0]) != nil }) else { return nil }
                    index += 6
                default:
                    return nil
                }
                continue
            }
            guard byte >= 0x20 else { return nil }
            index += 1
        }
        return nil
    }

    private static func literal(_ word: String, _ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        let word = word.utf8
        guard start + word.count <= bytes.count else { return false }
        return bytes[start..<start + word.count].elementsEqual(word)
    }

    /// The end of the number at `start` (RFC 8259 grammar), or `nil`.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var index = start
        let count = bytes.count
        func digits() -> Bool {
            let first = index
            while index < count, RedactionBytes.isDigit(bytes[index]) { index += 1 }
            return index > first
        }
        if index < count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() else { return nil }
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
        }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return nil }
        }
        return index
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: Decoding

    /// A string's content (between its quotes, valid JSON) decoded to UTF-8, with, for each decoded
    /// byte, where the escape or character it comes from starts in `bytes` (and one more entry:
    /// the content's end), so that a range found in the decoded text maps back to raw bytes.
    struct Decoded {
        var bytes: [UInt8] = []
        var starts: [Int] = []

        /// The raw range a decoded range comes from.
        func raw(_ range: Range<Int>) -> Range<Int> { starts[range.lowerBound]..<starts[range.upperBound] }
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ content: Range<Int>) -> Decoded {
        var decoded = Decoded()
        decoded.bytes.reserveCapacity(content.count)
        decoded.starts.reserveCapacity(content.count + 1)
        var index = content.lowerBound
        func append(_ scalar: UInt32, from start: Int) {
            let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            for byte in UTF8.encode(character)! {
                decoded.bytes.append(byte)
                decoded.starts.append(start)
            }
        }
        func unit(at position: Int) -> UInt32? {
            guard position + 6 <= content.upperBound, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else { return nil }
            var value: UInt32 = 0
            for offset in 2..<6 {
                guard let digit = hexValue(bytes[position + offset]) else { return nil }
                value = value << 4 | digit
            }
            return value
        }
        while index < content.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < content.upperBound else {
                decoded.bytes.append(byte)
                decoded.starts.append(index)
                index += 1
                continue
            }
            let start = index
            switch bytes[index + 1] {
            case UInt8(ascii: "b"): append(0x08, from: start)
            case UInt8(ascii: "f"): append(0x0C, from: start)
            case UInt8(ascii: "n"): append(0x0A, from: start)
            case UInt8(ascii: "r"): append(0x0D, from: start)
            case UInt8(ascii: "t"): append(0x09, from: start)
            case UInt8(ascii: "u"):
                guard let first = unit(at: index) else {
                    append(UInt32(bytes[index + 1]), from: start)
                    break
                }
                if (0xD800..<0xDC00).contains(first), let second = unit(at: index + 6), (0xDC00..<0xE000).contains(second) {
                    append(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), from: start)
                    index += 6
                } else {
                    append(first, from: start)
                }
                index += 4
            default: append(UInt32(bytes[index + 1]), from: start)
            }
            index += 2
        }
        decoded.starts.append(content.upperBound)
        return decoded
    }
}
