import AirlockBase
import AirlockCore
import Foundation

/// Where a value sits in a JSON document: `stubs[3].responses[0].delay`.
package struct JSONLocation: Sendable, Hashable, CustomStringConvertible {
    private enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    private var steps: [Step] = []

    /// The document itself.
    package static let root = JSONLocation()

    /// The path of a `Codable` decoding error.
    package init(_ codingPath: [any CodingKey]) {
        steps = codingPath.map { key in key.intValue.map(Step.index) ?? .key(key.stringValue) }
    }

    private init() {}

    /// The path of a member of the object here.
    package func appending(_ key: String) -> JSONLocation {
        var path = self
        path.steps.append(.key(key))
        return path
    }

    /// The path of an element of the array here.
    package func appending(_ index: Int) -> JSONLocation {
        var path = self
        path.steps.append(.index(index))
        return path
    }

    /// `stubs[0].responses[1].status`; `(top level)` for the document itself.
    package var description: String {
        var text = ""
        for step in steps {
            switch step {
            case .index(let index): text += "[\(index)]"
            case .key(let key): text += text.isEmpty ? key : ".\(key)"
            }
        }
        return text.isEmpty ? "(top level)" : text
    }
}

/// A value being decoded from a JSON document, with the document's name and the value's path, so
/// that every error it throws says `stubs.json, stubs[3].responses[0].delay: …; expected …`.
///
/// The typed accessors check one thing each — the JSON type — and decoders built on them turn
/// the value into a domain value at once, checking its rules where it is read. Nothing here knows
/// a particular file format: stub files use it, and so can any other JSON format decoded into the
/// same ``Registration`` and ``MockResponse`` values.
package struct JSONNode: Sendable {
    /// The value here.
    package let value: JSONValue
    /// Where it is.
    package let path: JSONLocation
    /// How errors name the document: a file's path, or `request body`.
    package let source: String

    /// The whole document.
    package init(document: JSONValue, source: String) {
        self.init(value: document, path: .root, source: source)
    }

    /// The same place in the document holding another value (a template's rendering), so that
    /// its errors name the field the value came from.
    package func replacingValue(with value: JSONValue) -> JSONNode {
        JSONNode(value: value, path: path, source: source)
    }

    fileprivate init(value: JSONValue, path: JSONLocation, source: String) {
        self.value = value
        self.path = path
        self.source = source
    }

    /// Parses a document; a syntax error names the line and column.
    /// - Parameters:
    ///   - data: The JSON.
    ///   - source: How errors name it.
    ///   - expected: What the document should be, for the syntax error's fix.
    package static func parse(_ data: Data, source: String, expected: String) throws(StubFileError) -> JSONNode {
        do {
            return JSONNode(document: try JSONValue.parse(data), source: source)
        } catch let error as JSONParseError {
            throw StubFileError(.invalidJSON, file: source, location: "line \(error.line), column \(error.column)", problem: "is not valid JSON: \(error.problem)", expected: expected)
        } catch {
            throw StubFileError(.invalidJSON, file: source, location: nil, problem: "is not valid JSON: \(error)", expected: expected)
        }
    }

    // MARK: Errors

    /// An error about the value here.
    package func error(_ code: StubFileError.Code, _ problem: String, expected: String) -> StubFileError {
        StubFileError(code, file: source, location: path.description, problem: problem, expected: expected)
    }

    /// "is null" or "has the wrong type", with what was expected.
    package func mismatch(expected: String) -> StubFileError {
        error(.wrongType, value == .null ? "is null" : "has the wrong type", expected: expected)
    }

    // MARK: Typed values

    /// The value as a string.
    package func string() throws(StubFileError) -> String {
        guard case .string(let text) = value else { throw mismatch(expected: "a string") }
        return text
    }

    /// The value as a whole number that fits an `Int`.
    package func integer() throws(StubFileError) -> Int {
        guard case .number(let number) = value, let integer = Int(exactly: number) else { throw mismatch(expected: "an integer") }
        return integer
    }

    /// The value as a number.
    package func number() throws(StubFileError) -> Double {
        guard case .number(let number) = value else { throw mismatch(expected: "a number") }
        return number
    }

    /// The value as `true` or `false`.
    package func bool() throws(StubFileError) -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(expected: "true or false") }
        return flag
    }

    /// The elements of an array, each with its path.
    /// - Parameter expected: What the array should hold, for the error.
    package func array(of expected: String) throws(StubFileError) -> [JSONNode] {
        guard case .array(let items) = value else { throw mismatch(expected: "an array of \(expected)") }
        return items.enumerated().map { JSONNode(value: $1, path: path.appending($0), source: source) }
    }

    /// The members of an object whose keys are names the format gives (headers, query
    /// parameters), in the document's order.
    /// - Parameter expected: What the object should be, for the error.
    package func members(_ expected: String) throws(StubFileError) -> [(key: String, node: JSONNode)] {
        guard case .object(let object) = value else { throw mismatch(expected: expected) }
        return object.map { key, value in (key, JSONNode(value: value, path: path.appending(key), source: source)) }
    }

    /// The value as an object of known fields; a key the format does not know is an error naming
    /// it and the nearest known key (`"statusCode"`: did you mean `"status"`?), since an ignored
    /// typo would quietly change what is served. Of several, the first in the document is named.
    /// - Parameters:
    ///   - what: What the object is, for messages: `a response`.
    ///   - fields: The keys it may have.
    package func object(_ what: String, fields: Set<String>) throws(StubFileError) -> JSONObject {
        guard case .object(let object) = value else { throw mismatch(expected: "a JSON object for \(what)") }
        for key in object.keys where !fields.contains(key) {
            let suggestion = KnownFields.nearest(key, in: fields).map { "; did you mean \"\($0)\"?" } ?? ""
            throw StubFileError(
                .unknownField,
                file: source,
                location: path.appending(key).description,
                problem: "is not a field of \(what)\(suggestion)",
                expected: "one of " + fields.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            )
        }
        return JSONObject(node: self, members: object)
    }
}

/// A JSON object whose keys have been checked, read field by field.
package struct JSONObject: Sendable {
    /// The object itself.
    package let node: JSONNode
    fileprivate let members: JSONMembers

    /// The field, or `nil` when it is absent or `null` (both mean "not given").
    package subscript(key: String) -> JSONNode? {
        guard let value = members[key], value != .null else { return nil }
        return JSONNode(value: value, path: node.path.appending(key), source: node.source)
    }

    /// An error about a field, given or not.
    package func error(_ code: StubFileError.Code, at key: String, _ problem: String, expected: String) -> StubFileError {
        StubFileError(code, file: node.source, location: node.path.appending(key).description, problem: problem, expected: expected)
    }

    /// A field that must be there.
    package func required(_ key: String) throws(StubFileError) -> JSONNode {
        guard let value = members[key] else {
            throw error(.missingField, at: key, "is missing", expected: "a \"\(key)\" field")
        }
        return JSONNode(value: value, path: node.path.appending(key), source: node.source)
    }
}
