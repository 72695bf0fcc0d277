import AirlockBase
import AirlockCore
import Foundation

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
    package static func contents(of url: URL, expected: String) throws(StubFileError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StubFileError(file: url.path, location: nil, problem: "cannot be read (\(error.localizedDescription))", expected: expected)
        }
    }

    package init(decoding error: DecodingError, file: String, data: Data) {
        func path(_ keys: [any CodingKey]) -> String { JSONLocation(keys).description }
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
