import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// A JSONPath expression in the subset WireMock mappings use, read once and evaluated against
/// parsed JSON bodies with the semantics of the Jayway implementation WireMock runs.
///
/// Supported: `$`, `.name`, `['name']`, `.*`, `[*]`, `[0]`, `[-1]`, `..name`, `..*`, `..[…]`,
/// `.length()`/`.size()` at the end of a path, and filters `[?(…)]` with `@`/`$` paths, string,
/// number, `true`/`false`/`null` literals, `==`, `!=`, `<`, `<=`, `>`, `>=`, `=~ /regex/flags`,
/// `&&`, `||`, `!` and parentheses. Anything else (unions, slices, script expressions, the `in`
/// family of operators, other functions) is refused when the expression is read.
///
/// ```swift
/// let path = try JSONPathExpression("$.items[?(@.price > 10)].name")
/// path.evaluate(.object(["items": .array([.object(["price": .number(12), "name": .string("pen")])])]))
/// // [.string("pen")]
/// ```
struct JSONPathExpression: Sendable, CustomStringConvertible {
    /// One step from a set of nodes to the next.
    indirect enum Step: Sendable {
        /// `.name` or `['name']`.
        case member(String)
        /// `[2]`; negative counts from the end.
        case index(Int)
        /// `.*` or `[*]`: every member value or element.
        case wildcard
        /// `[?(…)]`: the elements of an array (or an object itself) that satisfy the filter.
        case filter(JSONPathFilter)
        /// `..step`: the step applied to the node and every node below it.
        case scan(Step)
        /// `.length()` / `.size()`: the count of an array's elements, an object's members or a string's characters.
        case length
    }

    /// The expression as written.
    let source: String
    let steps: [Step]

    /// Whether the path names one place (no wildcard, filter or scan): Jayway's "definite" path,
    /// whose result is that value (or nothing), where an indefinite path gives a list.
    var isDefinite: Bool {
        steps.allSatisfy { step in
            switch step {
            case .member, .index, .length: true
            case .wildcard, .filter, .scan: false
            }
        }
    }

    /// The last member name the path reads, such as `password` in `$.user.password`: the name
    /// redaction hides the values found under.
    var lastMemberName: String? {
        for step in steps.reversed() {
            switch step {
            case .member(let name), .scan(.member(let name)): return name
            case .index, .length: continue
            default: return nil
            }
        }
        return nil
    }

    var description: String { source }

    /// Reads an expression; what the subset does not cover is an error naming it.
    init(_ source: String) throws(JSONPathError) {
        var parser = JSONPathParser(source)
        self.source = source
        self.steps = try parser.expression()
    }

    /// The values the path selects, in document order (an object's members by name).
    func evaluate(_ root: JSONValue) -> [JSONValue] {
        Self.evaluate(steps, from: root, root: root)
    }

    static func evaluate(_ steps: [Step], from start: JSONValue, root: JSONValue) -> [JSONValue] {
        var current = [start]
        for step in steps {
            current = current.flatMap { apply(step, to: $0, root: root) }
            if current.isEmpty { break }
        }
        return current
    }

    private static func apply(_ step: Step, to node: JSONValue, root: JSONValue) -> [JSONValue] {
        switch (step, node) {
        case (.member(let name), _):
            return node[.member(name)].map { [$0] } ?? []
        case (.index(let index), _):
            return node[.index(index)].map { [$0] } ?? []
        case (.wildcard, .object(let members)):
            return members.keys.sorted().map { members[$0]! }
        case (.wildcard, .array(let items)):
            return items
        case (.filter(let filter), .array(let items)):
            return items.filter { filter.isSatisfied(by: $0, root: root) }
        case (.filter(let filter), .object):
            return filter.isSatisfied(by: node, root: root) ? [node] : []
        case (.length, .array(let items)):
            return [.number(Double(items.count))]
        case (.length, .object(let members)):
            return [.number(Double(members.count))]
        case (.length, .string(let text)):
            return [.number(Double(text.count))]
        case (.scan(let inner), _):
            let nodes = [node] + descendants(of: node)
            if case .filter(let filter) = inner {
                // Each node is a candidate once: arrays are not, their elements are.
                return nodes.filter { node in
                    if case .array = node { return false }
                    return filter.isSatisfied(by: node, root: root)
                }
            }
            return nodes.flatMap { apply(inner, to: $0, root: root) }
        default:
            return []
        }
    }

    /// Every node below `node`, depth first, members by name.
    private static func descendants(of node: JSONValue) -> [JSONValue] {
        var found: [JSONValue] = []
        func visit(_ node: JSONValue) {
            switch node {
            case .object(let members):
                for key in members.keys.sorted() {
                    found.append(members[key]!)
                    visit(members[key]!)
                }
            case .array(let items):
                for item in items {
                    found.append(item)
                    visit(item)
                }
            default:
                break
            }
        }
        visit(node)
        return found
    }
}

/// The condition of a `[?(…)]` filter.
indirect enum JSONPathFilter: Sendable {
    /// A value in a filter: a path from the current node (`@.price`) or the root (`$.limit`), or a literal.
    enum Operand: Sendable {
        case current([JSONPathExpression.Step])
        case root([JSONPathExpression.Step])
        case literal(JSONValue)
    }

    enum Comparison: String, Sendable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    case and(JSONPathFilter, JSONPathFilter)
    case or(JSONPathFilter, JSONPathFilter)
    case not(JSONPathFilter)
    /// `@.isbn`: the path exists.
    case exists(Operand)
    case compare(Operand, Comparison, Operand)
    /// `@.name =~ /^A.*/i`: the value's text matches the whole regular expression.
    case matches(Operand, WireMockRegex)

    func isSatisfied(by node: JSONValue, root: JSONValue) -> Bool {
        switch self {
        case .and(let lhs, let rhs): lhs.isSatisfied(by: node, root: root) && rhs.isSatisfied(by: node, root: root)
        case .or(let lhs, let rhs): lhs.isSatisfied(by: node, root: root) || rhs.isSatisfied(by: node, root: root)
        case .not(let inner): !inner.isSatisfied(by: node, root: root)
        case .exists(let operand): value(operand, node: node, root: root) != nil
        case .compare(let lhs, let comparison, let rhs):
            Self.compare(value(lhs, node: node, root: root), comparison, value(rhs, node: node, root: root))
        case .matches(let operand, let regex):
            value(operand, node: node, root: root).map { regex.matchesWhole(JSONText.plain($0)) } ?? false
        }
    }

    /// The operand's value; `nil` when its path finds nothing. A path that can find several
    /// values gives them as an array.
    private func value(_ operand: Operand, node: JSONValue, root: JSONValue) -> JSONValue? {
        let steps: [JSONPathExpression.Step]
        let start: JSONValue
        switch operand {
        case .literal(let value): return value
        case .current(let path): (steps, start) = (path, node)
        case .root(let path): (steps, start) = (path, root)
        }
        let found = JSONPathExpression.evaluate(steps, from: start, root: root)
        let definite = steps.allSatisfy { if case .member = $0 { true } else if case .index = $0 { true } else if case .length = $0 { true } else { false } }
        return definite ? found.first : .array(found)
    }

    /// Jayway's comparisons: numbers numerically (a numeric string counts as its number),
    /// strings by their characters, and a missing value equal to nothing.
    private static func compare(_ lhs: JSONValue?, _ comparison: Comparison, _ rhs: JSONValue?) -> Bool {
        guard let lhs, let rhs else { return comparison == .notEqual }
        if let left = number(lhs), let right = number(rhs), isNumber(lhs) || isNumber(rhs) {
            switch comparison {
            case .equal: return left == right
            case .notEqual: return left != right
            case .less: return left < right
            case .lessOrEqual: return left <= right
            case .greater: return left > right
            case .greaterOrEqual: return left >= right
            }
        }
        switch comparison {
        case .equal: return lhs == rhs
        case .notEqual: return lhs != rhs
        default:
            guard case .string(let left) = lhs, case .string(let right) = rhs else { return false }
            switch comparison {
            case .less: return left < right
            case .lessOrEqual: return left <= right
            case .greater: return left > right
            default: return left >= right
            }
        }
    }

    private static func isNumber(_ value: JSONValue) -> Bool {
        if case .number = value { true } else { false }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let number): number
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }
}

/// Why a JSONPath expression cannot be used.
struct JSONPathError: Error, Sendable {
    let problem: String
}

/// JSON values as text, the way WireMock hands them to string matchers.
enum JSONText {
    /// A string as itself, a number without a needless `.0`, `true`, `false`, `null`, and
    /// objects and arrays as compact JSON with sorted keys.
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .number(let number): return numberText(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array, .object: return json(value)
        }
    }

    static func numberText(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
        return String(number)
    }

    /// Compact JSON with sorted keys.
    static func json(_ value: JSONValue) -> String {
        guard let data = try? value.sortingKeys().compactData() else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}
