/// Where and why a JSON document does not parse.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offset of the byte at fault from the start of the data (a byte-order mark counts).
    package let offset: Int
    /// The line of that byte, from 1; lines end at `\n`.
    package let line: Int
    /// Its column, from 1, in characters (Unicode scalars) after the last `\n` (a byte-order
    /// mark does not count).
    package let column: Int
    /// What is wrong: `found 'n' where a member name in double quotes should start`.
    package let problem: String

    /// `line 3, column 25 (byte 39): found 'n' where …`
    package var description: String { "line \(line), column \(column) (byte \(offset)): \(problem)" }
}

/// A JSON reader over UTF-8 bytes that builds ``JSONValue``s. Iterative: nesting costs heap,
/// not stack, and stops at ``JSONValue/maximumDepth``.
package struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let start: Int
    /// With a value: the text of each integer literal of more than 15 characters, by the path of
    /// its value (member names and array indices), which ``JSONValue/parseKeepingLongIntegers(_:)``
    /// returns.
    package var longIntegers: [[String]: String]?
    /// With a value: the text of each number literal that the writer would spell otherwise
    /// (`1.50`, `1e3`, `-0`, more than 15 characters), by the path of its value, which
    /// ``JSONValue/parseKeepingNumberText(_:)`` returns.
    package var numberTexts: [[String]: String]?

    /// An array or object being read.
    private struct Container {
        var items: [JSONValue] = []
        var members = JSONMembers()
        /// The key whose value is being read; `nil` for an array.
        var key: String?
    }

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        index = start
    }

    /// The one value the bytes hold, with nothing but white space after it.
    package mutating func document() throws(JSONParseError) -> JSONValue {
        var open: [Container] = []
        var value: JSONValue
        values: while true {
            // A value starts here: a scalar, or an array or object to open.
            skipSpaces()
            guard index < bytes.count else {
                throw failure(open.isEmpty ? "the document is empty; expected a JSON value" : "the document ends where a value should start")
            }
            switch bytes[index] {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                let isObject = bytes[index] == UInt8(ascii: "{")
                guard open.count < JSONValue.maximumDepth else {
                    throw failure("arrays and objects nest deeper than \(JSONValue.maximumDepth) levels")
                }
                index += 1
                skipSpaces()
                if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object(JSONMembers()) : .array([])
                } else {
                    open.append(Container(key: isObject ? try memberName() : nil))
                    continue values
                }
            case UInt8(ascii: "\""):
                value = .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let numberStart = index
                value = .number(try number())
                if longIntegers != nil || numberTexts != nil {
                    let literal = UnsafeBufferPointer(rebasing: bytes[numberStart..<index])
                    let isInteger = !literal.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
                    if longIntegers != nil, isInteger, literal.count > 15 {
                        longIntegers?[open.map { $0.key ?? String($0.items.count) }] = String(decoding: literal, as: UTF8.self)
                    }
                    // An integer of up to 15 characters other than -0 is written as it is read. (Set
                    // or cleared: a key given again keeps its last value, and that value's text.)
                    if numberTexts != nil {
                        let keepsText = !isInteger || literal.count > 15 || literal.elementsEqual("-0".utf8)
                        numberTexts?[open.map { $0.key ?? String($0.items.count) }] = keepsText ? String(decoding: literal, as: UTF8.self) : nil
                    }
                }
            case UInt8(ascii: "]") where open.last.map { $0.key == nil } == true:
                // In an array, a value is read after `[` (`[]` is read above) or after a comma.
                throw failure("found \(found) after a comma; JSON allows no trailing comma")
            default:
                throw failure("found \(found) where a value should start")
            }
            // The value is whole: add it to the containers it closes, up to one that goes on.
            while true {
                guard !open.isEmpty else {
                    skipSpaces()
                    guard index == bytes.count else { throw failure("found \(found) after the document's value") }
                    return value
                }
                let last = open.count - 1
                let isObject = open[last].key != nil
                if let key = open[last].key {
                    open[last].members[key] = value
                } else {
                    open[last].items.append(value)
                }
                skipSpaces()
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    if isObject { open[last].key = try memberName() }
                    continue values
                } else if index < bytes.count, bytes[index] == close {
                    index += 1
                    let container = open.removeLast()
                    value = isObject ? .object(container.members) : .array(container.items)
                } else {
                    throw failure("found \(found) where ',' or '\(Character(Unicode.Scalar(close)))' should follow \(isObject ? "a member" : "an element")")
                }
            }
        }
    }

    // MARK: Pieces

    private mutating func skipSpaces() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// `"name":` — a member's name and its colon.
    private mutating func memberName() throws(JSONParseError) -> String {
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                throw failure("found \(found) after a comma; JSON allows no trailing comma")
            }
            throw failure("found \(found) where a member name in double quotes should start")
        }
        let name = try string()
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
            throw failure("found \(found) where ':' should follow the member name")
        }
        index += 1
        return name
    }

    /// `true`, `false` or `null`.
    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let length = word.utf8CodeUnitCount
        let matches = index + length <= bytes.count && (0..<length).allSatisfy { bytes[index + $0] == word.utf8Start[$0] }
        guard matches else { throw failure("found \(found) where a value should start (did you mean \(word)?)") }
        index += length
    }

    /// A string's content, at its opening quote.
    private mutating func string() throws(JSONParseError) -> String {
        index += 1
        let contentStart = index
        // Most strings have no escapes: their bytes are their content.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: bytes[contentStart..<index])
                index += 1
                return String(decoding: content, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                return try escapedString(from: contentStart)
            } else if byte < 0x20 {
                throw failure("found \(found) in a string; control characters must be escaped (\\n, \\t, \\u00XX)")
            } else if byte < 0x80 {
                index += 1
            } else {
                index += try utf8Sequence()
            }
        }
        throw unterminated(contentStart)
    }

    /// The rest of a string with escapes, from its content's start; `index` is at the first `\`.
    private mutating func escapedString(from contentStart: Int) throws(JSONParseError) -> String {
        var content = Array(bytes[contentStart..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: content, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                try escape(into: &content)
            } else if byte < 0x20 {
                throw failure("found \(found) in a string; control characters must be escaped (\\n, \\t, \\u00XX)")
            } else if byte < 0x80 {
                content.append(byte)
                index += 1
            } else {
                let length = try utf8Sequence()
                content.append(contentsOf: bytes[index..<index + length])
                index += length
            }
        }
        throw unterminated(contentStart)
    }

    private mutating func unterminated(_ contentStart: Int) -> JSONParseError {
        index = contentStart - 1
        return failure("the string that starts here has no closing quote")
    }

    /// One escape, at its `\`, appended as UTF-8.
    private mutating func escape(into content: inout [UInt8]) throws(JSONParseError) {
        guard index + 1 < bytes.count else {
            index += 1
            throw failure("the document ends inside an escape")
        }
        let simple: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            let scalar = try unicodeEscape()
            content.append(contentsOf: UTF8.encode(scalar)!)
            return
        default:
            index += 1
            throw failure("found \(found) after a backslash; the escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
        content.append(simple)
        index += 2
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`, at its `\`.
    private mutating func unicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let first = try hexQuad(at: index + 2)
        switch first {
        case 0xD800...0xDBFF:
            var low: UInt32?
            if index + 7 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"), bytes[index + 7] == UInt8(ascii: "u") {
                low = try hexQuad(at: index + 8)
            }
            guard let low, (0xDC00...0xDFFF).contains(low) else {
                throw failure("the escape \\u\(hex(first)) is a high surrogate without a low one (\\uDC00–\\uDFFF) after it")
            }
            index += 12
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00))!
        case 0xDC00...0xDFFF:
            throw failure("the escape \\u\(hex(first)) is a low surrogate without a high one before it")
        default:
            index += 6
            return Unicode.Scalar(first)!
        }
    }

    /// Four hex digits at `position`, or an error at the escape.
    private func hexQuad(at position: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 {
            let digit: UInt32
            switch position + offset < bytes.count ? bytes[position + offset] : 0 {
            case let byte where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case let byte where byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case let byte where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default:
                throw failure(at: position - 2, "a \\u escape needs four hex digits")
            }
            value = value << 4 | digit
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence at `index` (a byte of 0x80 or more).
    private func utf8Sequence() throws(JSONParseError) -> Int {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F  // not the surrogates U+D800–U+DFFF
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F  // not beyond U+10FFFF
        default: throw failure("found byte 0x\(hex(UInt32(lead), width: 2)), which is not UTF-8")
        }
        for offset in 1..<length {
            let position = index + offset
            let byte = position < bytes.count ? bytes[position] : 0
            if offset == 1 ? !(lower...upper).contains(byte) : !(0x80...0xBF).contains(byte) {
                throw failure("found byte 0x\(hex(UInt32(lead), width: 2)) starting a sequence that is not UTF-8")
            }
        }
        return length
    }

    /// A number, read into the nearest `Double`.
    private mutating func number() throws(JSONParseError) -> Double {
        let numberStart = index
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        // The digits as an integer while it is exact, and how many of them are after the point.
        var significand: UInt64 = 0
        var digits = 0
        func digit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func take() {
            let value = UInt64(bytes[index] - UInt8(ascii: "0"))
            if significand != 0 || value != 0 { digits += 1 }
            if digits <= 19 { significand = significand &* 10 &+ value }
            index += 1
        }
        guard index < bytes.count, digit(bytes[index]) else {
            throw failure("found \(found) where a digit should follow '-'")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, digit(bytes[index]) {
                throw failure(at: index - 1, "a number starts with 0 followed by digits; JSON allows no leading zeros")
            }
        } else {
            while index < bytes.count, digit(bytes[index]) { take() }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, digit(bytes[index]) else {
                throw failure("found \(found) where a digit should follow the decimal point")
            }
            while index < bytes.count, digit(bytes[index]) {
                take()
                exponent -= 1
            }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var isExponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                isExponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, digit(bytes[index]) else {
                throw failure("found \(found) where a digit of the exponent should be")
            }
            var written = 0
            while index < bytes.count, digit(bytes[index]) {
                written = min(written * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1_000_000)
                index += 1
            }
            exponent += isExponentNegative ? -written : written
        }
        // Exact significand and a power of ten that is exact too: one correctly rounded operation.
        if digits <= 15, (-22...22).contains(exponent) {
            var value = Double(significand)
            if exponent < 0 { value /= Self.powersOfTen[-exponent] } else { value *= Self.powersOfTen[exponent] }
            return isNegative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[numberStart..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw failure(at: numberStart, "the number \(text) is beyond the range of a Double (±1.8e308)")
        }
        return value
    }

    private static let powersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }

    // MARK: Errors

    /// What is at `index`, for a message: `'n'`, `the end of the document`, `byte 0xFF`.
    private var found: String {
        guard index < bytes.count else { return "the end of the document" }
        let byte = bytes[index]
        switch byte {
        case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
        case 0x20: return "a space"
        case 0x0A: return "a line feed"
        case 0x09: return "a tab"
        case 0x0D: return "a carriage return"
        case 0x80...:
            if let length = try? utf8Sequence() {
                let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self)
                return "'\(scalar)' (U+\(hex(scalar.unicodeScalars.first!.value)))"
            }
            return "byte 0x\(hex(UInt32(byte), width: 2)), which is not UTF-8"
        default: return "the control character U+\(hex(UInt32(byte)))"
        }
    }

    private func failure(_ problem: String) -> JSONParseError {
        failure(at: index, problem)
    }

    private func failure(at offset: Int, _ problem: String) -> JSONParseError {
        var line = 1
        var lineStart = start
        for position in start..<min(offset, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        // Characters, not bytes: UTF-8 continuation bytes (10xxxxxx) do not start one.
        var column = 1
        for position in lineStart..<min(offset, bytes.count) where bytes[position] & 0xC0 != 0x80 {
            column += 1
        }
        return JSONParseError(offset: offset, line: line, column: column, problem: problem)
    }

    private func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
