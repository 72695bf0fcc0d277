import AirlockBase

/// A place in a JSON body that a drift rule names — `$.id`, `$.items[*].price`, `$..updatedAt`,
/// `$['odd key'][0]` — parsed from the text a user gives (`--ignore`, `--compare-values`), and
/// matched against the place of each value a comparison visits.
///
/// A rule names a place and everything under it: `$.user` covers `$.user.id` too.
///
/// Syntax: `$` then steps — `.name`, `['name']` or `["name"]`, `.*` (any member), `[N]` (an
/// element), `[*]` (any element), and `..` before a step (at any depth below).
///
/// The place of a value is the definite steps down to it, `[JSONValue.Step]` (the steps response
/// templates' and WireMock's JSONPaths take), and a rule's definite steps are those too.
struct FieldRule: Hashable, Sendable, CustomStringConvertible {
    /// One step of a rule.
    enum Step: Hashable, Sendable {
        /// `.name`, `['name']` or `[N]`: that member or element.
        case exactly(JSONValue.Step)
        /// `.*`: any member.
        case anyMember
        /// `[*]`: any element.
        case anyElement
        /// Zero or more steps of any kind (`..`).
        case anyDepth
    }

    /// Why a rule's text is not a rule: what is wrong, at which character.
    struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        let text: String
        let offset: Int
        let problem: String
        var description: String {
            "\"\(text)\" is not a JSON path: \(problem) at character \(offset + 1); write it like $.id, $.items[*].price or $..updatedAt"
        }
    }

    let text: String
    let steps: [Step]

    /// Parses a rule.
    init(_ text: String) throws(ParseError) {
        self.text = text
        let characters = Array(text.unicodeScalars)
        func failure(_ at: Int, _ problem: String) -> ParseError { ParseError(text: text, offset: at, problem: problem) }
        guard characters.first == "$" else { throw failure(0, "it does not start with $") }
        var steps: [Step] = []
        var index = 1
        func name(from start: Int) -> (String, Int) {
            var end = start
            while end < characters.count, characters[end] != ".", characters[end] != "[" { end += 1 }
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: characters[start..<end])
            return (String(scalars), end)
        }
        while index < characters.count {
            switch characters[index] {
            case ".":
                index += 1
                if index < characters.count, characters[index] == "." {
                    // `..`: what follows may be at any depth below.
                    index += 1
                    guard index < characters.count else { throw failure(index - 2, ".. needs a step after it") }
                    guard characters[index] != "." else { throw failure(index, "three dots in a row") }
                    if steps.last != .anyDepth { steps.append(.anyDepth) }
                    if characters[index] == "[" { continue }
                } else if index < characters.count, characters[index] == "[" {
                    throw failure(index, "a dot before [")
                }
                if index < characters.count, characters[index] == "*" {
                    steps.append(.anyMember)
                    index += 1
                    continue
                }
                let (member, end) = name(from: index)
                guard !member.isEmpty else { throw failure(index, "a member name is missing after the dot") }
                steps.append(.exactly(.member(member)))
                index = end
            case "[":
                let start = index
                index += 1
                guard index < characters.count else { throw failure(start, "[ is not closed") }
                let quote = characters[index]
                if quote == "'" || quote == "\"" {
                    index += 1
                    var scalars = String.UnicodeScalarView()
                    while index < characters.count, characters[index] != quote {
                        scalars.append(characters[index])
                        index += 1
                    }
                    guard index + 1 < characters.count, characters[index + 1] == "]" else {
                        throw failure(start, "the quoted name is not closed with \(quote)]")
                    }
                    steps.append(.exactly(.member(String(scalars))))
                    index += 2
                } else if quote == "*" {
                    guard index + 1 < characters.count, characters[index + 1] == "]" else { throw failure(start, "[* is not closed with ]") }
                    steps.append(.anyElement)
                    index += 2
                } else {
                    var digits = ""
                    while index < characters.count, ("0"..."9").contains(characters[index]) {
                        digits.unicodeScalars.append(characters[index])
                        index += 1
                    }
                    guard !digits.isEmpty, digits.count <= 9, let position = Int(digits), index < characters.count, characters[index] == "]" else {
                        throw failure(start, "[ takes an index (0, 1, …), * or a quoted name")
                    }
                    steps.append(.exactly(.index(position)))
                    index += 1
                }
            default:
                throw failure(index, "\"\(characters[index])\" cannot start a step (use .name or [...])")
            }
        }
        self.steps = steps
    }

    var description: String { text }

    /// Whether the rule names `place` or a place above it.
    func covers(_ place: [JSONValue.Step]) -> Bool {
        // reachable[j]: the steps read so far match the first j places. One pass per step keeps
        // the work to steps × places, however many `..` a rule holds.
        var reachable = [Bool](repeating: false, count: place.count + 1)
        reachable[0] = true
        for step in steps {
            var next = [Bool](repeating: false, count: place.count + 1)
            switch step {
            case .anyDepth:
                var seen = false
                for position in 0...place.count {
                    seen = seen || reachable[position]
                    next[position] = seen
                }
            default:
                for position in 0..<place.count where reachable[position] && Self.step(step, matches: place[position]) {
                    next[position + 1] = true
                }
            }
            reachable = next
            if !reachable.contains(true) { return false }
        }
        return reachable.contains(true)
    }

    private static func step(_ step: Step, matches place: JSONValue.Step) -> Bool {
        switch (step, place) {
        case (.exactly(let definite), _): definite == place
        case (.anyMember, .member): true
        case (.anyElement, .index): true
        default: false
        }
    }

    /// `$.items[*].id`: a place as reports write it, every element position as `[*]` (a drift in
    /// one element is usually the drift of all).
    static func spelling(of place: [JSONValue.Step]) -> String {
        var text = "$"
        for step in place {
            switch step {
            case .member(let name):
                if !name.isEmpty, name.unicodeScalars.allSatisfy({ $0 == "_" || $0 == "-" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }) {
                    text += "." + name
                } else {
                    text += "['" + name + "']"
                }
            case .index: text += "[*]"
            }
        }
        return text
    }
}
