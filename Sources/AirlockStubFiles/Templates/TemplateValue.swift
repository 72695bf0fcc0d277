import AirlockBase
import Foundation

/// A value a template expression works on: a request value, a literal, a helper's result, a
/// value found in a JSON body. Rendered as Handlebars (WireMock's, which runs on the JVM) writes it.
package indirect enum TemplateValue: Sendable {
    case null
    case bool(Bool)
    /// A number and how it is written (`3`, `7.0`, `1.50` as a body spells it).
    case number(Double, text: String)
    case string(String)
    /// A list; `text`, when given, is how it renders (a query parameter's first value, a path,
    /// JSON), else as Java writes a list: `[1, 2]`.
    case list([TemplateValue], text: String?)
    /// An object in its order; `text` as for a list, else as Java writes a map: `{a=1}`.
    /// Header names compare case-insensitively (`caseInsensitive`).
    case object([(key: String, value: TemplateValue)], text: String?, caseInsensitive: Bool)
    /// A date and its text (ISO 8601 unless a format was given).
    case date(Date, text: String)

    /// An integer.
    static func integer(_ value: Int) -> TemplateValue { .number(Double(value), text: String(value)) }

    /// A number as Java writes a `double`: `7.0`, `2.5`.
    static func double(_ value: Double) -> TemplateValue {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return .number(value, text: String(format: "%.1f", value)) }
        return .number(value, text: "\(value)")
    }

    /// The text Handlebars writes for the value.
    package var text: String {
        switch self {
        case .null: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .number(_, let text): return text
        case .string(let text): return text
        case .date(_, let text): return text
        case .list(let items, let text): return text ?? "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .object(let members, let text, _):
            return text ?? "{" + members.map { "\($0.key)=\($0.value.text)" }.joined(separator: ", ") + "}"
        }
    }

    /// Handlebars' truth: `null`, `false`, empty text, an empty list and zero are false.
    package var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let flag): flag
        case .number(let value, _): value != 0
        case .string(let text): !text.isEmpty
        case .list(let items, _): !items.isEmpty
        case .object, .date: true
        }
    }

    /// The value as a number, when it is one or text that reads as one.
    package var number: Double? {
        switch self {
        case .number(let value, _): value
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
        case .bool(let flag): flag ? 1 : 0
        case .list(let items, let text) where text != nil: items.first?.number
        default: nil
        }
    }

    /// The value as an integer, when it is a whole number.
    package var integer: Int? {
        guard let number, number.isFinite, number == number.rounded(), abs(number) < 9.0e15 else { return nil }
        return Int(number)
    }

    /// The elements to iterate: a list's, an object's values, nothing for `null`, else itself.
    package var elements: [TemplateValue] {
        switch self {
        case .list(let items, _): items
        case .object(let members, _, _): members.map(\.value)
        case .null: []
        default: [self]
        }
    }

    /// The member or element a path segment names: `name`, `[name]`, `0`, `[0]`.
    package func member(_ segment: String) -> TemplateValue? {
        var key = segment
        if key.hasPrefix("["), key.hasSuffix("]"), key.count >= 2 { key = String(key.dropFirst().dropLast()) }
        switch self {
        case .list(let items, _):
            guard let index = Int(key), items.indices.contains(index) else {
                // A list standing for one value (a query parameter) has that value's members.
                if key == "first" { return items.first }
                if key == "last" { return items.last }
                return nil
            }
            return items[index]
        case .object(let members, _, let caseInsensitive):
            if let found = members.first(where: { $0.key == key }) { return found.value }
            if caseInsensitive { return members.first { $0.key.lowercased() == key.lowercased() }?.value }
            return nil
        default:
            return nil
        }
    }

    /// A JSON value as a template value; objects and arrays render as compact JSON, numbers as
    /// the document spells them.
    package static func json(_ value: JSONValue, numberTexts: [[String]: String] = [:], at path: [String] = []) -> TemplateValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .string(let text): return .string(text)
        case .number(let number):
            let text = numberTexts[path] ?? (number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)")
            return .number(number, text: text)
        case .array(let items):
            let text = (try? value.compactData(numberTexts: numberTexts, at: path)).map { String(decoding: $0, as: UTF8.self) }
            return .list(items.enumerated().map { json($1, numberTexts: numberTexts, at: path + [String($0)]) }, text: text)
        case .object(let members):
            let text = (try? value.compactData(numberTexts: numberTexts, at: path)).map { String(decoding: $0, as: UTF8.self) }
            return .object(members.keys.map { key in (key, json(members[key]!, numberTexts: numberTexts, at: path + [key])) }, text: text, caseInsensitive: false)
        }
    }

    /// The value as JSON (`toJson`).
    package var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let value, _): .number(value)
        case .string(let text), .date(_, let text): .string(text)
        case .list(let items, _): .array(items.map(\.jsonValue))
        case .object(let members, _, _): .object(JSONMembers(members.map { ($0.key, $0.value.jsonValue) }))
        }
    }

    /// Equality as Handlebars' `eq` compares: numbers by value, a number never equal to text
    /// (`'1'` is not `1`), else by text.
    package func equals(_ other: TemplateValue) -> Bool {
        switch (self, other) {
        case (.number(let left, _), .number(let right, _)): return left == right
        case (.number, .string), (.string, .number): return false
        default: return text == other.text
        }
    }
}
