import AirlockBase
import AirlockCore
import Foundation

/// A response body or header that uses request values, with WireMock's response-templating
/// names, parsed once when the stub is loaded and rendered for each request.
///
/// | expression | gives |
/// |---|---|
/// | `{{request.method}}` | `POST` |
/// | `{{request.url}}` | the path and query, `/users/42?full=1` |
/// | `{{request.path}}` | the path, `/users/42` |
/// | `{{request.path.[1]}}`, `{{request.pathSegments.[1]}}` | a path segment, from 0: `42` |
/// | `{{request.query.name}}`, `{{request.query.name.[1]}}` | a query parameter's first (or n-th) value |
/// | `{{request.headers.X-Request-Id}}` | a header's value (names compare case-insensitively) |
/// | `{{request.body}}` | the body as text |
/// | `{{request.host}}`, `{{request.scheme}}`, `{{request.baseUrl}}` | `api.example.com`, `https`, `https://api.example.com` |
/// | `{{jsonPath request.body '$.user.name'}}` | a value of the JSON body (`$`, `.key`, `['key']`, `[index]`) |
/// | `{{now}}`, `{{now format='yyyy-MM-dd'}}`, `{{now format='epoch'}}` | the time, ISO 8601 by default |
/// | `{{randomValue type='UUID'}}`, `{{randomValue length=8 type='ALPHANUMERIC'}}` | random text (`UUID`, `ALPHANUMERIC`, `ALPHABETIC`, `NUMERIC`, `HEXADECIMAL`) |
///
/// A value that is missing (a query parameter the request lacks) renders as empty text.
package struct ResponseTemplate: Sendable {
    /// A problem found when parsing: what and where.
    package struct ParseError: Error, Sendable {
        /// What is wrong, naming the expression.
        package let problem: String
        /// What would be valid.
        package let expected: String
    }

    /// How inserted values are written.
    package enum Escaping: Sendable {
        /// As they are.
        case none
        /// As the content of a JSON string (quotes, backslashes and control characters escaped).
        case jsonString
        /// As Handlebars (WireMock's templates) writes `{{…}}`: ``&<>"'`=`` as HTML entities;
        /// `{{{…}}}` as they are.
        case html
    }

    private enum Segment: Sendable {
        case text(String)
        /// An expression; `raw` for `{{{…}}}`, which Handlebars never escapes.
        case expression(Expression, raw: Bool)
    }

    private enum Expression: Sendable {
        case value(RequestValue)
        case jsonPath(RequestValue, [JSONValue.Step])
        case now(format: String?, timeZone: TimeZone, offset: DateOffset?)
        case random(kind: RandomKind, length: Int)
        /// A helper applied to a request value or a quoted text: `{{upper request.method}}`.
        case transform(Transform, Operand)
    }

    /// What a helper works on.
    private enum Operand: Sendable {
        case value(RequestValue)
        case literal(String)
    }

    /// WireMock's string helpers that Airlock has.
    private enum Transform: Sendable {
        case lower, upper, size
        case base64(decode: Bool, padding: Bool)
        case urlEncode(decode: Bool)
    }

    /// `offset='3 days'`, `offset='-24 seconds'`: an amount of a calendar unit.
    private struct DateOffset: Sendable {
        let amount: Int
        let unit: Calendar.Component
    }

    private enum RequestValue: Sendable {
        case method, url, path, body, host, scheme, baseURL
        case pathSegment(Int)
        case query(String, Int)
        case header(String, Int)
    }

    private enum RandomKind: String, Sendable, CaseIterable {
        case uuid = "UUID"
        case alphanumeric = "ALPHANUMERIC"
        case alphabetic = "ALPHABETIC"
        case numeric = "NUMERIC"
        case hexadecimal = "HEXADECIMAL"
    }

    private let segments: [Segment]

    /// Whether the text uses any expression (a template without one renders as itself).
    package var isConstant: Bool {
        segments.allSatisfy { if case .text = $0 { true } else { false } }
    }

    /// Parses a template.
    /// - Parameters:
    ///   - text: The template.
    ///   - root: The name its request values start with: `request` in a response,
    ///     `originalRequest` in a webhook (WireMock's name for the request that triggered it).
    /// - Throws: ``ParseError`` naming the expression that is not valid.
    package init(_ text: String, root: String = "request") throws(ParseError) {
        var segments: [Segment] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { segments.append(.text(String(rest[..<open.lowerBound]))) }
            let triple = rest[open.upperBound...].hasPrefix("{")
            let bodyStart = triple ? rest.index(after: open.upperBound) : open.upperBound
            let closer = triple ? "}}}" : "}}"
            guard let close = rest[bodyStart...].range(of: closer) else {
                throw ParseError(problem: "has \"{{\" without a closing \"\(closer)\"", expected: "{{expression}}")
            }
            let source = rest[bodyStart..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            segments.append(.expression(try Self.expression(source, root: root), raw: triple))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { segments.append(.text(String(rest))) }
        self.segments = segments
    }

    /// The text for a request.
    package func render(_ request: RecordedRequest, escaping: Escaping = .none, now: Date = Date()) -> String {
        var output = ""
        for segment in segments {
            switch segment {
            case .text(let text):
                output += text
            case .expression(let expression, let raw):
                let value = Self.evaluate(expression, request, now: now)
                switch escaping {
                case .none: output += value
                case .jsonString: output += JSONValue.escapedContent(of: value)
                case .html: output += raw ? value : Self.htmlEscaped(value)
                }
            }
        }
        return output
    }

    // MARK: Parsing

    /// The variables, for messages.
    package static let variables = "request.method, request.url, request.path, request.path.[n], request.query.<name>, "
        + "request.headers.<name>, request.body, request.host, request.scheme, request.baseUrl, "
        + "jsonPath request.body '$.a.b', now [format='…'] [timezone='…'] [offset='3 days'], randomValue type='UUID'|'ALPHANUMERIC'|… [length=n], "
        + "lower/upper/size/base64/urlEncode <a variable or 'text'>"

    private static func expression(_ source: String, root: String) throws(ParseError) -> Expression {
        let words = try tokens(source)
        guard let head = words.first else {
            throw ParseError(problem: "has an empty expression {{}}", expected: variables)
        }
        switch head {
        case "jsonPath":
            guard words.count == 3, let path = unquoted(words[2]) else {
                throw ParseError(problem: "uses {{\(source)}}", expected: "{{jsonPath request.body '$.field'}}")
            }
            return .jsonPath(try requestValue(words[1], root: root, in: source), try jsonSteps(path, in: source))
        case "now":
            let options = try named(words.dropFirst(), allowed: ["format", "timezone", "offset"], in: source)
            var timeZone = TimeZone(identifier: "UTC")!
            if let name = options["timezone"] {
                guard let zone = TimeZone(identifier: name) else {
                    throw ParseError(problem: "uses timezone='\(name)' in {{\(source)}}", expected: "a time zone such as 'UTC' or 'Europe/Rome'")
                }
                timeZone = zone
            }
            var offset: DateOffset?
            if let text = options["offset"] { offset = try dateOffset(text, in: source) }
            return .now(format: options["format"], timeZone: timeZone, offset: offset)
        case "lower", "upper", "size", "base64", "urlEncode":
            guard words.count >= 2 else {
                throw ParseError(problem: "uses {{\(source)}} without a value", expected: "{{\(head) request.path}} or {{\(head) 'text'}}")
            }
            let operand: Operand
            if let literal = unquoted(words[1]) {
                operand = .literal(literal)
            } else {
                operand = .value(try requestValue(words[1], root: root, in: source))
            }
            let options = try named(words.dropFirst(2), allowed: head == "base64" ? ["decode", "padding"] : head == "urlEncode" ? ["decode"] : [], in: source)
            let transform: Transform
            switch head {
            case "lower": transform = .lower
            case "upper": transform = .upper
            case "size": transform = .size
            case "base64": transform = .base64(decode: options["decode"] == "true", padding: options["padding"] != "false")
            default: transform = .urlEncode(decode: options["decode"] == "true")
            }
            return .transform(transform, operand)
        case "randomValue":
            let options = try named(words.dropFirst(), allowed: ["type", "length", "uppercase"], in: source)
            let typeName = (options["type"] ?? "ALPHANUMERIC").uppercased()
            guard let kind = RandomKind(rawValue: typeName) else {
                throw ParseError(problem: "uses randomValue type='\(typeName)'", expected: RandomKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))
            }
            guard let length = Int(options["length"] ?? "36"), length > 0, length <= 4096 else {
                throw ParseError(problem: "uses randomValue length=\(options["length"] ?? "")", expected: "a length from 1 to 4096")
            }
            return .random(kind: kind, length: length)
        default:
            guard words.count == 1 else {
                throw ParseError(problem: "uses {{\(source)}}, which is not a template expression", expected: variables)
            }
            return .value(try requestValue(head, root: root, in: source))
        }
    }

    /// `'3 days'`, `'-24 seconds'`, `'1 months'`.
    private static func dateOffset(_ text: String, in source: String) throws(ParseError) -> DateOffset {
        let units: [String: Calendar.Component] = [
            "seconds": .second, "minutes": .minute, "hours": .hour, "days": .day, "weeks": .weekOfYear, "months": .month, "years": .year,
        ]
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 2, let amount = Int(parts[0]), let unit = units[parts[1]] ?? units[parts[1] + "s"] else {
            throw ParseError(problem: "uses offset='\(text)' in {{\(source)}}", expected: "an amount and a unit, such as '3 days' or '-24 seconds' (seconds, minutes, hours, days, weeks, months, years)")
        }
        return DateOffset(amount: amount, unit: unit)
    }

    /// Splits on spaces outside quotes; quotes are kept on quoted words.
    private static func tokens(_ source: String) throws(ParseError) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        for character in source {
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == " " {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        guard quote == nil else { throw ParseError(problem: "has an unclosed quote in {{\(source)}}", expected: "'text' or \"text\"") }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func unquoted(_ word: String) -> String? {
        guard word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first else { return nil }
        return String(word.dropFirst().dropLast())
    }

    private static func named(_ words: ArraySlice<String>, allowed: Set<String>, in source: String) throws(ParseError) -> [String: String] {
        var options: [String: String] = [:]
        for word in words {
            let parts = word.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, allowed.contains(String(parts[0])) else {
                let expected = allowed.isEmpty
                    ? "nothing after its value (only base64 takes decode= and padding=, urlEncode decode=)"
                    : allowed.sorted().map { "\($0)='…'" }.joined(separator: ", ")
                throw ParseError(problem: "uses \"\(word)\" in {{\(source)}}", expected: expected)
            }
            options[String(parts[0])] = unquoted(String(parts[1])) ?? String(parts[1])
        }
        return options
    }

    private static func requestValue(_ name: String, root: String, in source: String) throws(ParseError) -> RequestValue {
        let expected = root == "request" ? variables : variables.replacingOccurrences(of: "request.", with: "\(root).")
        let unknown = ParseError(problem: "uses {{\(source)}}: \"\(name)\" is not a template variable", expected: expected)
        var parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == root, parts.count >= 2 else { throw unknown }
        parts.removeFirst()
        func index(_ text: String) -> Int? {
            guard text.hasPrefix("["), text.hasSuffix("]") else { return nil }
            return Int(text.dropFirst().dropLast())
        }
        switch (parts[0], parts.count) {
        case ("method", 1): return .method
        case ("url", 1): return .url
        case ("path", 1): return .path
        case ("body", 1): return .body
        case ("host", 1): return .host
        case ("scheme", 1): return .scheme
        case ("baseUrl", 1): return .baseURL
        case ("path", 2), ("pathSegments", 2):
            guard let position = index(parts[1]), position >= 0 else { throw unknown }
            return .pathSegment(position)
        case ("query", 2), ("query", 3), ("headers", 2), ("headers", 3):
            // Header names carry dots rarely; query names may: `request.query.a.b` is `a.b` unless the last part is [n].
            var position = 0
            var nameParts = Array(parts.dropFirst())
            if let last = nameParts.last, let value = index(last) {
                position = value
                nameParts.removeLast()
            }
            let key = nameParts.joined(separator: ".")
            guard !key.isEmpty, position >= 0 else { throw unknown }
            return parts[0] == "query" ? .query(key, position) : .header(key, position)
        default:
            throw unknown
        }
    }

    /// `$.a.b[0]['c d']`: the definite steps alone. (WireMock's JSONPath patterns take the whole
    /// language — wildcards, filters, scans — in `AirlockWireMock`, which builds on this module;
    /// both walk the steps with ``JSONValue/value(following:)``.)
    private static func jsonSteps(_ path: String, in source: String) throws(ParseError) -> [JSONValue.Step] {
        let invalid = ParseError(problem: "uses the JSON path \"\(path)\" in {{\(source)}}", expected: "a path such as '$.user.name', '$.items[0].id' or \"$['a key']\"")
        guard path.hasPrefix("$") else { throw invalid }
        var steps: [JSONValue.Step] = []
        var rest = path.dropFirst()
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let key = rest.prefix { $0 != "." && $0 != "[" }
                guard !key.isEmpty else { throw invalid }
                steps.append(.member(String(key)))
                rest = rest.dropFirst(key.count)
            } else if first == "[" {
                guard let close = rest.firstIndex(of: "]") else { throw invalid }
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                if let position = Int(inside), position >= 0 {
                    steps.append(.index(position))
                } else if let key = unquoted(String(inside)) {
                    steps.append(.member(key))
                } else {
                    throw invalid
                }
                rest = rest[rest.index(after: close)...]
            } else {
                throw invalid
            }
        }
        return steps
    }

    // MARK: Rendering

    private static func evaluate(_ expression: Expression, _ request: RecordedRequest, now: Date) -> String {
        switch expression {
        case .value(let value):
            return text(of: value, request)
        case .jsonPath(let value, let steps):
            guard let document = try? JSONValue.parseKeepingNumberText(Data(text(of: value, request).utf8)),
                let node = document.value.value(following: steps)
            else { return "" }
            // Indices are not negative here: each step is the value's path component.
            let path = steps.map { step in
                switch step {
                case .member(let name): name
                case .index(let position): String(position)
                }
            }
            return describe(node, at: path, numberTexts: document.numberTexts)
        case .now(let format, let timeZone, let offset):
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let date = offset.flatMap { calendar.date(byAdding: $0.unit, value: $0.amount, to: now) } ?? now
            switch format {
            case nil:
                guard timeZone.secondsFromGMT(for: date) != 0 else { return Timestamp.string(from: date) }
                let formatter = ISO8601DateFormatter()
                formatter.timeZone = timeZone
                formatter.formatOptions = [.withInternetDateTime]
                return formatter.string(from: date)
            case "epoch":
                return String(Int64(date.timeIntervalSince1970 * 1000))
            case "unix":
                return String(Int64(date.timeIntervalSince1970))
            case let pattern?:
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = timeZone
                formatter.dateFormat = pattern
                return formatter.string(from: date)
            }
        case .transform(let transform, let operand):
            let input: String
            switch operand {
            case .value(let value): input = text(of: value, request)
            case .literal(let literal): input = literal
            }
            switch transform {
            case .lower: return input.lowercased()
            case .upper: return input.uppercased()
            case .size: return String(input.count)
            case .base64(let decode, let padding):
                if decode {
                    var padded = input
                    while padded.count % 4 != 0 { padded += "=" }
                    return Data(base64Encoded: padded).map { String(decoding: $0, as: UTF8.self) } ?? ""
                }
                let encoded = Data(input.utf8).base64EncodedString()
                return padding ? encoded : String(encoded.prefix { $0 != "=" })
            case .urlEncode(let decode):
                if decode { return input.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? input }
                // As Java's URLEncoder (WireMock's): letters, digits and `.-*_` stay, a space is `+`.
                var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
                allowed.insert(charactersIn: ".-*_ ")
                return (input.addingPercentEncoding(withAllowedCharacters: allowed) ?? input).replacingOccurrences(of: " ", with: "+")
            }
        case .random(let kind, let length):
            let alphabet: [Character]
            switch kind {
            case .uuid: return UUID().uuidString.lowercased()
            case .alphanumeric: alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            case .alphabetic: alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
            case .numeric: alphabet = Array("0123456789")
            case .hexadecimal: alphabet = Array("0123456789abcdef")
            }
            return String((0..<length).map { _ in alphabet.randomElement()! })
        }
    }

    private static func text(of value: RequestValue, _ request: RecordedRequest) -> String {
        switch value {
        case .method: return request.method
        case .url:
            let query = request.url.firstIndex(of: "?").map { String(request.url[$0...].prefix { $0 != "#" }) } ?? ""
            return request.path + query
        case .path: return request.path
        case .body: return request.bodyText ?? ""
        case .host: return request.host
        case .scheme: return request.url.lowercased().hasPrefix("https:") ? "https" : "http"
        case .baseURL:
            guard let scheme = request.url.range(of: "://") else { return "" }
            let authorityEnd = request.url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? request.url.endIndex
            return String(request.url[..<authorityEnd])
        case .pathSegment(let position):
            let segments = request.pathSegments
            return segments.indices.contains(position) ? segments[position] : ""
        case .query(let name, let position):
            let values = request.queryItems.filter { $0.name == name }.map { $0.value ?? "" }
            return values.indices.contains(position) ? values[position] : ""
        case .header(let name, let position):
            let values = request.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
            return values.indices.contains(position) ? values[position] : ""
        }
    }

    /// A value found in the body as text: a string as itself, a number as the body spells it
    /// (`1.50`, `1e3`, `12345678901234567890`, never rounded through a `Double`), `true`,
    /// `false`, `null`, and an object or array as compact JSON in the body's order.
    private static func describe(_ node: JSONValue, at path: [String], numberTexts: [[String]: String]) -> String {
        if case .string(let text) = node { return text }
        let data = try? node.compactData(numberTexts: numberTexts, at: path)
        return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// `text` as Handlebars escapes an expression's value.
    static func htmlEscaped(_ text: String) -> String {
        guard text.contains(where: { "&<>\"'`=".contains($0) }) else { return text }
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#x27;"
            case "`": output += "&#x60;"
            case "=": output += "&#x3D;"
            default: output.append(character)
            }
        }
        return output
    }
}
