import AirlockBase
import Foundation

/// Keywords that check the value itself: `type`, `enum`, `const`, bounds, lengths, `pattern`,
/// `format`, counts, `uniqueItems`, `required`.
extension KeywordEvaluation {
    mutating func applyAssertions() {
        applyType()
        applyEnum()
        switch instance {
        case .number(let number): applyNumber(number)
        case .string(let text): applyString(text)
        case .array(let elements): applyArray(elements)
        case .object(let object): applyObject(object)
        case .null, .bool: break
        }
    }

    private static let typeNames: Set<String> = ["null", "boolean", "object", "array", "number", "string", "integer"]

    private mutating func applyType() {
        guard let type = members["type"] else { return }
        var names: [String] = []
        switch type {
        case .string(let name): names = [name]
        case .array(let list): names = list.compactMap { if case .string(let name) = $0 { name } else { nil } }
        default: break
        }
        guard names.allSatisfy(Self.typeNames.contains), !names.isEmpty || type == .array([]) else {
            failSchema("type", "is \(describe(type)), which is not a type name or a list of them")
            return
        }
        if !names.contains(where: { Self.instance(instance, isOfType: $0) }) {
            fail("type", "is \(describe(instance)), which is not of type \(listed(names.map(JSONValue.quoted)))")
        }
    }

    static func instance(_ value: JSONValue, isOfType name: String) -> Bool {
        switch (value, name) {
        case (.null, "null"), (.bool, "boolean"), (.object, "object"), (.array, "array"), (.number, "number"), (.string, "string"): true
        case (.number(let number), "integer"): number.isFinite && number == number.rounded()
        default: false
        }
    }

    private mutating func applyEnum() {
        if let allowed = members["enum"] {
            guard case .array(let values) = allowed else {
                failSchema("enum", "is \(describe(allowed)), which is not a list of values")
                return
            }
            if !values.contains(where: { Self.isEqual($0, instance) }) {
                fail("enum", "is \(describe(instance)), which is not one of \(listed(values.map(describe)))")
            }
        }
        if !dialect.isDraft4, let constant = members["const"], !Self.isEqual(constant, instance) {
            fail("const", "is \(describe(instance)), which is not the constant \(describe(constant))")
        }
    }

    // MARK: - Numbers

    private mutating func applyNumber(_ value: Double) {
        applyBound(value, "minimum", "exclusiveMinimum", below: true)
        applyBound(value, "maximum", "exclusiveMaximum", below: false)
        if let divisor = number("multipleOf") {
            if divisor <= 0 {
                failSchema("multipleOf", "is \(describe(.number(divisor))), which is not a number above 0")
            } else if !Self.isMultiple(value, of: divisor) {
                fail("multipleOf", "is \(describe(instance)), which is not a multiple of \(describe(.number(divisor)))")
            }
        }
        applyFormat()
    }

    /// `minimum` and `exclusiveMinimum` (`below`), or `maximum` and `exclusiveMaximum`: in draft 4
    /// the exclusive keyword is a boolean that makes the bound exclusive, later a bound of its own.
    private mutating func applyBound(_ value: Double, _ inclusive: String, _ exclusive: String, below: Bool) {
        let outside: (Double) -> Bool = { below ? value < $0 : value > $0 }
        let side = below ? "less" : "greater"
        let opposite = below ? "greater" : "less"
        if dialect.isDraft4 {
            guard let limit = number(inclusive) else { return }
            if outside(limit) {
                fail(inclusive, "is \(describe(instance)), which is \(side) than the \(inclusive) \(describe(.number(limit)))")
            } else if members[exclusive] == .bool(true), value == limit {
                fail(exclusive, "is \(describe(instance)), which is not \(opposite) than the exclusive \(inclusive) \(describe(.number(limit)))")
            }
            return
        }
        if let limit = number(inclusive), outside(limit) {
            fail(inclusive, "is \(describe(instance)), which is \(side) than the \(inclusive) \(describe(.number(limit)))")
        }
        if let limit = number(exclusive), outside(limit) || value == limit {
            fail(exclusive, "is \(describe(instance)), which is not \(opposite) than the exclusive \(inclusive) \(describe(.number(limit)))")
        }
    }

    /// Whether `value / divisor` is a whole number, allowing for binary floating point (`0.3` is a
    /// multiple of `0.1`); where the quotient is too large for a `Double`, whether the remainder
    /// is 0 (`1e308` is a multiple of `0.5`, not of `0.123456789`).
    static func isMultiple(_ value: Double, of divisor: Double) -> Bool {
        let quotient = value / divisor
        guard quotient.isFinite else { return value.truncatingRemainder(dividingBy: divisor) == 0 }
        return abs(quotient - quotient.rounded()) <= 1e-9 * max(1, abs(quotient))
    }

    // MARK: - Strings

    private mutating func applyString(_ text: String) {
        // JSON Schema counts code points (Unicode scalars), not UTF-16 units or characters.
        let length = text.unicodeScalars.count
        if let minimum = count("minLength"), length < minimum {
            fail("minLength", "is \(describe(instance)), which is shorter than the minimum length of \(counted(minimum, "character"))")
        }
        if let maximum = count("maxLength"), length > maximum {
            fail("maxLength", "is \(describe(instance)), which is longer than the maximum length of \(counted(maximum, "character"))")
        }
        if let pattern = members["pattern"] {
            guard case .string(let source) = pattern else {
                failSchema("pattern", "is \(describe(pattern)), which is not a regular expression in a string")
                return
            }
            switch evaluation.regex(source) {
            case .failure(let error):
                fail("pattern", "cannot be checked: the schema's pattern \(JSONValue.quoted(source)) is not a valid regular expression: \(error.reason)")
            case .success(let regex) where !regex.matches(text):
                fail("pattern", "is \(describe(instance)), which does not match the pattern \(JSONValue.quoted(source))")
            case .success:
                break
            }
        }
        applyFormat()
    }

    private mutating func applyFormat() {
        guard evaluation.validator.assertFormats, case .string(let format)? = members["format"] else { return }
        // An integer a Double does not keep exactly is checked by its text, when the text and
        // the value agree.
        if case .number(let number) = instance, let literal = evaluation.integerLiterals[path], Double(literal) == number,
           let fits = SchemaFormat.checkInteger(format, literal) {
            if !fits { fail("format", "is \(literal), which is not of format \(JSONValue.quoted(format))") }
            return
        }
        guard SchemaFormat.check(format, instance) == false else { return }
        fail("format", "is \(describe(instance)), which is not of format \(JSONValue.quoted(format))")
    }

    // MARK: - Arrays and objects

    private mutating func applyArray(_ elements: [JSONValue]) {
        if let minimum = count("minItems"), elements.count < minimum {
            fail("minItems", "has \(counted(elements.count, "item")), fewer than the minimum of \(minimum)")
        }
        if let maximum = count("maxItems"), elements.count > maximum {
            fail("maxItems", "has \(counted(elements.count, "item")), more than the maximum of \(maximum)")
        }
        if members["uniqueItems"] == .bool(true), let (first, second) = Self.firstDuplicate(elements) {
            fail("uniqueItems", "has equal items at \(first) and \(second), but its items must be unique")
        }
    }

    /// The first two positions holding equal values (JSON equality: `1` equals `1.0`, objects
    /// equal whatever their key order).
    static func firstDuplicate(_ elements: [JSONValue]) -> (Int, Int)? {
        for second in elements.indices {
            for first in 0..<second where isEqual(elements[first], elements[second]) {
                return (first, second)
            }
        }
        return nil
    }

    /// JSON equality: numbers by value (`1` equals `1.0`), objects whatever their key order, and
    /// strings code point by code point (`JSONValue`'s `==` compares Swift strings, for which
    /// `"é"` and `"e\u{301}"` are equal; JSON Schema tells them apart).
    static func isEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)):
            return left.unicodeScalars.elementsEqual(right.unicodeScalars)
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy(isEqual)
        case (.object(let left), .object(let right)):
            return left.count == right.count && left.allSatisfy { key, value in
                right.contains { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) && isEqual($0.value, value) }
            }
        default:
            return lhs == rhs
        }
    }

    private mutating func applyObject(_ object: JSONMembers) {
        if let minimum = count("minProperties"), object.count < minimum {
            fail("minProperties", "has \(counted(object.count, "property")), fewer than the minimum of \(minimum)")
        }
        if let maximum = count("maxProperties"), object.count > maximum {
            fail("maxProperties", "has \(counted(object.count, "property")), more than the maximum of \(maximum)")
        }
        guard let required = members["required"] else { return }
        guard case .array(let names) = required else {
            failSchema("required", "is \(describe(required)), which is not a list of property names")
            return
        }
        var properties = JSONMembers()
        if case .object(let declared)? = members["properties"] { properties = declared }
        for case .string(let name) in names where object[name] == nil {
            // A property that must not be sent this way is not required this way either.
            if let schema = properties[name], hidingFlag(schema, at: frame.location.appending("properties").appending(name)) != nil {
                continue
            }
            fail("required", "is missing required property \(JSONValue.quoted(name))")
        }
    }
}
