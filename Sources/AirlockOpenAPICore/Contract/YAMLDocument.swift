import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import Yams

/// YAML read into JSON values with Yams, keys in document order.
enum YAMLDocument {
    /// The most values a document may expand to: aliases copy what they name, so a small hostile
    /// document ("a billion laughs") could otherwise expand without end.
    static let maximumValues = 1_000_000

    /// The document `text` as JSON: mappings become objects (keys as written), sequences arrays;
    /// plain scalars that YAML resolves to null, booleans, integers or finite numbers become
    /// those, everything else (timestamps included) a string, as written.
    static func json(from text: String, source: String) throws(OpenAPIContract.LoadError) -> JSONValue {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw OpenAPIContract.LoadError(.invalidSyntax, source: source, problem: "it is not valid YAML: \(Self.describe(error))", fix: "correct the YAML at that place")
        } catch {
            throw OpenAPIContract.LoadError(.invalidSyntax, source: source, problem: "it is not valid YAML: \(error)", fix: "correct the YAML at that place")
        }
        guard let root else {
            throw OpenAPIContract.LoadError(.notAnOpenAPIDocument, source: source, problem: "the document is empty", fix: "give an OpenAPI document")
        }
        var budget = maximumValues
        do {
            return try convert(root, depth: 0, budget: &budget)
        } catch {
            throw OpenAPIContract.LoadError(error.code, source: source, problem: error.problem, fix: error.fix)
        }
    }

    private struct ConversionError: Error {
        let code: OpenAPIContract.LoadError.Code
        let problem: String
        let fix: String
    }

    private static func convert(_ node: Node, depth: Int, budget: inout Int) throws(ConversionError) -> JSONValue {
        budget -= 1
        guard budget >= 0 else {
            throw ConversionError(code: .tooLarge, problem: "it expands to more than \(maximumValues) values (its aliases repeat too much)", fix: "give the document without such aliases")
        }
        guard depth < JSONValue.maximumDepth else {
            throw ConversionError(code: .tooLarge, problem: "it nests more than \(JSONValue.maximumDepth) levels deep\(place(node))", fix: "flatten the document")
        }
        switch node {
        case .scalar(let scalar):
            return value(of: scalar, node: node)
        case .sequence(let sequence):
            var elements: [JSONValue] = []
            elements.reserveCapacity(sequence.count)
            for element in sequence {
                elements.append(try convert(element, depth: depth + 1, budget: &budget))
            }
            return .array(elements)
        case .mapping(let mapping):
            var members = JSONMembers()
            for (key, value) in mapping {
                guard case .scalar(let keyScalar) = key else {
                    throw ConversionError(code: .invalidSyntax, problem: "a key\(place(key)) is not a plain value", fix: "use strings as keys, as JSON does")
                }
                members[keyScalar.string] = try convert(value, depth: depth + 1, budget: &budget)
            }
            return .object(members)
        case .alias:
            throw ConversionError(code: .invalidSyntax, problem: "an alias\(place(node)) names no anchor", fix: "define the anchor before the alias")
        }
    }

    private static func value(of scalar: Node.Scalar, node: Node) -> JSONValue {
        guard scalar.style == .plain || scalar.style == .any else { return .string(scalar.string) }
        // Most scalars are words: only those that start like a number, a boolean or null are
        // worth the resolver's patterns.
        if let first = scalar.string.unicodeScalars.first, first.properties.isAlphabetic, !"tTfFnNyYoO".unicodeScalars.contains(first) {
            return .string(scalar.string)
        }
        switch Resolver.default.resolveTag(of: node) {
        case .null:
            return .null
        case .bool:
            return node.bool.map(JSONValue.bool) ?? .string(scalar.string)
        case .int:
            if let int = node.int { return .number(Double(int)) }
            return node.float.map(JSONValue.number) ?? .string(scalar.string)
        case .float:
            guard let double = node.float, double.isFinite else { return .string(scalar.string) }
            return .number(double)
        default:
            return .string(scalar.string)
        }
    }

    /// ` at line 3, column 5`, when the node knows its place.
    private static func place(_ node: Node) -> String {
        guard let mark = node.mark else { return "" }
        return " at line \(mark.line), column \(mark.column)"
    }

    /// Yams' error without the document it repeats.
    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _), .composer(let context, let problem, let mark, _):
            let context = context.map { "\($0.text) " } ?? ""
            return "line \(mark.line), column \(mark.column): \(context)\(problem)"
        case .reader(let problem, let offset, _, _):
            return "byte \(offset ?? 0): \(problem)"
        default:
            return "\(error)"
        }
    }
}
