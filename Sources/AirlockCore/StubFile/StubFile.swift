import Foundation

/// A file of stubs in JSON, as `airlock serve` and the MockServer admin API read them.
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
public struct StubFile: Sendable {
    /// One stub: where it applies and what it answers.
    public struct Stub: Codable, Sendable {
        /// The host or host pattern; absent means any host.
        public var host: String?
        /// The path or path pattern.
        public var path: String
        /// The one method the stub answers; absent means any.
        public var method: String?
        /// Required query parameters (a value or a list of values per name).
        public var query: [String: QueryValue]?
        /// `"exact"` (the default) or `"contains"`.
        public var queryMatching: String?
        /// The responses, served in order.
        public var responses: [Response]
        /// The scenario the stub belongs to (WireMock's name for it).
        public var scenarioName: String?
        /// The state the scenario must be in; absent for any state.
        public var requiredScenarioState: String?
        /// The state the scenario moves to when the stub answers.
        public var newScenarioState: String?
    }

    /// A query parameter's required value or values.
    public enum QueryValue: Codable, Sendable, Equatable {
        case one(String)
        case many([String])

        /// Decodes a string or an array of strings.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(String.self) {
                self = .one(value)
            } else {
                self = .many(try container.decode([String].self))
            }
        }

        /// Encodes as it was written.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .one(let value): try container.encode(value)
            case .many(let values): try container.encode(values)
            }
        }

        var values: [String] {
            switch self {
            case .one(let value): [value]
            case .many(let values): values
            }
        }
    }

    /// A response in a stub file.
    public struct Response: Codable, Sendable {
        /// The HTTP status; 200 when absent.
        public var status: Int?
        /// Response headers.
        public var headers: [String: String]?
        /// A text body (`text/plain` unless a `Content-Type` header says otherwise).
        public var body: String?
        /// A JSON body, sent as `application/json`.
        public var json: JSONDocument?
        /// A file whose contents are the body, relative to the stub file's folder.
        public var file: String?
        /// A fault instead of a response.
        public var fault: String?
        /// `"single"`, `"eternal"` or a count.
        public var lifetime: LifetimeValue?
        /// Seconds before the response is sent.
        public var delay: Double?
        /// Send the body in pieces over time.
        public var dribble: Dribble?
        /// Whether `body`, `json` and `headers` use request values (`{{request.path.[1]}}`, …).
        public var template: Bool?
    }

    /// How long a response stays queued.
    public enum LifetimeValue: Codable, Sendable, Equatable {
        case named(String)
        case count(Int)

        /// Decodes `"single"`, `"eternal"` or a number.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let count = try? container.decode(Int.self) {
                self = .count(count)
            } else {
                self = .named(try container.decode(String.self))
            }
        }

        /// Encodes as it was written.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .named(let name): try container.encode(name)
            case .count(let count): try container.encode(count)
            }
        }
    }

    /// A body sent in `chunks` pieces over `seconds`.
    public struct Dribble: Codable, Sendable, Equatable {
        /// How many pieces.
        public var chunks: Int
        /// Over how many seconds.
        public var seconds: Double
    }

    /// The stubs in the file, in order.
    public var stubs: [Stub]
    /// Where relative `file` paths resolve.
    public var baseDirectory: URL

    /// Reads and checks a stub file.
    /// - Parameter url: The file.
    /// - Throws: ``StubFileError`` naming the file, the position or field, and what was expected.
    public init(contentsOf url: URL) throws(StubFileError) {
        let data = try StubFileError.contents(of: url, expected: "a readable JSON file")
        try self.init(data: data, source: url.path, baseDirectory: url.deletingLastPathComponent())
    }

    /// Parses stub JSON.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - source: How errors name it (a path, or `request body`).
    ///   - baseDirectory: Where relative `file` paths resolve.
    /// - Throws: ``StubFileError`` naming the source, the position or field, and what was expected.
    public init(data: Data, source: String, baseDirectory: URL) throws(StubFileError) {
        self.baseDirectory = baseDirectory
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw StubFileError(file: source, location: Self.position(of: detail, in: data), problem: "is not valid JSON: \(detail)", expected: "a JSON object with a \"stubs\" array")
        }
        if let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            try StrictKeys.check(object, source: source)
        }
        do {
            if let object = try? JSONDecoder().decode(TopLevel.self, from: data) {
                stubs = object.stubs
            } else {
                stubs = try JSONDecoder().decode(TopLevel.self, from: data).stubs
            }
        } catch let error as DecodingError {
            throw StubFileError(decoding: error, file: source, data: data)
        } catch {
            throw StubFileError(file: source, location: nil, problem: "\(error)", expected: "a JSON object with a \"stubs\" array")
        }
        try validate(source: source)
    }

    /// `{"stubs": [...]}`, a bare array of stubs, or a single stub object.
    private struct TopLevel: Decodable {
        let stubs: [Stub]

        init(from decoder: any Decoder) throws {
            if let array = try? [Stub](from: decoder) {
                stubs = array
                return
            }
            let keyed = try decoder.container(keyedBy: Key.self)
            if keyed.contains(.stubs) {
                stubs = try keyed.decode([Stub].self, forKey: .stubs)
            } else if keyed.contains(.path) {
                stubs = [try Stub(from: decoder)]
            } else {
                throw DecodingError.keyNotFound(Key.stubs, .init(codingPath: [], debugDescription: "No \"stubs\" array."))
            }
        }

        enum Key: String, CodingKey {
            case stubs
            case path
        }
    }

    /// "around character 12" → line and column.
    private static func position(of detail: String, in data: Data) -> String? {
        guard let range = detail.range(of: "character "),
            let offset = Int(detail[range.upperBound...].prefix { $0.isNumber })
        else { return nil }
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return "line \(line), column \(column)"
    }
}

/// A stub file that cannot be used: which file, where, what is wrong, and what was expected.
public struct StubFileError: Error, Sendable, CustomStringConvertible {
    /// The file (or `request body` for the admin API).
    public let file: String
    /// `line 3, column 7` or a field path such as `stubs[0].responses[1].status`.
    public let location: String?
    /// What is wrong.
    public let problem: String
    /// What was expected there.
    public let expected: String

    /// Creates an error.
    public init(file: String, location: String?, problem: String, expected: String) {
        self.file = file
        self.location = location
        self.problem = problem
        self.expected = expected
    }

    /// The bytes of a file, or an error naming it and saying why it cannot be read.
    static func contents(of url: URL, expected: String) throws(StubFileError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StubFileError(file: url.path, location: nil, problem: "cannot be read (\(error.localizedDescription))", expected: expected)
        }
    }

    init(decoding error: DecodingError, file: String, data: Data) {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text.isEmpty ? "(top level)" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(file: file, location: path(context.codingPath + [key]), problem: "is missing", expected: "a \"\(key.stringValue)\" field")
        case .typeMismatch(let type, let context):
            self.init(file: file, location: path(context.codingPath), problem: "has the wrong type", expected: "\(Self.describe(type))")
        case .valueNotFound(let type, let context):
            self.init(file: file, location: path(context.codingPath), problem: "is null", expected: "\(Self.describe(type))")
        case .dataCorrupted(let context):
            self.init(file: file, location: path(context.codingPath), problem: context.debugDescription, expected: "a valid value")
        @unknown default:
            self.init(file: file, location: nil, problem: "\(error)", expected: "a valid stub file")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "a value of type \(type)"
        }
    }

    /// `stubs.json, stubs[0].responses[1].status: has the wrong type; expected an integer`.
    public var description: String {
        "\(file)\(location.map { ", \($0)" } ?? ""): \(problem); expected \(expected)"
    }
}
