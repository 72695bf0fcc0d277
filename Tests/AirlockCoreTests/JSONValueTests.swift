@testable import AirlockCassettes
@testable import AirlockStubFiles
@testable import AirlockWireMock
@testable import AirlockBase
@testable import AirlockCore
import Foundation
import Testing

/// JSON read in document order, compared regardless of it, and written back as Jackson writes it.
struct JSONValueTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }

    private func compact(_ value: JSONValue) throws -> String {
        String(decoding: try value.compactData(), as: UTF8.self)
    }

    // MARK: Order

    @Test func objectsKeepTheirMembersInDocumentOrder() throws {
        guard case .object(let object) = try parse(#"{"zeta": 1, "alpha": 2, "mid": {"b": 1, "a": 2}}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(Array(object.keys) == ["zeta", "alpha", "mid"])
        guard case .object(let inner) = object["mid"] else {
            Issue.record("mid is not an object")
            return
        }
        #expect(Array(inner.keys) == ["b", "a"])
    }

    @Test(arguments: [
        #"{"b":1,"a":[true,false,null],"c":{"z":"x","y":{}},"0":[]}"#,
        #"[{"Content-Type":"text/plain"},{"X-B":"2","X-A":"1"}]"#,
        #""text""#,
        #"-12"#,
        #"{"":{"":""}}"#,
    ])
    func compactDocumentsRoundTripByteForByte(document: String) throws {
        #expect(try compact(parse(document)) == document)
    }

    @Test func sortingKeysOrdersEveryObjectByNameAndNothingElse() throws {
        let value = try parse(#"{"zeta": [{"b": 1, "a": "é/"}], "Alpha": 2.50, "alpha": {"y": null, "x": true}}"#)
        #expect(try compact(value.sortingKeys()) == #"{"Alpha":2.5,"alpha":{"x":true,"y":null},"zeta":[{"a":"é/","b":1}]}"#)
        // Equal as values: only the order changed.
        #expect(value.sortingKeys() == value)
    }

    @Test func whiteSpaceIsDroppedAndOrderKept() throws {
        let document = "{\n  \"status\" : 200,\r\n\t\"headers\": { \"X-Z\": \"1\", \"X-A\": \"2\" } ,\"body\":[ 1 , 2 ]\n}\n"
        #expect(try compact(parse(document)) == #"{"status":200,"headers":{"X-Z":"1","X-A":"2"},"body":[1,2]}"#)
    }

    /// As `JSONSerialization` (last value) and Jackson's `ObjectNode` (a `LinkedHashMap`: last
    /// value, first position) read it.
    @Test func aRepeatedKeyKeepsItsFirstPositionAndItsLastValue() throws {
        let document = #"{"a": 1, "b": 2, "a": 3}"#
        let value = try parse(document)
        #expect(try compact(value) == #"{"a":3,"b":2}"#)
        let foundation = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Int]
        #expect(foundation?["a"] == 3)
    }

    @Test func equalityIgnoresMemberOrderAndNothingElse() throws {
        #expect(try parse(#"{"a": 1, "b": [1, 2]}"#) == parse(#"{"b": [1, 2], "a": 1}"#))
        #expect(try parse(#"{"a": 1, "b": [1, 2]}"#) != parse(#"{"a": 1, "b": [2, 1]}"#))
        #expect(try parse(#"{"a": 1}"#) != parse(#"{"a": 1, "b": 2}"#))
        #expect(try parse(#"{"a": 1, "b": 2}"#) != parse(#"{"a": 1, "c": 2}"#))
        #expect(try parse(#"{"a": 1.0}"#) == parse(#"{"a": 1}"#))
        // Large objects (indexed) compare regardless of order too.
        let keys = (0..<100).map { "k\($0)" }
        let forward = "{" + keys.map { "\"\($0)\": \"\($0)\"" }.joined(separator: ",") + "}"
        let backward = "{" + keys.reversed().map { "\"\($0)\": \"\($0)\"" }.joined(separator: ",") + "}"
        #expect(try parse(forward) == parse(backward))
    }

    @Test func membersReadLikeADictionary() throws {
        var object: JSONMembers = ["b": 1, "a": "x", "c": .null]
        #expect(object.count == 3 && !object.isEmpty && JSONMembers().isEmpty)
        #expect(object["a"] == .string("x") && object["missing"] == nil)
        #expect(Array(object.keys) == ["b", "a", "c"])
        var visited: [String] = []
        for (key, _) in object { visited.append(key) }
        #expect(visited == ["b", "a", "c"])
        let doubled = object.mapValues { value in
            if case .number(let number) = value { return .number(number * 2) }
            return value
        }
        #expect(doubled["b"] == .number(2) && Array(doubled.keys) == ["b", "a", "c"])
        #expect(Array(object.filter { $0.key != "a" }.keys) == ["b", "c"])
        object["a"] = .bool(true)
        object["d"] = .null
        object["b"] = nil
        #expect(Array(object.keys) == ["a", "c", "d"] && object["a"] == .bool(true))
        // A dictionary has no order: its members come sorted.
        #expect(Array(JSONMembers(["y": .null, "x": .null, "z": .null]).keys) == ["x", "y", "z"])
        #expect(JSONMembers([(key: "k", value: .number(1)), (key: "k", value: .number(2))])["k"] == .number(2))
    }

    @Test(arguments: [0, 1, JSONMembers.indexThreshold, JSONMembers.indexThreshold + 1, 1_000])
    func lookupsFindEveryMemberOfObjectsOfAnySize(count: Int) {
        var object = JSONMembers((0..<count).map { (key: "key\($0)", value: JSONValue.number(Double($0))) })
        #expect(object.count == count)
        #expect((0..<count).allSatisfy { object["key\($0)"] == .number(Double($0)) })
        #expect(object["key\(count)"] == nil)
        guard count > 2 else { return }
        // Removing one shifts the others; lookups still find them.
        object["key1"] = nil
        #expect(object.count == count - 1 && object["key1"] == nil)
        #expect((0..<count).filter { $0 != 1 }.allSatisfy { object["key\($0)"] == .number(Double($0)) })
        object["key0"] = .string("new")
        #expect(object["key0"] == .string("new") && object.keys.first == "key0")
    }

    // MARK: Strings

    @Test(arguments: [
        (#""plain""#, "plain"),
        (#""\" \\ \/ \b \f \n \r \t""#, "\" \\ / \u{8} \u{C} \n \r \t"),
        (#""\u0041\u00e9\u00E9\u20AC""#, "Aéé€"),
        (#""\u0000""#, "\u{0}"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""\ud834\udd1e""#, "𝄞"),
        ("\"é€😀 raw\"", "é€😀 raw"),
        ("\"\u{7F}\"", "\u{7F}"),
        (#""a\nb""#, "a\nb"),
    ])
    func escapesAndUTF8AreDecoded(document: String, expected: String) throws {
        #expect(try parse(document) == .string(expected))
    }

    /// What `JSONSerialization` does on Linux: an error, not U+FFFD.
    @Test(arguments: [#""\uD800""#, #""\uDC00""#, #""\uD800\u0041""#, #""\uD800x""#, #""\uDBFF\uDBFF""#])
    func aLoneSurrogateIsAnError(document: String) throws {
        #expect(throws: JSONParseError.self) { try parse(document) }
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(document.utf8), options: .fragmentsAllowed) }
    }

    @Test func aByteOrderMarkIsSkippedAsFoundationDoes() throws {
        let data = Data([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8))
        #expect(try JSONValue.parse(data) == .object(["a": 1]))
        #expect(try JSONSerialization.jsonObject(with: data) as? [String: Int] == ["a": 1])
        // Only before the document, and positions after it count from the text.
        let error = try #require(throws: JSONParseError.self) { try JSONValue.parse(Data([0xEF, 0xBB, 0xBF] + Array("[x]".utf8))) }
        #expect(error.offset == 4 && error.line == 1 && error.column == 2)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(Array(" ".utf8) + [0xEF, 0xBB, 0xBF] + Array("1".utf8))) }
    }

    @Test(arguments: [
        ("quote and backslash", "a\"b\\c", #""a\"b\\c""#),
        ("short escapes", "\u{8}\u{C}\n\r\t", #""\b\f\n\r\t""#),
        ("other control characters in upper-case hex", "\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001F""#),
        ("slash, DEL and non-ASCII as they are", "/\u{7F}é€😀\u{2028}", "\"/\u{7F}é€😀\u{2028}\""),
    ])
    func stringsAreWrittenAsJacksonWritesThem(_ name: String, text: String, expected: String) throws {
        #expect(try compact(.string(text)) == expected)
        #expect(try compact(.object([text: .null])) == "{\(expected):null}")
        #expect(try parse(expected) == .string(text))
    }

    // MARK: Numbers

    @Test(arguments: [
        "0", "-0", "1", "-1", "1.5", "0.1", "1e2", "1E+2", "1e-2", "-1.25e-3", "123456789012345678901234567890",
        "9007199254740993", "0.30000000000000004", "1e-400", "5e-324", "2.2250738585072014e-308",
        "1.7976931348623157e308", "1e22", "1e23", "123.456e7", "0.000000000000000000000000000001", "1.00000000000000000000001",
        "4.35", "8.589973e9", "17976931348623157e292",
    ])
    func numbersReadAsTheNearestDouble(text: String) throws {
        let expected = try #require(Double(text))
        guard case .number(let number) = try parse(text) else {
            Issue.record("\(text) is not a number")
            return
        }
        #expect(number.bitPattern == expected.bitPattern, "\(text): \(number) vs \(expected)")
    }

    @Test func randomNumbersReadBackExactly() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            let spellings = [value.description, String(format: "%.17g", value), String(format: "%.3e", value), Self.randomNumber(&random)]
            for text in spellings {
                guard case .number(let number) = try parse(text) else {
                    Issue.record("\(text) is not a number")
                    return
                }
                #expect(number == Double(text)!, "\(text)")
            }
        }
    }

    @Test(arguments: [
        (1.0, "1"), (-3.0, "-3"), (-0.0, "0"), (9_007_199_254_740_992.0, "9007199254740992"), (-9_007_199_254_740_992.0, "-9007199254740992"),
        (9_007_199_254_740_994.0, "9007199254740994"), (1e20, "100000000000000000000"), (1.5, "1.5"), (0.1, "0.1"), (-0.25, "-0.25"),
        (100.5, "100.5"), (0.001, "0.001"), (0.0001, "0.0001"), (1.25e-7, "0.000000125"), (1234567.5, "1234567.5"),
        (12345678.9, "12345678.9"), (1234567890.12, "1234567890.12"), (2.0, "2"), (-1.5e-10, "-0.00000000015"),
        (1.7976931348623157e308, "17976931348623157" + String(repeating: "0", count: 292)), (0.30000000000000004, "0.30000000000000004"),
    ])
    func numbersAreWrittenAsWireMockWritesThem(value: Double, expected: String) throws {
        #expect(try compact(.number(value)) == expected)
        #expect(try parse(expected) == .number(value))
    }

    @Test(arguments: [
        #"{"price": 1.50, "count": 1e3, "big": 12345678901234567890, "ids": [1, 9007199254740993, -0, 2E-2]}"#,
        #"[1.0, {"a": [0.10, 7]}, 100000000000000000000]"#,
        "1.50",
    ])
    func numbersKeptAsTextAreWrittenAsSent(document: String) throws {
        let (value, numberTexts) = try JSONValue.parseKeepingNumberText(Data(document.utf8))
        #expect(value == (try parse(document)))
        let written = String(decoding: try value.compactData(numberTexts: numberTexts, at: []), as: UTF8.self)
        #expect(written == document.replacingOccurrences(of: ": ", with: ":").replacingOccurrences(of: ", ", with: ","))
    }

    @Test func numberTextsNameTheLastValueOfARepeatedKeyAndOnlyNumbersThatNeedThem() throws {
        let (value, numberTexts) = try JSONValue.parseKeepingNumberText(Data(#"{"a": {"b": 1.50}, "c": 12, "a": {"b": 2}, "d": [1.25]}"#.utf8))
        #expect(numberTexts == [["d", "0"]: "1.25"])
        #expect(String(decoding: try value.compactData(numberTexts: numberTexts, at: []), as: UTF8.self) == #"{"a":{"b":2},"c":12,"d":[1.25]}"#)
        // A value inside the document, written from where it is.
        let inner = try #require(value.value(following: [.member("d")]))
        #expect(String(decoding: try inner.compactData(numberTexts: numberTexts, at: ["d"]), as: UTF8.self) == "[1.25]")
    }

    @Test func stepsFindMembersAndElements() throws {
        let value = try parse(#"{"items": [{"id": 1}, {"id": 2}], "name": "x"}"#)
        #expect(value.value(following: [.member("items"), .index(1), .member("id")]) == .number(2))
        #expect(value.value(following: [.member("items"), .index(-1), .member("id")]) == .number(2))
        #expect(value.value(following: []) == value)
        #expect(value.value(following: [.member("items"), .index(2)]) == nil)
        #expect(value.value(following: [.member("name"), .member("x")]) == nil)
        #expect(value.value(following: [.index(0)]) == nil)
        #expect(value[.member("name")] == .string("x"))
    }

    @Test func escapedContentIsAStringsInsideAsTheWriterEscapesIt() {
        #expect(JSONValue.escapedContent(of: "a \"b\" \\ c/d é\u{1}\n\u{7F}") == #"a \"b\" \\ c/d é\u0001\n\#u{7F}"#)
    }

    @Test func aNumberJSONCannotHoldIsAnErrorNamingWhereItIs() throws {
        let value: JSONValue = .object(["items": .array([.number(1), .object(["price": .number(.infinity)])])])
        let error = try #require(throws: JSONWriteError.self) { try value.compactData() }
        #expect(error.description == "$.items[1].price is inf, which JSON cannot write; give a finite number")
    }

    // MARK: Errors

    /// A malformed document and what the error says: line, column, byte offset, problem.
    struct Malformed: Sendable, CustomTestStringConvertible {
        let text: String
        let line: Int
        let column: Int
        let offset: Int
        let problem: String
        var testDescription: String { text.debugDescription }
    }

    @Test(arguments: [
        Malformed(text: "", line: 1, column: 1, offset: 0, problem: "the document is empty; expected a JSON value"),
        Malformed(text: " \n ", line: 2, column: 2, offset: 3, problem: "the document is empty; expected a JSON value"),
        Malformed(text: "[1, 2", line: 1, column: 6, offset: 5, problem: "found the end of the document where ',' or ']' should follow an element"),
        Malformed(text: "[1 2]", line: 1, column: 4, offset: 3, problem: "found '2' where ',' or ']' should follow an element"),
        Malformed(text: "[1,]", line: 1, column: 4, offset: 3, problem: "found ']' after a comma; JSON allows no trailing comma"),
        Malformed(text: #"{"a":1,}"#, line: 1, column: 8, offset: 7, problem: "found '}' after a comma; JSON allows no trailing comma"),
        Malformed(text: "{\n  \"stubs\": [\n    { \"path\": \"/users\", nope }\n  ]\n}", line: 3, column: 25, offset: 39, problem: "found 'n' where a member name in double quotes should start"),
        Malformed(text: "{'a': 1}", line: 1, column: 2, offset: 1, problem: "found ''' where a member name in double quotes should start"),
        Malformed(text: #"{"a" 1}"#, line: 1, column: 6, offset: 5, problem: "found '1' where ':' should follow the member name"),
        Malformed(text: #"{"a": 1 "b": 2}"#, line: 1, column: 9, offset: 8, problem: "found '\"' where ',' or '}' should follow a member"),
        Malformed(text: #"{"a": }"#, line: 1, column: 7, offset: 6, problem: "found '}' where a value should start"),
        Malformed(text: "[tru]", line: 1, column: 2, offset: 1, problem: "found 't' where a value should start (did you mean true?)"),
        Malformed(text: "nul", line: 1, column: 1, offset: 0, problem: "found 'n' where a value should start (did you mean null?)"),
        Malformed(text: "[NaN]", line: 1, column: 2, offset: 1, problem: "found 'N' where a value should start"),
        Malformed(text: "[+1]", line: 1, column: 2, offset: 1, problem: "found '+' where a value should start"),
        Malformed(text: "[.5]", line: 1, column: 2, offset: 1, problem: "found '.' where a value should start"),
        Malformed(text: "[01]", line: 1, column: 2, offset: 1, problem: "a number starts with 0 followed by digits; JSON allows no leading zeros"),
        Malformed(text: "[-01]", line: 1, column: 3, offset: 2, problem: "a number starts with 0 followed by digits; JSON allows no leading zeros"),
        Malformed(text: "[-]", line: 1, column: 3, offset: 2, problem: "found ']' where a digit should follow '-'"),
        Malformed(text: "[1.]", line: 1, column: 4, offset: 3, problem: "found ']' where a digit should follow the decimal point"),
        Malformed(text: "[1e]", line: 1, column: 4, offset: 3, problem: "found ']' where a digit of the exponent should be"),
        Malformed(text: "[1e+]", line: 1, column: 5, offset: 4, problem: "found ']' where a digit of the exponent should be"),
        Malformed(text: "[1e400]", line: 1, column: 2, offset: 1, problem: "the number 1e400 is beyond the range of a Double (±1.8e308)"),
        Malformed(text: "[-1e400]", line: 1, column: 2, offset: 1, problem: "the number -1e400 is beyond the range of a Double (±1.8e308)"),
        Malformed(text: "[\"abc]", line: 1, column: 2, offset: 1, problem: "the string that starts here has no closing quote"),
        Malformed(text: "[\"a\tb\"]", line: 1, column: 4, offset: 3, problem: "found a tab in a string; control characters must be escaped (\\n, \\t, \\u00XX)"),
        Malformed(text: "[\"a\nb\"]", line: 1, column: 4, offset: 3, problem: "found a line feed in a string; control characters must be escaped (\\n, \\t, \\u00XX)"),
        Malformed(text: #"["\x"]"#, line: 1, column: 4, offset: 3, problem: #"found 'x' after a backslash; the escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"#),
        Malformed(text: #"["\u12G4"]"#, line: 1, column: 3, offset: 2, problem: #"a \u escape needs four hex digits"#),
        Malformed(text: #"["\u12"]"#, line: 1, column: 3, offset: 2, problem: #"a \u escape needs four hex digits"#),
        Malformed(text: #"["é\uD800"]"#, line: 1, column: 4, offset: 4, problem: #"the escape \uD800 is a high surrogate without a low one (\uDC00–\uDFFF) after it"#),
        Malformed(text: #"["\uDE00"]"#, line: 1, column: 3, offset: 2, problem: #"the escape \uDE00 is a low surrogate without a high one before it"#),
        Malformed(text: "[1] [2]", line: 1, column: 5, offset: 4, problem: "found '[' after the document's value"),
        Malformed(text: "{}x", line: 1, column: 3, offset: 2, problem: "found 'x' after the document's value"),
        Malformed(text: "[\u{A0}]", line: 1, column: 2, offset: 1, problem: "found '\u{A0}' (U+00A0) where a value should start"),
        Malformed(text: "[1,\n \"é\", é]", line: 2, column: 7, offset: 11, problem: "found 'é' (U+00E9) where a value should start"),
        Malformed(text: "[\u{1}]", line: 1, column: 2, offset: 1, problem: "found the control character U+0001 where a value should start"),
    ])
    func aSyntaxErrorSaysWhereAndWhat(_ malformed: Malformed) throws {
        let error = try #require(throws: JSONParseError.self) { try parse(malformed.text) }
        #expect(error.problem == malformed.problem)
        #expect(error.line == malformed.line && error.column == malformed.column && error.offset == malformed.offset, "\(error)")
        #expect(error.description == "line \(malformed.line), column \(malformed.column) (byte \(malformed.offset)): \(malformed.problem)")
    }

    @Test(arguments: [
        ([0x22, 0xFF, 0x22], "found byte 0xFF, which is not UTF-8"),
        ([0x22, 0xC3, 0x22], "found byte 0xC3 starting a sequence that is not UTF-8"),
        ([0x22, 0xC0, 0x80, 0x22], "found byte 0xC0, which is not UTF-8"),  // overlong
        ([0x22, 0xE0, 0x80, 0x80, 0x22], "found byte 0xE0 starting a sequence that is not UTF-8"),  // overlong
        ([0x22, 0xED, 0xA0, 0x80, 0x22], "found byte 0xED starting a sequence that is not UTF-8"),  // a surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "found byte 0xF4 starting a sequence that is not UTF-8"),  // beyond U+10FFFF
        ([0x22, 0xF0, 0x9F, 0x98], "found byte 0xF0 starting a sequence that is not UTF-8"),  // cut short
    ] as [([UInt8], String)])
    func invalidUTF8InAStringIsAnError(bytes: [UInt8], problem: String) throws {
        let error = try #require(throws: JSONParseError.self) { try JSONValue.parse(Data(bytes)) }
        #expect(error.problem == problem && error.offset == 1)
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) }
    }

    @Test func nestingStopsAtTheDepthLimitWithoutExhaustingTheStack() throws {
        let limit = JSONValue.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try JSONValue.parse(Data(deepest.utf8)) != .null)
        for opener in ["[", "{\"a\":"] {
            let tooDeep = String(repeating: opener, count: limit + 1)
            let error = try #require(throws: JSONParseError.self) { try parse(tooDeep + "1") }
            #expect(error.problem == "arrays and objects nest deeper than 512 levels")
            #expect(error.offset == limit * opener.utf8.count)
        }
        // Foundation's limit is the same.
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data((String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)).utf8)) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(repeating: UInt8(ascii: "["), count: 1_000_000)) }
    }

    // MARK: Against JSONSerialization and JSONTestSuite

    /// Generated documents, spelled with white space, escapes and number forms at random, read
    /// as the same values by this parser and by `JSONSerialization`. Numbers to within 1e-13:
    /// `JSONSerialization` on Linux is not correctly rounded for long ones (`5807617328556118262e99`
    /// reads as 5.807617328556124e+117; `Double(_:)` and strtod say …118e+117), while this
    /// parser's are exactly `Double(_:)`'s (``randomNumbersReadBackExactly()``).
    @Test func readsGeneratedDocumentsAsJSONSerializationDoes() throws {
        var random = SeededRandom(seed: 28)
        for round in 0..<1_500 {
            var text = ""
            Self.generate(depth: 0, into: &text, random: &random)
            let data = Data(text.utf8)
            let ours = try JSONValue.parse(data)
            let foundation = try Self.value(of: JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed))
            #expect(Self.agree(ours, foundation), "round \(round): \(text)")
            // What we write reads back as the same value, and writes the same again.
            let written = try ours.compactData()
            #expect(try JSONValue.parse(written) == ours)
            #expect(try JSONValue.parse(written).compactData() == written)
        }
    }

    /// `y_` files must parse and `n_` files must not (nst/JSONTestSuite, MIT; see the folder's README).
    @Test func acceptsAndRefusesTheJSONTestSuiteCases() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/JSONTestSuite")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count == 283)
        var wrong: [String] = []
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let parsed = (try? JSONValue.parse(data)) != nil
            if name.hasPrefix("y_") != parsed { wrong.append(name) }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    // MARK: Codable and JSONNode

    @Test func codableStillEncodesAndDecodes() throws {
        let value = try parse(#"{"b": [1, 2.5, "x", null, true], "a": {"c": -3}}"#)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded = try encoder.encode(value)
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"a":{"c":-3},"b":[1,2.5,"x",null,true]}"#)
        #expect(try JSONDecoder().decode(JSONValue.self, from: encoded) == value)
    }

    @Test func aStubFileSyntaxErrorNamesTheLineAndColumn() throws {
        let data = Data("{\n  \"stubs\": [\n    { \"path\": \"/users\", nope }\n  ]\n}".utf8)
        let error = try #require(throws: StubFileError.self) { try JSONNode.parse(data, source: "bad.json", expected: "a stub file") }
        #expect(error.description == "bad.json, line 3, column 25: is not valid JSON: found 'n' where a member name in double quotes should start; expected a stub file")
    }

    @Test func membersComeInDocumentOrder() throws {
        let node = try JSONNode.parse(Data(#"{"X-Z": "1", "Content-Type": "text/plain", "X-A": "2"}"#.utf8), source: "s", expected: "-")
        #expect(try node.members("headers").map(\.key) == ["X-Z", "Content-Type", "X-A"])
    }

    // MARK: Generation

    private static func generate(depth: Int, into text: inout String, random: inout SeededRandom) {
        func space() {
            for _ in 0..<Int.random(in: 0...2, using: &random) { text += [" ", "\n", "\t", "\r\n"].randomElement(using: &random)! }
        }
        space()
        switch Int.random(in: depth > 4 ? 0...4 : 0...6, using: &random) {
        case 0: text += "null"
        case 1: text += Bool.random(using: &random) ? "true" : "false"
        case 2: text += randomNumber(&random)
        case 3, 4: text += randomString(&random)
        case 5:
            text += "["
            for index in 0..<Int.random(in: 0...5, using: &random) {
                if index > 0 { text += "," }
                generate(depth: depth + 1, into: &text, random: &random)
            }
            space()
            text += "]"
        default:
            text += "{"
            // Keys may repeat: both parsers keep the last value.
            for index in 0..<Int.random(in: 0...(Bool.random(using: &random) ? 5 : 40), using: &random) {
                if index > 0 { text += "," }
                space()
                text += Bool.random(using: &random) ? "\"k\(Int.random(in: 0...50, using: &random))\"" : randomString(&random)
                space()
                text += ":"
                generate(depth: depth + 1, into: &text, random: &random)
            }
            space()
            text += "}"
        }
        space()
    }

    private static func randomNumber(_ random: inout SeededRandom) -> String {
        let sign = Bool.random(using: &random) ? "-" : ""
        let integer = Bool.random(using: &random) ? "0" : String(String(Int.random(in: 1...Int.max, using: &random)).prefix(Int.random(in: 1...19, using: &random)))
        var fraction = ""
        if Bool.random(using: &random) {
            fraction = "." + String(String(UInt64.random(in: 0...UInt64.max, using: &random)).prefix(Int.random(in: 1...18, using: &random)))
        }
        var exponent = ""
        if Bool.random(using: &random) {
            // Within a Double's range: both parsers refuse 1e400.
            exponent = ["e", "E"].randomElement(using: &random)! + ["", "+", "-"].randomElement(using: &random)! + String(Int.random(in: 0...280, using: &random))
        }
        return sign + integer + fraction + exponent
    }

    private static func randomString(_ random: inout SeededRandom) -> String {
        let pieces = [
            "a", "Z", "0", " ", "é", "€", "😀", "\u{7F}", "/", #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#,
            #"\u0000"#, #"\u001f"#, #"\u00E9"#, #"\uFFFF"#, #"\uD83D\uDE00"#, #"\uDBFF\uDFFF"#, "\u{2028}", "中文",
        ]
        return "\"" + (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() + "\""
    }

    /// Equal, numbers to within 1e-13 of each other.
    private static func agree(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)):
            return left == right || abs(left - right) <= 1e-13 * max(abs(left), abs(right))
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy(agree)
        case (.object(let left), .object(let right)):
            return left.count == right.count && left.allSatisfy { key, value in right[key].map { agree(value, $0) } ?? false }
        default:
            return lhs == rhs
        }
    }

    /// `JSONSerialization`'s result as a value (booleans are the NSNumbers of type `c`).
    private static func value(of object: Any) throws -> JSONValue {
        switch object {
        case is NSNull: return .null
        case let text as String: return .string(text)
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        case let array as [Any]: return .array(try array.map(value(of:)))
        case let dictionary as [String: Any]: return .object(JSONMembers(try dictionary.mapValues(value(of:))))
        default:
            Issue.record("unexpected \(type(of: object))")
            return .null
        }
    }
}

/// SplitMix64: the same numbers on every run and platform.
private struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
