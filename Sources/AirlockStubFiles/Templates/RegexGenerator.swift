import Foundation

/// Makes text that a regular expression matches, for stubr's `{{anyRegex '…'}}`: literals,
/// escapes (`\d \w \s \D \W \S`, `\.` and the like), `.`, classes (`[a-z0-9_]`, `[^…]` over
/// printable ASCII), groups (`( )`, `(?: )`), alternation `|`, and the quantifiers `* + ? {n}
/// {n,} {n,m}` (an open-ended one repeats up to 8 more times). Anchors `^` `$` at the ends are
/// accepted and produce nothing. Back-references, look-arounds and other constructs are refused
/// by name when the template is parsed.
package struct RegexGenerator: Sendable {
    /// Why a pattern cannot be generated from.
    package struct Failure: Error, Sendable {
        /// What is wrong, naming the construct.
        package let problem: String
    }

    /// What the generator reads, for messages.
    package static let supported = "a regular expression of literals, escapes (\\d \\w \\s), ., classes [a-z], groups ( ), alternation | and quantifiers * + ? {n,m}"

    private indirect enum Node: Sendable {
        case characters([Character])
        case sequence([Node])
        case choice([Node])
        case repeated(Node, minimum: Int, maximum: Int)
    }

    private let root: Node
    /// How many times an open-ended quantifier may repeat beyond its minimum.
    private static let openEnded = 8
    /// The largest count a quantifier may give.
    private static let largestCount = 1000

    /// Reads a pattern.
    /// - Throws: ``Failure`` naming what the generator cannot make text for.
    package init(_ pattern: String) throws(Failure) {
        var parser = Parser(characters: Array(pattern))
        root = try parser.alternation(depth: 0)
        guard parser.position == parser.characters.count else {
            throw Failure(problem: "has an unmatched \")\" at position \(parser.position)")
        }
    }

    /// The most characters one generation makes (`(a{1000}){1000}` stops sooner).
    package static let maximumLength = 65_536

    /// A text the pattern matches (up to ``maximumLength`` characters).
    package func generate() -> String {
        var output = ""
        // Work, not only length: `(){1000}` nested makes nothing, a thousand times over.
        var budget = Self.maximumLength * 16
        Self.generate(root, into: &output, budget: &budget)
        return String(output.prefix(Self.maximumLength))
    }

    private static func generate(_ node: Node, into output: inout String, budget: inout Int) {
        guard budget > 0 else { return }
        budget -= 1
        switch node {
        case .characters(let choices):
            if let character = choices.randomElement() { output.append(character) }
        case .sequence(let nodes):
            for node in nodes { generate(node, into: &output, budget: &budget) }
        case .choice(let nodes):
            if let node = nodes.randomElement() { generate(node, into: &output, budget: &budget) }
        case .repeated(let node, let minimum, let maximum):
            for _ in 0..<Int.random(in: minimum...maximum) {
                guard budget > 0 else { return }
                budget -= 1
                generate(node, into: &output, budget: &budget)
            }
        }
    }

    private static let printable: [Character] = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }
    private static let digits = Array("0123456789")
    private static let word = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
    private static let spaces: [Character] = [" ", "\t"]

    private struct Parser {
        let characters: [Character]
        var position = 0

        init(characters: [Character]) { self.characters = characters }

        mutating func alternation(depth: Int) throws(Failure) -> Node {
            guard depth < 32 else { throw Failure(problem: "nests groups more than 32 deep") }
            var branches = [try sequence(depth: depth)]
            while position < characters.count, characters[position] == "|" {
                position += 1
                branches.append(try sequence(depth: depth))
            }
            return branches.count == 1 ? branches[0] : .choice(branches)
        }

        mutating func sequence(depth: Int) throws(Failure) -> Node {
            var nodes: [Node] = []
            while position < characters.count, characters[position] != "|", characters[position] != ")" {
                var atom = try self.atom(depth: depth)
                atom = try quantified(atom)
                nodes.append(atom)
            }
            return .sequence(nodes)
        }

        mutating func quantified(_ atom: Node) throws(Failure) -> Node {
            guard position < characters.count else { return atom }
            let (minimum, maximum): (Int, Int)
            switch characters[position] {
            case "*": (minimum, maximum) = (0, RegexGenerator.openEnded)
            case "+": (minimum, maximum) = (1, 1 + RegexGenerator.openEnded)
            case "?": (minimum, maximum) = (0, 1)
            case "{":
                guard let close = characters[position...].firstIndex(of: "}") else { throw Failure(problem: "has \"{\" without \"}\"") }
                let inside = String(characters[(position + 1)..<close])
                let parts = inside.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count <= 2, let low = Int(parts[0]), low >= 0, low <= RegexGenerator.largestCount else {
                    throw Failure(problem: "has the quantifier {\(inside)}, which is not {n}, {n,} or {n,m} with n up to \(RegexGenerator.largestCount)")
                }
                if parts.count == 1 {
                    (minimum, maximum) = (low, low)
                } else if parts[1].isEmpty {
                    (minimum, maximum) = (low, low + RegexGenerator.openEnded)
                } else {
                    guard let high = Int(parts[1]), high >= low, high <= RegexGenerator.largestCount else {
                        throw Failure(problem: "has the quantifier {\(inside)}, whose upper bound is below the lower one or above \(RegexGenerator.largestCount)")
                    }
                    (minimum, maximum) = (low, high)
                }
                position = close
            default:
                return atom
            }
            position += 1
            // A lazy or possessive mark changes nothing in what matches.
            if position < characters.count, characters[position] == "?" || characters[position] == "+" { position += 1 }
            if position < characters.count, "*+?{".contains(characters[position]) {
                throw Failure(problem: "has two quantifiers in a row at position \(position)")
            }
            return .repeated(atom, minimum: minimum, maximum: maximum)
        }

        mutating func atom(depth: Int) throws(Failure) -> Node {
            let character = characters[position]
            position += 1
            switch character {
            case "(":
                if position < characters.count, characters[position] == "?" {
                    guard position + 1 < characters.count, characters[position + 1] == ":" else {
                        throw Failure(problem: "has a look-around or named group \"(?\", which the generator does not make text for")
                    }
                    position += 2
                }
                let inner = try alternation(depth: depth + 1)
                guard position < characters.count, characters[position] == ")" else { throw Failure(problem: "has \"(\" without \")\"") }
                position += 1
                return inner
            case "[": return .characters(try characterClass())
            case ".": return .characters(RegexGenerator.printable)
            case "^", "$": return .sequence([])
            case "\\": return .characters(try escape(inClass: false))
            case "*", "+", "?", "{":
                throw Failure(problem: "has the quantifier \"\(character)\" with nothing before it at position \(position - 1)")
            default: return .characters([character])
            }
        }

        mutating func escape(inClass: Bool) throws(Failure) -> [Character] {
            guard position < characters.count else { throw Failure(problem: "ends with \"\\\"") }
            let character = characters[position]
            position += 1
            switch character {
            case "d": return RegexGenerator.digits
            case "w": return RegexGenerator.word
            case "s": return RegexGenerator.spaces
            case "D": return RegexGenerator.printable.filter { !$0.isNumber }
            case "W": return RegexGenerator.printable.filter { !RegexGenerator.word.contains($0) }
            case "S": return RegexGenerator.printable.filter { $0 != " " }
            case "t": return ["\t"]
            case "n": return ["\n"]
            case "r": return ["\r"]
            case "b" where !inClass, "B", "A", "z", "Z", "G":
                throw Failure(problem: "has the anchor \"\\\(character)\", which the generator does not make text for")
            default:
                if character.isNumber || character == "k" || character == "p" || character == "P" || character == "u" || character == "x" {
                    throw Failure(problem: "has \"\\\(character)\" (a back-reference, property or code point), which the generator does not make text for")
                }
                return [character]
            }
        }

        mutating func characterClass() throws(Failure) -> [Character] {
            var negated = false
            if position < characters.count, characters[position] == "^" {
                negated = true
                position += 1
            }
            var members: [Character] = []
            var first = true
            while true {
                guard position < characters.count else { throw Failure(problem: "has \"[\" without \"]\"") }
                let character = characters[position]
                if character == "]", !first { position += 1; break }
                first = false
                position += 1
                if character == "[" { throw Failure(problem: "has a nested class \"[[\", which the generator does not make text for") }
                var single: Character? = character
                if character == "\\" {
                    let escaped = try escape(inClass: true)
                    if escaped.count == 1 { single = escaped[0] } else { members += escaped; single = nil }
                }
                guard let low = single else { continue }
                if position + 1 < characters.count, characters[position] == "-", characters[position + 1] != "]" {
                    position += 1
                    var high = characters[position]
                    position += 1
                    if high == "\\" {
                        let escaped = try escape(inClass: true)
                        guard escaped.count == 1 else { throw Failure(problem: "has a range ending in a class escape") }
                        high = escaped[0]
                    }
                    guard let lowScalar = low.unicodeScalars.first?.value, let highScalar = high.unicodeScalars.first?.value, lowScalar <= highScalar, highScalar - lowScalar <= 0xFFFF else {
                        throw Failure(problem: "has the range \(low)-\(high), which is out of order")
                    }
                    members += (lowScalar...highScalar).compactMap { Unicode.Scalar($0).map(Character.init) }
                } else {
                    members.append(low)
                }
            }
            if negated {
                let excluded = Set(members)
                members = RegexGenerator.printable.filter { !excluded.contains($0) }
            }
            guard !members.isEmpty else { throw Failure(problem: "has a class that no character matches") }
            return members
        }
    }
}
