import Foundation
import HTTPMock
import Testing

/// Every source of stubs — a stub file, a HAR file, WireMock mappings — reports a bad document
/// with a `StubFileError` whose code a caller can switch on; `StubFileErrorTests` checks the
/// code of every field a stub file has.
struct StubFileErrorCodeTests {
    enum Format: String, Sendable {
        case stubFile, har, wireMock
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let format: Format
        let json: String
        let code: StubFileError.Code
        /// The place the error names.
        let location: String?

        var testDescription: String { "\(format.rawValue) \(code) at \(location ?? "-")" }
    }

    /// A HAR file of one entry, valid but for what is given.
    static func har(startedDateTime: String = "2026-11-22T12:00:00.000Z", responseHeaders: String = "[]") -> String {
        #"{"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [{"#
            + #""startedDateTime": "\#(startedDateTime)", "time": 1, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}, "#
            + #""request": {"method": "GET", "url": "https://a.test/har", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [], "#
            + #""queryString": [], "headersSize": -1, "bodySize": 0}, "#
            + #""response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "#
            + #""headers": \#(responseHeaders), "#
            + #""content": {"size": 2, "mimeType": "text/plain", "text": "hi"}, "redirectURL": "", "headersSize": -1, "bodySize": 2}}]}}"#
    }

    static let cases: [Case] = [
        Case(format: .stubFile, json: #"{"stubs": ["#, code: .invalidJSON, location: "line 1, column 12"),
        Case(format: .stubFile, json: #"{"stubs": [{"path": "/x", "responses": [{"body": "{{now", "template": true}]}]}"#, code: .invalidTemplate, location: "stubs[0].responses[0].body"),
        Case(format: .stubFile, json: #"{"stubs": [{"path": "x", "responses": [{}]}]}"#, code: .invalidValue, location: "stubs[0].path"),
        Case(format: .har, json: "{", code: .invalidJSON, location: "line 1, column 2"),
        Case(format: .har, json: "{}", code: .missingField, location: "log"),
        Case(format: .har, json: #"{"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": 1}}"#, code: .wrongType, location: "log.entries"),
        Case(format: .har, json: har(startedDateTime: "yesterday"), code: .invalidValue, location: "log.entries[0].startedDateTime"),
        Case(format: .har, json: har(responseHeaders: #"[{"name": "X-A", "value": "b\r\nSet-Cookie: evil=1"}]"#), code: .invalidHeader, location: "log.entries[0].response.headers[0]"),
        Case(format: .wireMock, json: #"{"request": {"method": "GET", "url": "/x"}, "respons": {}}"#, code: .unknownField, location: "respons"),
        Case(format: .wireMock, json: #"{"request": {"customMatcher": {}}, "response": {}}"#, code: .unsupported, location: "request.customMatcher"),
        Case(format: .wireMock, json: #"{"request": {"url": "/x"}, "response": {"body": "a", "jsonBody": {}}}"#, code: .conflictingFields, location: "response"),
        Case(format: .wireMock, json: #"{"request": {"url": "/x"}, "response": {"bodyFileName": "../../secret.txt"}}"#, code: .responseFileOutsideRoot, location: "response.bodyFileName"),
        Case(format: .wireMock, json: #"{"request": {"url": "/x"}, "response": {"bodyFileName": "nowhere.txt"}}"#, code: .responseFileUnavailable, location: "response.bodyFileName"),
        Case(format: .wireMock, json: #"{"request": {"url": "/x", "headers": {"A": {"matches": "("}}}, "response": {}}"#, code: .invalidValue, location: "request.headers.A.matches"),
    ]

    @Test(arguments: cases)
    func aBadDocumentCarriesTheCodeOfItsProblem(_ bad: Case) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-error-codes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("__files"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let data = Data(bad.json.utf8)
        let error = #expect(throws: StubFileError.self) {
            switch bad.format {
            case .stubFile: _ = try StubFile(data: data, source: "bad.json", baseDirectory: root)
            case .har: _ = try HTTPArchive(data: data, source: "bad.json")
            case .wireMock: _ = try WireMockMappings(data: data, source: "bad.json", rootDirectory: root)
            }
        }
        #expect(error?.code == bad.code, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.location == bad.location, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.file == "bad.json")
    }

    @Test func aFileThatCannotBeReadIsUnreadable() {
        let error = #expect(throws: StubFileError.self) { try StubFile(contentsOf: URL(fileURLWithPath: "/nonexistent/stubs.json")) }
        #expect(error?.code == .unreadable)
        #expect(error?.description.hasPrefix("/nonexistent/stubs.json: cannot be read") == true)
    }

    @Test func aWireMockFolderWithoutMappingsIsUnreadable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-no-mappings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = #expect(throws: StubFileError.self) { try WireMockMappings(directory: folder) }
        #expect(error?.code == .unreadable)
        #expect(error?.description.contains("has no mappings folder") == true)
    }

    @Test func codesCompareAndNameThemselves() {
        #expect(StubFileError.Code.missingField == .missingField)
        #expect(StubFileError.Code.missingField != .wrongType)
        #expect(StubFileError.Code.responseFileOutsideRoot.description == "responseFileOutsideRoot")
        let error = StubFileError(.missingField, file: "f.json", location: "stubs[0].path", problem: "is missing", expected: "a \"path\" field")
        #expect(error.description == #"f.json, stubs[0].path: is missing; expected a "path" field"#)
        #expect(error == StubFileError(.missingField, file: "f.json", location: "stubs[0].path", problem: "is missing", expected: "a \"path\" field"))
    }

    @Test @available(*, deprecated) func theInitializerWithoutACodeStillWorks() {
        let error = StubFileError(file: "f.json", location: nil, problem: "is odd", expected: "something else")
        #expect(error.code == .invalidValue)
        #expect(error.description == "f.json: is odd; expected something else")
    }
}
