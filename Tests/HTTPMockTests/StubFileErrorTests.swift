import Foundation
import HTTPMock
import Testing

/// A bad stub file, read the way `airlock serve` reads it (`StubFile(contentsOf:)`), names the
/// file, the field's JSON path, what is wrong and what was expected — and a present field of the
/// wrong type is an error, never quietly replaced by a default.
struct StubFileErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        /// The whole file.
        let json: String
        /// The JSON path the error must name.
        let location: String
        /// Text the error's problem or expectation must contain.
        let says: String
        /// The error's code.
        let code: StubFileError.Code

        var testDescription: String { "\(location): \(says) (\(code))" }

        /// A file of one stub with one response.
        static func response(_ response: String, _ location: String, _ says: String, _ code: StubFileError.Code) -> Case {
            Case(json: #"{"stubs": [{"path": "/x", "responses": [\#(response)]}]}"#, location: "stubs[0].responses[0]" + location, says: says, code: code)
        }

        /// A file of one stub answering 200.
        static func stub(_ fields: String, _ location: String, _ says: String, _ code: StubFileError.Code) -> Case {
            Case(json: #"{"stubs": [{"path": "/x", \#(fields), "responses": [{}]}]}"#, location: "stubs[0]" + location, says: says, code: code)
        }
    }

    static let cases: [Case] = [
        // status
        .response(#"{"status": "ok"}"#, ".status", "has the wrong type; expected an integer", .wrongType),
        .response(#"{"status": 200.5}"#, ".status", "has the wrong type; expected an integer", .wrongType),
        .response(#"{"status": 700}"#, ".status", "is 700; expected an HTTP status from 100 to 599", .invalidValue),
        // delay
        .response(#"{"delay": "1"}"#, ".delay", "has the wrong type; expected a number", .wrongType),
        .response(#"{"delay": -1}"#, ".delay", "not a finite, non-negative number", .invalidValue),
        .response(#"{"delay": 1e10}"#, ".delay", "longer than the limit of 86400 seconds", .invalidValue),
        // lifetime
        .response(#"{"lifetime": "forever"}"#, ".lifetime", #"is "forever"; expected "single", "eternal" or a count of at least 1"#, .invalidValue),
        .response(#"{"lifetime": 0}"#, ".lifetime", "is 0", .invalidValue),
        .response(#"{"lifetime": 1.5}"#, ".lifetime", "expected an integer", .wrongType),
        .response(#"{"lifetime": true}"#, ".lifetime", "has the wrong type", .wrongType),
        // headers
        .response(#"{"headers": {"X-A": 1}}"#, ".headers.X-A", "has the wrong type; expected a string", .wrongType),
        .response(#"{"headers": ["X-A: 1"]}"#, ".headers", "expected an object of header names and string values", .wrongType),
        .response(#"{"headers": {"X-A": "b\r\nSet-Cookie: c=1"}}"#, ".headers", "header injection", .invalidHeader),
        // query and how it is compared
        .stub(#""query": {"page": 1}"#, ".query.page", "expected a string or an array of strings", .wrongType),
        .stub(#""query": {"tag": ["a", 2]}"#, ".query.tag[1]", "expected a string", .wrongType),
        .stub(#""query": "page=1""#, ".query", "has the wrong type", .wrongType),
        .stub(#""queryMatching": "fuzzy""#, ".queryMatching", #"is "fuzzy"; expected "exact" or "contains""#, .invalidValue),
        .stub(#""queryMatching": true"#, ".queryMatching", "expected a string", .wrongType),
        // dribble
        .response(#"{"dribble": 4}"#, ".dribble", "has the wrong type", .wrongType),
        .response(#"{"dribble": {"chunks": "4", "seconds": 1}}"#, ".dribble.chunks", "expected an integer", .wrongType),
        .response(#"{"dribble": {"chunks": 4, "seconds": "1"}}"#, ".dribble.seconds", "expected a number", .wrongType),
        .response(#"{"dribble": {"seconds": 1}}"#, ".dribble.chunks", #"is missing; expected a "chunks" field"#, .missingField),
        .response(#"{"dribble": {"chunks": 4, "seconds": 1, "speed": 2}}"#, ".dribble.speed", "is not a field of dribble", .unknownField),
        .response(#"{"dribble": {"chunks": -3, "seconds": 1}}"#, ".dribble", "-3 chunks", .invalidValue),
        // body kinds
        .response(#"{"body": 42}"#, ".body", "expected a string", .wrongType),
        .response(#"{"file": 42}"#, ".file", "expected a string", .wrongType),
        .response(#"{"file": "no-such-file.json"}"#, ".file", #""no-such-file.json" does not exist"#, .responseFileUnavailable),
        .response(#"{"fault": "explode"}"#, ".fault", #"is "explode"; expected "connectionReset""#, .invalidValue),
        .response(#"{"body": "a", "json": {}}"#, "", "has more than one of body, json, file, fault, events, parts and webSocket", .conflictingFields),
        .response(#"{"template": "yes", "body": "a"}"#, ".template", "expected true or false", .wrongType),
        .response(#"{"webSocket": {"script": [{"wait": -1}]}}"#, ".webSocket.script[0].wait", "is -1.0; expected the seconds to wait, from 0 to 86400", .invalidValue),
        .response(#"{"template": true, "body": "{{request.nope}}"}"#, ".body", "request.nope", .invalidTemplate),
        .response(#""ok""#, "", "expected a JSON object for a response", .wrongType),
        .response(#"{"statusCode": 404}"#, ".statusCode", #"did you mean "status"?"#, .unknownField),
        // the stub's own fields
        .stub(#""host": 1"#, ".host", "expected a string", .wrongType),
        .stub(#""method": ["GET"]"#, ".method", "expected a string", .wrongType),
        .stub(#""scenarioName": 1"#, ".scenarioName", "expected a string", .wrongType),
        .stub(#""newScenarioState": "on""#, ".scenarioName", "is missing while a scenario state is given", .missingField),
        Case(json: #"{"stubs": [{"responses": [{}]}]}"#, location: "stubs[0].path", says: #"is missing; expected a "path" field"#, code: .missingField),
        Case(json: #"{"stubs": [{"path": null, "responses": [{}]}]}"#, location: "stubs[0].path", says: "is null; expected a string", code: .wrongType),
        Case(json: #"{"stubs": [{"path": "/x", "responses": []}]}"#, location: "stubs[0].responses", says: "is empty; expected at least one response", code: .invalidValue),
        Case(json: #"{"stubs": [{"path": "/x", "responses": {}}]}"#, location: "stubs[0].responses", says: "expected an array of responses", code: .wrongType),
        // where in the file
        Case(
            json: #"{"stubs": [{"path": "/a", "responses": [{}]}, {"path": "/b", "responses": [{}, {}, {"delay": "soon"}]}]}"#,
            location: "stubs[1].responses[2].delay",
            says: "expected a number",
            code: .wrongType
        ),
        Case(json: #"[{"path": "/x", "responses": [{"status": "ok"}]}]"#, location: "[0].responses[0].status", says: "expected an integer", code: .wrongType),
        Case(json: #"{"path": "/x", "responses": [{"status": "ok"}]}"#, location: "responses[0].status", says: "expected an integer", code: .wrongType),
        Case(json: #"{"stubs": {}}"#, location: "stubs", says: "expected an array of stubs", code: .wrongType),
        Case(json: #"{}"#, location: "stubs", says: #"is missing; expected a "stubs" field"#, code: .missingField),
        Case(json: #""stubs""#, location: "(top level)", says: #"expected a JSON object with a "stubs" array"#, code: .wrongType),
    ]

    @Test(arguments: cases)
    func aBadFieldIsAnErrorNamingItsPath(_ bad: Case) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-stub-errors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("stubs.json")
        try Data(bad.json.utf8).write(to: file)

        let error = #expect(throws: StubFileError.self) { try StubFile(contentsOf: file) }
        #expect(error?.code == bad.code, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.file == file.path)
        #expect(error?.location == bad.location, "\(error.map { "\($0)" } ?? "no error")")
        let message = error.map { "\($0.problem); expected \($0.expected)" } ?? ""
        #expect(message.contains(bad.says), "\(message)")
        #expect(error?.description == "\(file.path), \(bad.location): \(message)")
    }

    @Test func everyFieldGivenAtOnceLoadsAndCounts() throws {
        let json = #"""
            [{"host": "api.example.com", "path": "/users/*", "method": "GET", "query": {"page": "1", "tag": ["a", "b"]},
              "queryMatching": "contains", "scenarioName": "s", "requiredScenarioState": "Started", "newScenarioState": "next",
              "responses": [
                {"status": 201, "headers": {"X-A": "1"}, "body": "x", "lifetime": 2, "delay": 0, "dribble": {"chunks": 2, "seconds": 0}},
                {"json": {"a": [1, "two"]}, "template": true, "lifetime": "eternal"},
                {"fault": "emptyResponse", "lifetime": "single"}]},
             {"path": "/null", "host": null, "method": null, "query": null, "responses": [{"status": null, "delay": null}]}]
            """#
        let file = try StubFile(data: Data(json.utf8), source: "all.json", baseDirectory: URL(fileURLWithPath: "/"))
        #expect(file.stubCount == 2)
        #expect(HTTPMock().registerStubs(file).isEmpty)
    }
}
