import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// Reads a JSONPath expression character by character into steps and filters; each construct
/// outside the subset is an error that names it.
struct JSONPathParser {
    private let characters: [Character]
    private var position = 0

    init(_ source: String) {
        characters = Array(source)
    }

    private var current: Character? { position < characters.count ? characters[position] : nil }

    private func peek(_ offset: Int = 0) -> Character? {
        position + offset < characters.count ? characters[position + offset] : nil
    }

    private mutating func skipSpaces() {
        while current == " " { position += 1 }
    }

    private mutating func consume(_ text: String) -> Bool {
        let wanted = Array(text)
        guard position + wanted.count <= characters.count, Array(characters[position..<position + wanted.count]) == wanted else { return false }
        position += wanted.count
        return true
    }

    private func failure(_ problem: String) -> JSONPathError {
        JSONPathError(problem: problem)
    }

    private func unexpected() -> JSONPathError {
        guard let current else { return failure("ends too early") }
        return failure("has \"\(current)\" at character \(position + 1) where the subset Airlock reads has none")
    }

    /// `$…` (Jayway also reads `name.other` as `$.name.other`).
    mutating func expression() throws(JSONPathError) -> [JSONPathExpression.Step] {
        guard !characters.isEmpty else { throw failure("is empty") }
        var steps: [JSONPathExpression.Step] = []
        if current == "$" {
            position += 1
        } else if let first = current, first.isLetter || first == "_" {
            steps.append(.member(name()))
        } else {
            throw failure("does not start with \"$\"")
        }
        steps += try path()
        guard current == nil else { throw unexpected() }
        return steps
    }

    /// Steps until something that is not a step.
    private mutating func path() throws(JSONPathError) -> [JSONPathExpression.Step] {
        var steps: [JSONPathExpression.Step] = []
        while let character = current {
            if character == "." && peek(1) == "." {
                position += 2
                let inner: JSONPathExpression.Step
                if current == "[" {
                    inner = try bracket()
                } else if consume("*") {
                    inner = .wildcard
                } else {
                    inner = .member(try memberName())
                }
                steps.append(.scan(inner))
            } else if character == "." {
                position += 1
                if current == "[" {
                    steps.append(try bracket())
                } else if consume("*") {
                    steps.append(.wildcard)
                } else {
                    let name = try memberName()
                    if consume("()") {
                        guard name == "length" || name == "size" else {
                            throw failure("calls the function \(name)(), which Airlock does not support (only length() and size())")
                        }
                        steps.append(.length)
                    } else {
                        steps.append(.member(name))
                    }
                }
            } else if character == "[" {
                steps.append(try bracket())
            } else {
                break
            }
        }
        return steps
    }

    private mutating func memberName() throws(JSONPathError) -> String {
        let name = name()
        guard !name.isEmpty else { throw unexpected() }
        return name
    }

    private mutating func name() -> String {
        let stops: Set<Character> = [".", "[", "]", "(", ")", " ", "=", "!", "<", ">", "&", "|", ",", "'", "\"", "~"]
        var name = ""
        while let character = current, !stops.contains(character) {
            name.append(character)
            position += 1
        }
        return name
    }

    /// `[*]`, `['name']`, `[2]`, `[?(…)]`.
    private mutating func bracket() throws(JSONPathError) -> JSONPathExpression.Step {
        position += 1
        skipSpaces()
        let step: JSONPathExpression.Step
        switch current {
        case "*":
            position += 1
            step = .wildcard
        case "'", "\"":
            step = .member(try quoted())
            skipSpaces()
            if current == "," { throw failure("selects several members at once (a union), which Airlock does not support") }
        case "?":
            position += 1
            guard consume("(") else { throw unexpected() }
            let filter = try disjunction()
            skipSpaces()
            guard consume(")") else { throw unexpected() }
            step = .filter(filter)
        case "(":
            throw failure("uses a script expression [(…)], which Airlock does not support")
        default:
            let digits = integerText()
            skipSpaces()
            if current == ":" { throw failure("uses an array slice, which Airlock does not support") }
            if current == "," { throw failure("selects several elements at once (a union), which Airlock does not support") }
            guard let index = Int(digits) else { throw unexpected() }
            step = .index(index)
        }
        skipSpaces()
        guard consume("]") else { throw unexpected() }
        return step
    }

    private mutating func integerText() -> String {
        var text = ""
        if current == "-" {
            text = "-"
            position += 1
        }
        while let character = current, character.isASCII, character.isNumber {
            text.append(character)
            position += 1
        }
        return text
    }

    private mutating func quoted() throws(JSONPathError) -> String {
        guard let quote = current else { throw unexpected() }
        position += 1
        var text = ""
        while let character = current, character != quote {
            if character == "\\", let next = peek(1) {
                text.append(next)
                position += 2
            } else {
                text.append(character)
                position += 1
            }
        }
        guard consume(String(quote)) else { throw failure("has an unterminated string") }
        return text
    }

    // MARK: Filters

    private mutating func disjunction() throws(JSONPathError) -> JSONPathFilter {
        var filter = try conjunction()
        while true {
            skipSpaces()
            guard consume("||") else { return filter }
            filter = .or(filter, try conjunction())
        }
    }

    private mutating func conjunction() throws(JSONPathError) -> JSONPathFilter {
        var filter = try unary()
        while true {
            skipSpaces()
            guard consume("&&") else { return filter }
            filter = .and(filter, try unary())
        }
    }

    private mutating func unary() throws(JSONPathError) -> JSONPathFilter {
        skipSpaces()
        if current == "!" && peek(1) != "=" {
            position += 1
            return .not(try unary())
        }
        if current == "(" {
            position += 1
            let inner = try disjunction()
            skipSpaces()
            guard consume(")") else { throw unexpected() }
            return inner
        }
        return try comparison()
    }

    private mutating func comparison() throws(JSONPathError) -> JSONPathFilter {
        let lhs = try operand()
        skipSpaces()
        if consume("=~") {
            skipSpaces()
            return .matches(lhs, try regexLiteral())
        }
        for candidate in [JSONPathFilter.Comparison.equal, .notEqual, .lessOrEqual, .greaterOrEqual, .less, .greater] where consume(candidate.rawValue) {
            return .compare(lhs, candidate, try operand())
        }
        if let character = current, character.isLetter {
            let word = name()
            throw failure("uses the filter operator \"\(word)\", which Airlock does not support (only ==, !=, <, <=, >, >=, =~)")
        }
        guard case .literal = lhs else { return .exists(lhs) }
        throw unexpected()
    }

    private mutating func operand() throws(JSONPathError) -> JSONPathFilter.Operand {
        skipSpaces()
        switch current {
        case "@":
            position += 1
            return .current(try path())
        case "$":
            position += 1
            return .root(try path())
        case "'", "\"":
            return .literal(.string(try quoted()))
        case "[":
            throw failure("compares with an array literal, which Airlock does not support")
        case let character? where character == "-" || character == "." || (character.isASCII && character.isNumber):
            var text = ""
            while let character = current, character.isASCII, character.isNumber || "-+.eE".contains(character) {
                text.append(character)
                position += 1
            }
            guard let number = Double(text) else { throw failure("has \"\(text)\", which is not a number") }
            return .literal(.number(number))
        default:
            let word = name()
            switch word {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            case "": throw unexpected()
            default: throw failure("has \"\(word)\" where a value (@, $, a string, a number, true, false or null) belongs")
            }
        }
    }

    /// `/pattern/flags`, matched against the whole value as Jayway does.
    private mutating func regexLiteral() throws(JSONPathError) -> WireMockRegex {
        guard consume("/") else { throw failure("has =~ without a /regex/ after it") }
        var pattern = ""
        while let character = current, character != "/" {
            if character == "\\", peek(1) == "/" {
                pattern.append("/")
                position += 2
            } else {
                pattern.append(character)
                position += 1
            }
        }
        guard consume("/") else { throw failure("has an unterminated /regex/") }
        var options: NSRegularExpression.Options = []
        while let flag = current, flag.isLetter {
            switch flag {
            case "i": options.insert(.caseInsensitive)
            case "m": options.insert(.anchorsMatchLines)
            case "s": options.insert(.dotMatchesLineSeparators)
            case "x": options.insert(.allowCommentsAndWhitespace)
            default: throw failure("uses the regex flag \"\(flag)\", which Airlock does not support (only i, m, s and x)")
            }
            position += 1
        }
        do {
            return try WireMockRegex(pattern, options: options)
        } catch {
            throw failure("has the regex /\(pattern)/, which does not compile: \(error.reason)")
        }
    }
}
