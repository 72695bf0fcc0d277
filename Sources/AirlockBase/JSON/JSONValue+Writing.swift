import Foundation

/// A value that JSON cannot write: a number that is infinite or not a number.
package struct JSONWriteError: Error, Sendable, CustomStringConvertible {
    /// Where the number is: `$.items[2].price`.
    package let path: String
    /// The number.
    package let number: Double

    package var description: String {
        "\(path) is \(number), which JSON cannot write; give a finite number"
    }
}

extension JSONValue {
    /// The value as compact JSON, members in document order, written as Jackson's default
    /// writer (WireMock's) writes the same tree: no white space; in strings `"` and `\` escaped,
    /// the control characters as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00XX` (upper-case hex), and
    /// everything else, `/` and non-ASCII included, as it is (UTF-8).
    ///
    /// Numbers as WireMock writes a `jsonBody` (Jackson reading floats as `BigDecimal`, trailing
    /// zeros stripped, written plain): the shortest digits that read back as the same `Double`,
    /// never with an exponent — `1`, `-3`, `0` for -0, `2` for `2.0`, `1.5`, `0.0001`,
    /// `1234567890.12`, `100000000000000000000` for `1e20`.
    ///
    /// Where WireMock can write otherwise, because a `Double` no longer knows how the number was
    /// spelled: a number with more significant digits than a `Double` holds (beyond 15 to 17) is
    /// written with the digits the `Double` keeps (`12345678901234567890` as
    /// `12345678901234567000`).
    /// - Throws: ``JSONWriteError`` for a number that is infinite or NaN, naming where it is.
    package func compactData() throws(JSONWriteError) -> Data {
        var output: [UInt8] = []
        do {
            try Self.write(self, into: &output)
        } catch {
            throw JSONWriteError(path: "$" + error.path.reversed().joined(), number: error.number)
        }
        return Data(output)
    }

    /// The value as ``compactData()`` writes it, but each number that has a text in
    /// `numberTexts` written as that text: the numbers of a document read with
    /// ``parseKeepingNumberText(_:)`` as they were sent (`1.50`, `1e3`, `12345678901234567890`).
    /// - Parameters:
    ///   - numberTexts: Number literals by the path of their value, from
    ///     ``parseKeepingNumberText(_:)``.
    ///   - path: Where this value is in that document (`[]` for the document itself), as member
    ///     names and array indices.
    /// - Throws: ``JSONWriteError`` for a number that is infinite or NaN, naming where it is.
    package func compactData(numberTexts: [[String]: String], at path: [String]) throws(JSONWriteError) -> Data {
        var output: [UInt8] = []
        var path = path
        do {
            try Self.write(self, into: &output, numberTexts: numberTexts, path: &path)
        } catch {
            throw JSONWriteError(path: "$" + error.path.reversed().joined(), number: error.number)
        }
        return Data(output)
    }

    /// The value pretty-printed as WireMock's Jackson writes mapping files — `"name" : value`, two
    /// spaces a level, `[ a, b ]` for arrays, `{ }` and `[ ]` when empty — members in document
    /// order, strings and numbers as ``compactData()`` writes them, ending with a newline.
    /// - Throws: ``JSONWriteError`` for a number that is infinite or NaN, naming where it is.
    package func prettyData() throws(JSONWriteError) -> Data {
        var output: [UInt8] = []
        do {
            try Self.write(self, into: &output, indent: 0)
        } catch {
            throw JSONWriteError(path: "$" + error.path.reversed().joined(), number: error.number)
        }
        output.append(UInt8(ascii: "\n"))
        return Data(output)
    }

    /// A string as a JSON string literal, for messages: as the writer escapes it, and DEL
    /// (U+007F) as `\u007F` too, so that nothing invisible hides in a message.
    package static func quoted(_ text: String) -> String {
        var output: [UInt8] = []
        write(text, into: &output)
        return String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\u{7F}", with: "\\u007F")
    }

    /// The content of a JSON string for `text`, without its quotes, as the writer escapes it:
    /// for text put inside a string of a JSON document (a response template's values).
    package static func escapedContent(of text: String) -> String {
        var output: [UInt8] = []
        write(text, into: &output)
        return String(decoding: output.dropFirst().dropLast(), as: UTF8.self)
    }

    /// The value with every object's members in the order of their names (by Unicode scalar,
    /// a name's repeats kept in document order), for output that must not depend on how a
    /// document was spelled: a stub file's `json` body, a cassette's matching key. Written with
    /// ``compactData()``, this is the one way Airlock writes JSON with sorted keys.
    package func sortingKeys() -> JSONValue {
        switch self {
        case .array(let items): return .array(items.map { $0.sortingKeys() })
        case .object(let members):
            let sorted = members.enumerated().sorted { left, right in
                left.element.key == right.element.key ? left.offset < right.offset : left.element.key < right.element.key
            }
            return .object(JSONMembers(sorted.lazy.map { (key: $0.element.key, value: $0.element.value.sortingKeys()) }))
        default: return self
        }
    }

    /// An object of these members, in this order.
    package static func members(_ pairs: [(String, JSONValue)]) -> JSONValue {
        .object(JSONMembers(pairs.lazy.map { (key: $0.0, value: $0.1) }))
    }

    /// ``prettyData()`` of a document of finite numbers (made from counts and codes, not read).
    package var prettyText: Data {
        (try? prettyData()) ?? Data()
    }

    /// A non-finite number, and the path to it built from the inside out.
    private struct NotFinite: Error {
        let number: Double
        var path: [String] = []
    }

    /// Writes `value` compact (`indent` nil) or pretty-printed at `indent` levels.
    private static func write(_ value: JSONValue, into output: inout [UInt8], indent: Int? = nil) throws(NotFinite) {
        var path: [String] = []
        try write(value, into: &output, indent: indent, numberTexts: nil, path: &path)
    }

    /// Writes `value`, at `path` in the document, with the numbers `numberTexts` has as those texts.
    /// (`path` is kept only when there are texts.)
    private static func write(
        _ value: JSONValue,
        into output: inout [UInt8],
        indent: Int? = nil,
        numberTexts: [[String]: String]?,
        path: inout [String]
    ) throws(NotFinite) {
        let inner = indent.map { $0 + 1 }
        func newline(_ level: Int) {
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
        }
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number):
            guard number.isFinite else { throw NotFinite(number: number) }
            if let text = numberTexts?[path] {
                output.append(contentsOf: text.utf8)
            } else {
                output.append(contentsOf: Self.plainSpelling(of: number).utf8)
            }
        case .string(let text): Self.write(text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            if indent != nil { output.append(UInt8(ascii: " ")) }
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(contentsOf: indent == nil ? [UInt8(ascii: ",")] : Array(", ".utf8)) }
                if numberTexts != nil { path.append(String(index)) }
                do {
                    try write(item, into: &output, indent: inner, numberTexts: numberTexts, path: &path)
                } catch {
                    throw NotFinite(number: error.number, path: error.path + ["[\(index)]"])
                }
                if numberTexts != nil { path.removeLast() }
            }
            if indent != nil, !items.isEmpty { output.append(UInt8(ascii: " ")) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, (key, member)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                if let inner { newline(inner) }
                Self.write(key, into: &output)
                output.append(contentsOf: indent == nil ? [UInt8(ascii: ":")] : Array(" : ".utf8))
                if numberTexts != nil { path.append(key) }
                do {
                    try write(member, into: &output, indent: inner, numberTexts: numberTexts, path: &path)
                } catch {
                    throw NotFinite(number: error.number, path: error.path + [".\(key)"])
                }
                if numberTexts != nil { path.removeLast() }
            }
            if let indent {
                if members.isEmpty { output.append(UInt8(ascii: " ")) } else { newline(indent) }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func write(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs that need no escape are copied whole.
            var runStart = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x09: output.append(UInt8(ascii: "t"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0xF)])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `1`, `-3`, `1.5`, `0.0001`: see ``compactData()``.
    package static func plainSpelling(of number: Double) -> String {
        if number == number.rounded(.towardZero), abs(number) <= 9_007_199_254_740_992 {
            return String(Int64(number))
        }
        let magnitude = abs(number)
        // Swift writes the shortest digits that read back: take them and their exponent from it.
        let swift = magnitude.description
        var mantissa = Substring(swift)
        var exponent = 0
        if let e = swift.firstIndex(of: "e") {
            mantissa = swift[..<e]
            exponent = Int(swift[swift.index(after: e)...]) ?? 0
        }
        let point = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
        var digits = Array(mantissa.filter { $0 != "." })
        // The number is 0.<digits> × 10^pointPosition.
        var pointPosition = mantissa.distance(from: mantissa.startIndex, to: point) + exponent
        while digits.count > 1, digits.first == "0" {
            digits.removeFirst()
            pointPosition -= 1
        }
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        let sign = number < 0 ? "-" : ""
        if pointPosition <= 0 {
            return sign + "0." + String(repeating: "0", count: -pointPosition) + String(digits)
        }
        if pointPosition >= digits.count {
            return sign + String(digits) + String(repeating: "0", count: pointPosition - digits.count)
        }
        return sign + String(digits[..<pointPosition]) + "." + String(digits[pointPosition...])
    }
}
