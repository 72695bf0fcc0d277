import AirlockBase
@testable import AirlockJSONSchema
@testable import AirlockOpenAPICore
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Testing

@Suite struct JSONPointerTests {
    /// RFC 6901 §5: every pointer of the example document, in both forms.
    @Test func resolvesTheRFCExamples() throws {
        let document = try JSONValue.parse(Data(#"""
        {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
        """#.utf8))
        let cases: [(String, String, JSONValue)] = [
            ("/foo/0", "#/foo/0", .string("bar")),
            ("/", "#/", .number(0)),
            ("/a~1b", "#/a~1b", .number(1)),
            ("/c%d", "#/c%25d", .number(2)),
            ("/e^f", "#/e%5Ef", .number(3)),
            ("/g|h", "#/g%7Ch", .number(4)),
            ("/i\\j", "#/i%5Cj", .number(5)),
            ("/k\"l", "#/k%22l", .number(6)),
            ("/ ", "#/%20", .number(7)),
            ("/m~0n", "#/m~0n", .number(8)),
        ]
        for (text, fragment, expected) in cases {
            let pointer = try JSONPointer(parsing: text)
            #expect(document[pointer] == expected, "\(text)")
            #expect(pointer.description == text)
            #expect(pointer.fragment == fragment)
            #expect(try JSONPointer(parsing: fragment) == pointer)
        }
        #expect(document[JSONPointer()] == document)
        #expect(document[try JSONPointer(parsing: "/foo/2")] == nil)
        #expect(document[try JSONPointer(parsing: "/foo/01")] == nil)
    }

    @Test func refusesWhatIsNotAPointer() {
        #expect(throws: JSONPointer.ParseError.self) { try JSONPointer(parsing: "foo") }
        #expect(throws: JSONPointer.ParseError.self) { try JSONPointer(parsing: "/a~2") }
        #expect(throws: JSONPointer.ParseError.self) { try JSONPointer(parsing: "/a~") }
        let error = #expect(throws: JSONPointer.ParseError.self) { try JSONPointer(parsing: "pets") }
        #expect(error?.description == #""pets" is not a JSON Pointer: it must be empty or start with "/""#)
    }
}
