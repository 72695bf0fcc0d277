import AirlockBase
import AirlockCore
import Foundation

/// A stub file that cannot be used: what kind of failure it is, which file, where, what is
/// wrong, and what was expected.
///
/// Stub files, HAR files and WireMock mappings (from a folder or the admin API) all report their
/// problems with this error. Switch on ``code`` to tell failures apart; show ``description``
/// to people:
///
/// ```swift
/// do {
///     let file = try StubFile(data: data, source: "stubs.json", baseDirectory: folder)
///     …
/// } catch {  // a StubFileError: the initializer throws nothing else
///     switch error.code {
///     case .unknownField: print(error)  // stubs.json, stubs[0].responses[0].statusCode: is not a field of a response; did you mean "status"?; expected one of …
///     default: throw error
///     }
/// }
/// ```
public struct StubFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure a ``StubFileError`` is.
    ///
    /// An opaque value with a static member for each failure, so that kinds can be added without
    /// breaking a `switch`: compare with `==`, or switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case unreadable, invalidJSON, missingField, unknownField, wrongType, invalidValue
            case conflictingFields, unsupported, invalidHeader, invalidTemplate
            case responseFileUnavailable, responseFileOutsideRoot
        }

        private let base: Base

        /// The file or folder cannot be read: it does not exist, this user may not read it, or a
        /// WireMock folder has no `mappings/` folder.
        public static let unreadable = Code(base: .unreadable)
        /// The text is not valid JSON (the ``StubFileError/location`` names the line and column
        /// when the parser knows them), or an admin API body is not a JSON object.
        public static let invalidJSON = Code(base: .invalidJSON)
        /// A field that is required — always, or by another field that is given — is absent.
        public static let missingField = Code(base: .missingField)
        /// A key the format does not know, such as a typo (`"statusCode"`, did you mean
        /// `"status"`?) or a WireMock matcher that does not exist.
        public static let unknownField = Code(base: .unknownField)
        /// A value has the wrong JSON type, or is `null` where a value is needed.
        public static let wrongType = Code(base: .wrongType)
        /// A value of the right type that is not allowed there: a number out of range, a name
        /// the format does not know, a date, Base64 text, regular expression, JSON path or URL
        /// that cannot be read.
        public static let invalidValue = Code(base: .invalidValue)
        /// Fields that cannot be given together, such as two bodies for one response or two
        /// matchers in one WireMock pattern object.
        public static let conflictingFields = Code(base: .conflictingFields)
        /// A feature of the format that Airlock does not carry out (WireMock's `customMatcher`,
        /// template parameters, …); the ``StubFileError/expected`` text says what to use instead.
        public static let unsupported = Code(base: .unsupported)
        /// A header that cannot be sent: a name that is not an RFC 9110 token, or a value with a
        /// control character.
        public static let invalidHeader = Code(base: .invalidHeader)
        /// A response template that cannot be read.
        public static let invalidTemplate = Code(base: .invalidTemplate)
        /// The file a response sends (`file`, WireMock's `bodyFileName`) does not exist, is a
        /// folder, or cannot be read.
        public static let responseFileUnavailable = Code(base: .responseFileUnavailable)
        /// The file a response sends is outside the folder it must be in (WireMock's `__files/`,
        /// the admin API's root), or files are not allowed where the stubs come from.
        public static let responseFileOutsideRoot = Code(base: .responseFileOutsideRoot)

        /// The code's name, such as `missingField`.
        public var description: String { "\(base)" }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The file (or `request body` for the admin API).
    public let file: String
    /// `line 3, column 7` or a field path such as `stubs[0].responses[1].status`.
    public let location: String?
    /// What is wrong.
    public let problem: String
    /// What was expected there.
    public let expected: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What kind of failure it is.
    ///   - file: The file, or what else holds the stubs (`request body`).
    ///   - location: Where in it: `line 3, column 7` or a field path; `nil` for the whole file.
    ///   - problem: What is wrong, such as `is missing`.
    ///   - expected: What was expected there, such as `an integer`.
    public init(_ code: Code, file: String, location: String?, problem: String, expected: String) {
        self.code = code
        self.file = file
        self.location = location
        self.problem = problem
        self.expected = expected
    }

    /// Creates an error whose ``code`` is ``Code/invalidValue``.
    @available(*, deprecated, message: "Use init(_:file:location:problem:expected:), which takes the code of the failure.")
    public init(file: String, location: String?, problem: String, expected: String) {
        self.init(.invalidValue, file: file, location: location, problem: problem, expected: expected)
    }

    /// The bytes of a file, or an error naming it and saying why it cannot be read.
    package static func contents(of url: URL, expected: String) throws(StubFileError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StubFileError(.unreadable, file: url.path, location: nil, problem: "cannot be read (\(error.localizedDescription))", expected: expected)
        }
    }

    package init(decoding error: DecodingError, file: String, data: Data) {
        func path(_ keys: [any CodingKey]) -> String { JSONLocation(keys).description }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(.missingField, file: file, location: path(context.codingPath + [key]), problem: "is missing", expected: "a \"\(key.stringValue)\" field")
        case .typeMismatch(let type, let context):
            self.init(.wrongType, file: file, location: path(context.codingPath), problem: "has the wrong type", expected: "\(Self.describe(type))")
        case .valueNotFound(let type, let context):
            self.init(.wrongType, file: file, location: path(context.codingPath), problem: "is null", expected: "\(Self.describe(type))")
        case .dataCorrupted(let context):
            self.init(.invalidValue, file: file, location: path(context.codingPath), problem: context.debugDescription, expected: "a valid value")
        @unknown default:
            self.init(.invalidValue, file: file, location: nil, problem: "\(error)", expected: "a valid stub file")
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
