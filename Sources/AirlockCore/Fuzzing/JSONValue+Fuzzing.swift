import AirlockBase
import Foundation

/// A JSON document read by Airlock's own parser (``JSONValue/parse(_:)``), for the fuzz harness
/// in `Fuzz/` (`FuzzJSON`), which checks that what parses writes back and reads again as the
/// same value. Not API: the `Fuzzing` SPI may change at any time.
@_spi(Fuzzing)
public struct FuzzedJSON: Equatable, Sendable {
    /// The value the parser read.
    let value: JSONValue
    /// The integer literals of more than 15 characters, by path, as
    /// ``JSONValue/parseKeepingLongIntegers(_:)`` reads them.
    public let longIntegers: [[String]: String]

    /// Where and why the parser refused the bytes: its ``JSONParseError``. Not API.
    @_spi(Fuzzing)
    public struct ParseFailure: Error, Sendable, CustomStringConvertible {
        /// The offset of the byte at fault.
        public let offset: Int
        /// Its line, from 1.
        public let line: Int
        /// Its column, from 1.
        public let column: Int
        /// The parser's message: `line 3, column 25 (byte 39): found 'n' where …`.
        public let description: String
    }

    /// Parses `data` with ``JSONValue/parse(_:)`` and again with
    /// ``JSONValue/parseKeepingLongIntegers(_:)``. Not API.
    /// - Throws: ``ParseFailure`` for the parser's own error; any other error as it was thrown
    ///   (which the harness reports: the parser throws only its own).
    public init(parsing data: Data) throws {
        do {
            value = try JSONValue.parse(data)
        } catch let error as JSONParseError {
            throw ParseFailure(offset: error.offset, line: error.line, column: error.column, description: error.description)
        }
        let kept = try JSONValue.parseKeepingLongIntegers(data)
        guard kept.value == value else {
            throw InconsistentParse(description: "parseKeepingLongIntegers read another value than parse")
        }
        longIntegers = kept.longIntegers
    }

    /// Two reads of the same bytes that disagree. Not API.
    @_spi(Fuzzing)
    public struct InconsistentParse: Error, Sendable, CustomStringConvertible {
        /// What differed.
        public let description: String
    }

    /// The value written compact (``JSONValue/compactData()``). Not API.
    /// - Throws: ``JSONValue``'s write error for a number JSON cannot write (none that parsed).
    public func compactData() throws -> Data {
        try value.compactData()
    }

    /// The value pretty-printed (``JSONValue/prettyData()``). Not API.
    public func prettyData() throws -> Data {
        try value.prettyData()
    }

    /// The value as a JSON string literal would quote a text (``JSONValue/quoted(_:)``), for
    /// each string the document holds, member names included. Not API.
    public var quotedStrings: [(text: String, quoted: String)] {
        var found: [(String, String)] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .string(let text): found.append((text, JSONValue.quoted(text)))
            case .array(let items): items.forEach(walk)
            case .object(let members):
                for (key, member) in members {
                    found.append((key, JSONValue.quoted(key)))
                    walk(member)
                }
            default: break
            }
        }
        walk(value)
        return found
    }

    /// The text, when the document is a string. Not API.
    public var stringValue: String? {
        if case .string(let text) = value { text } else { nil }
    }

    /// Whether both documents hold the same value (object members in any order). Not API.
    public static func == (lhs: FuzzedJSON, rhs: FuzzedJSON) -> Bool {
        lhs.value == rhs.value
    }
}
