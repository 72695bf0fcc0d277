import AirlockBase
import Foundation

extension ResponseTemplate {
    /// Reads Handlebars' syntax: text, `{{expression}}`, `{{{raw}}}`, `{{#block}}…{{else}}…{{/block}}`,
    /// comments `{{! … }}` and `{{!-- … --}}`, and `~` whitespace control.
    struct Parser {
        private var rest: Substring
        /// Open blocks may nest this deep.
        static let maximumDepth = 64

        init(text: String) { rest = Substring(text) }

        /// The whole template.
        mutating func parseTemplate() throws(ParseError) -> [Node] {
            let (nodes, end) = try parseNodes(closing: nil, depth: 0)
            if let end { throw ParseError(problem: "has {{\(end)}} where no block is open", expected: "{{/name}} only after its {{#name …}}") }
            return nodes
        }

        /// What ended a list of nodes: the end of the text, `{{else …}}` or `{{/name}}`.
        private enum End {
            case close(String)
            case otherwise(String)
        }

        /// Nodes up to the end, `{{else}}` or a closing tag; `closing` is the block open.
        private mutating func parseNodes(closing: String?, depth: Int) throws(ParseError) -> ([Node], String?) {
            var nodes: [Node] = []
            while true {
                guard let open = rest.range(of: "{{") else {
                    if !rest.isEmpty { nodes.append(.text(String(rest))) }
                    rest = rest[rest.endIndex...]
                    if let closing { throw ParseError(problem: "opens {{#\(closing)}} without a closing {{/\(closing)}}", expected: "{{#\(closing) …}}…{{/\(closing)}}") }
                    return (nodes, nil)
                }
                var text = String(rest[..<open.lowerBound])
                var afterOpen = rest[open.upperBound...]
                // Comments: `{{!-- … --}}` and `{{! … }}`.
                if afterOpen.hasPrefix("!--") || afterOpen.hasPrefix("~!--") {
                    guard let end = afterOpen.range(of: "--}}") ?? afterOpen.range(of: "--~}}") else {
                        throw ParseError(problem: "has a comment {{!-- without its closing --}}", expected: "{{!-- comment --}}")
                    }
                    if !text.isEmpty { nodes.append(.text(text)) }
                    rest = afterOpen[end.upperBound...]
                    continue
                }
                if afterOpen.hasPrefix("!") || afterOpen.hasPrefix("~!") {
                    guard let end = afterOpen.range(of: "}}") else { throw ParseError(problem: "has a comment {{! without its closing }}", expected: "{{! comment }}") }
                    if !text.isEmpty { nodes.append(.text(text)) }
                    rest = afterOpen[end.upperBound...]
                    continue
                }
                let raw = afterOpen.hasPrefix("{")
                if raw { afterOpen = afterOpen.dropFirst() }
                let trimBefore = afterOpen.hasPrefix("~")
                if trimBefore { afterOpen = afterOpen.dropFirst() }
                let closer = raw ? "}}}" : "}}"
                guard let close = Self.closing(closer, in: afterOpen) else {
                    throw ParseError(problem: "has \"{{\" without a closing \"\(closer)\"", expected: "{{expression}}")
                }
                var inside = afterOpen[..<close.lowerBound]
                let trimAfter = inside.hasSuffix("~")
                if trimAfter { inside = inside.dropLast() }
                rest = afterOpen[close.upperBound...]
                if trimBefore { text = String(text.reversed().drop { $0.isWhitespace }.reversed()) }
                if trimAfter { rest = rest.drop { $0.isWhitespace } }
                if !text.isEmpty { nodes.append(.text(text)) }
                let source = inside.trimmingCharacters(in: .whitespacesAndNewlines)
                if source.hasPrefix("#") {
                    guard depth < Self.maximumDepth else { throw ParseError(problem: "nests blocks more than \(Self.maximumDepth) deep", expected: "fewer nested blocks") }
                    var (call, names) = try Self.call(String(source.dropFirst()).trimmingCharacters(in: .whitespaces), allowsNames: true)
                    call.source = source
                    let (body, end) = try parseNodes(closing: call.name, depth: depth + 1)
                    var inverse: [Node] = []
                    if let end, end != "/" { inverse = try self.inverse(after: end, closing: call.name, depth: depth + 1) }
                    nodes.append(.block(call, body: body, inverse: inverse, names: names))
                    continue
                }
                if source.hasPrefix("/") {
                    let name = source.dropFirst().trimmingCharacters(in: .whitespaces)
                    guard let closing else { throw ParseError(problem: "has {{/\(name)}} where no block is open", expected: "{{/name}} only after its {{#name …}}") }
                    guard name == closing else { throw ParseError(problem: "closes {{#\(closing)}} with {{/\(name)}}", expected: "{{/\(closing)}}") }
                    return (nodes, "/")
                }
                if source == "else" || source.hasPrefix("else ") || source == "^" {
                    guard closing != nil else { throw ParseError(problem: "has {{\(source)}} outside a block", expected: "{{else}} inside {{#if …}}…{{/if}} and other blocks") }
                    return (nodes, source == "^" ? "" : String(source.dropFirst(4)))
                }
                var (call, _) = try Self.call(source, allowsNames: false)
                call.source = source
                nodes.append(.expression(call, raw: raw))
            }
        }

        /// What follows `{{else}}` up to the block's close; `{{else if …}}` is a block of its own there.
        private mutating func inverse(after clause: String, closing: String, depth: Int) throws(ParseError) -> [Node] {
            guard depth < Self.maximumDepth else { throw ParseError(problem: "chains more than \(Self.maximumDepth) {{else …}}", expected: "fewer {{else if …}}") }
            let chained = clause.trimmingCharacters(in: .whitespaces)
            let (nodes, end) = try parseNodes(closing: closing, depth: depth + 1)
            if chained.isEmpty {
                guard end == "/" else { throw ParseError(problem: "has a second {{else}} in {{#\(closing)}}", expected: "one {{else}} per block") }
                return nodes
            }
            var (inner, _) = try Self.call(chained, allowsNames: false)
            inner.source = "else " + chained
            var innerInverse: [Node] = []
            if let end, end != "/" { innerInverse = try inverse(after: end, closing: closing, depth: depth + 1) }
            return [.block(inner, body: nodes, inverse: innerInverse, names: [])]
        }

        /// The closer outside quotes.
        private static func closing(_ closer: String, in text: Substring) -> Range<Substring.Index>? {
            var quote: Character?
            var index = text.startIndex
            while index < text.endIndex {
                let character = text[index]
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "'" || character == "\"" {
                    quote = character
                } else if text[index...].hasPrefix(closer) {
                    return index..<text.index(index, offsetBy: closer.count)
                }
                index = text.index(after: index)
            }
            // An unclosed quote: the first closer, for the quote's own message.
            return text.range(of: closer)
        }

        // MARK: Expressions

        private enum Token: Equatable {
            case open, close, equals
            case word(String)
            case quoted(String)
            case names([String])
        }

        /// A call and its block parameter names (`as |item index|`).
        static func call(_ source: String, allowsNames: Bool) throws(ParseError) -> (Call, [String]) {
            let tokens = try tokenize(source)
            guard !tokens.isEmpty else { throw ParseError(problem: "has an empty expression {{}}", expected: ResponseTemplate.variables) }
            var position = 0
            let call = try parseCall(tokens, &position, source: source, depth: 0)
            var names: [String] = []
            if position < tokens.count, case .names(let given) = tokens[position] {
                guard allowsNames else { throw ParseError(problem: "uses \"as |…|\" in {{\(source)}}", expected: "block parameters only on a block: {{#each list as |item|}}") }
                names = given
                position += 1
            }
            guard position == tokens.count else {
                throw ParseError(problem: "has an unexpected \")\" in {{\(source)}}", expected: "balanced parentheses: {{upper (lower 'A')}}")
            }
            return (call, names)
        }

        private static func parseCall(_ tokens: [Token], _ position: inout Int, source: String, depth: Int) throws(ParseError) -> Call {
            guard depth < 32 else { throw ParseError(problem: "nests ( ) more than 32 deep in {{\(source)}}", expected: "fewer nested helpers") }
            guard position < tokens.count, case .word(let name) = tokens[position] else {
                throw ParseError(problem: "uses {{\(source)}}, which does not start with a helper or a variable", expected: ResponseTemplate.variables)
            }
            position += 1
            var call = Call(name: name, params: [], hash: [], source: source)
            while position < tokens.count {
                let token = tokens[position]
                if token == .close || { if case .names = token { true } else { false } }() { break }
                // `key=value`
                if case .word(let key) = token, position + 1 < tokens.count, tokens[position + 1] == .equals {
                    position += 2
                    guard position < tokens.count else { throw ParseError(problem: "uses \"\(key)=\" without a value in {{\(source)}}", expected: "\(key)='…'") }
                    call.hash.append((key, try argument(tokens, &position, source: source, depth: depth)))
                    continue
                }
                guard call.hash.isEmpty else {
                    throw ParseError(problem: "has a value after key=value options in {{\(source)}}", expected: "values first, then options: {{helper value key='…'}}")
                }
                call.params.append(try argument(tokens, &position, source: source, depth: depth))
            }
            return call
        }

        private static func argument(_ tokens: [Token], _ position: inout Int, source: String, depth: Int) throws(ParseError) -> Argument {
            let token = tokens[position]
            position += 1
            switch token {
            case .quoted(let text): return .literal(.string(text))
            case .open:
                let inner = try parseCall(tokens, &position, source: source, depth: depth + 1)
                guard position < tokens.count, tokens[position] == .close else {
                    throw ParseError(problem: "has \"(\" without a closing \")\" in {{\(source)}}", expected: "(helper value…)")
                }
                position += 1
                return .call(inner)
            case .word(let word):
                switch word {
                case "true": return .literal(.bool(true))
                case "false": return .literal(.bool(false))
                case "null", "undefined": return .literal(.null)
                default:
                    if let first = word.first, first.isNumber || (first == "-" && word.count > 1), let number = Double(word) {
                        return .literal(word.contains(".") || word.contains("e") ? .number(number, text: word) : .number(number, text: word))
                    }
                    return .path(ResponseTemplate.path(word))
                }
            case .close, .equals, .names:
                throw ParseError(problem: "uses {{\(source)}}, which has a misplaced \"\(token == .equals ? "=" : token == .close ? ")" : "|")\"", expected: "{{helper value key='…'}}")
            }
        }

        private static func tokenize(_ source: String) throws(ParseError) -> [Token] {
            var tokens: [Token] = []
            var characters = Substring(source)
            func flush(_ word: inout String) {
                if !word.isEmpty { tokens.append(.word(word)) }
                word = ""
            }
            var word = ""
            while let character = characters.first {
                characters = characters.dropFirst()
                switch character {
                case "'", "\"":
                    flush(&word)
                    guard let end = characters.firstIndex(of: character) else {
                        throw ParseError(problem: "has an unclosed quote in {{\(source)}}", expected: "'text' or \"text\"")
                    }
                    tokens.append(.quoted(String(characters[..<end])))
                    characters = characters[characters.index(after: end)...]
                case "(":
                    flush(&word)
                    tokens.append(.open)
                case ")":
                    flush(&word)
                    tokens.append(.close)
                case "=" where !word.isEmpty && !word.contains("["):
                    flush(&word)
                    tokens.append(.equals)
                case "[":
                    // `[a b]` is one segment, spaces and all.
                    word.append(character)
                    guard let end = characters.firstIndex(of: "]") else { throw ParseError(problem: "has \"[\" without \"]\" in {{\(source)}}", expected: "request.path.[1]") }
                    word += characters[..<end] + "]"
                    characters = characters[characters.index(after: end)...]
                case "|" where word == "" && tokens.last == .word("as"):
                    tokens.removeLast()
                    guard let end = characters.firstIndex(of: "|") else { throw ParseError(problem: "has \"as |\" without a closing \"|\" in {{\(source)}}", expected: "as |item index|") }
                    let names = characters[..<end].split(separator: " ").map(String.init)
                    guard !names.isEmpty, names.count <= 2 else { throw ParseError(problem: "names \(names.count) block parameters in {{\(source)}}", expected: "as |item| or as |item index|") }
                    tokens.append(.names(names))
                    characters = characters[characters.index(after: end)...]
                default:
                    if character.isWhitespace { flush(&word) } else { word.append(character) }
                }
            }
            flush(&word)
            return tokens
        }
    }
}
