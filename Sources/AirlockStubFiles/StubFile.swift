import AirlockBase
import AirlockCore
import Foundation

/// A file of stubs in JSON, as `airlock serve` and the MockServer admin API read them, checked and
/// ready to register with `registerStubs(_:)`.
///
/// ```json
/// {
///   "stubs": [
///     {
///       "host": "api.example.com",
///       "path": "/users/*",
///       "method": "GET",
///       "query": { "page": "1" },
///       "queryMatching": "contains",
///       "responses": [
///         { "status": 200, "json": { "id": 1, "name": "Alice" } },
///         { "status": 503, "body": "try later", "headers": { "Retry-After": "1" }, "delay": 0.5 },
///         { "file": "fixtures/user.json", "dribble": { "chunks": 4, "seconds": 2 } },
///         { "fault": "connectionReset", "lifetime": "eternal" }
///       ]
///     }
///   ]
/// }
/// ```
///
/// Every stub needs a `path`; `host` is optional (a stub without one matches any host);
/// `method` restricts the stub to one method. A response takes at most one of `body` (text),
/// `json` (any JSON value, sent as `application/json`), `file` (relative to the stub file) and
/// `fault` (`connectionReset`, `emptyResponse`, `malformedChunkedBody`, `randomBytesThenClose`).
/// `lifetime` is `"single"` (the default), `"eternal"`, or a count; `delay` is in seconds.
/// A response with `"template": true` may use request values in `body`, `json` strings and
/// `headers`, with WireMock's names (`{{request.path.[1]}}`, `{{request.query.q}}`,
/// `{{jsonPath request.body '$.name'}}`, …; see the Stub Files article in MockServer's
/// documentation). `scenarioName`, `requiredScenarioState` and `newScenarioState` make a stub
/// part of a stateful scenario.
/// The top level may also be a bare array of stubs.
///
/// The file is read in one pass: every field is checked where it is read, and the first problem
/// throws a ``StubFileError`` naming the file, the field's JSON path
/// (`stubs[3].responses[0].delay`), what is wrong and what was expected — an unknown field, a
/// value of the wrong type, a delay beyond the limit, a `file` that does not exist. Nothing is
/// left to a default when a field is present but wrong.
public struct StubFile: Sendable {
    /// The stubs, ready for the registry.
    package let registrations: [Registration]
    /// The method each stub is restricted to, if it is, in order.
    let methods: [String?]
    /// Where relative `file` paths resolved.
    public let baseDirectory: URL

    /// How many stubs the file holds.
    public var stubCount: Int { registrations.count }

    /// Reads and checks a stub file; relative `file` paths resolve against its folder.
    /// - Parameter url: The file.
    /// - Throws: ``StubFileError`` naming the file, the position or field, and what was expected.
    public init(contentsOf url: URL) throws(StubFileError) {
        let data = try StubFileError.contents(of: url, expected: "a readable JSON file")
        try self.init(data: data, source: url.path, baseDirectory: url.deletingLastPathComponent())
    }

    /// Reads and checks stub JSON.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - source: How errors name it (a path, or `request body`).
    ///   - baseDirectory: Where relative `file` paths resolve.
    /// - Throws: ``StubFileError`` naming the source, the position or field, and what was expected.
    public init(data: Data, source: String, baseDirectory: URL) throws(StubFileError) {
        try self.init(data: data, source: source, files: .relative(to: baseDirectory))
    }

    /// Reads and checks stub JSON whose `file` responses `files` allows.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - source: How errors name it (a path, or `request body`).
    ///   - files: Where relative `file` paths resolve and which files may be named.
    /// - Throws: ``StubFileError`` naming the source, the position or field, and what was expected.
    package init(data: Data, source: String, files: ResponseFile.Access) throws(StubFileError) {
        let document = try JSONNode.parse(data, source: source, expected: "a JSON object with a \"stubs\" array")
        var registrations: [Registration] = []
        var methods: [String?] = []
        for node in try Self.stubNodes(in: document) {
            let (registration, method) = try Self.stub(node, files: files)
            registrations.append(registration)
            methods.append(method)
        }
        self.registrations = registrations
        self.methods = methods
        baseDirectory = files.base
    }
}
