import AirlockBase
import AirlockCore
import Foundation

/// A response body or header that uses request values, with WireMock's response-templating
/// names and Handlebars' syntax, parsed once when the stub is loaded and rendered for each request.
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
/// | `{{jsonPath request.body '$.user.name'}}` | a value of the JSON body |
/// | `{{#if …}}…{{else}}…{{/if}}`, `{{#each …}}`, `{{#with …}}`, `{{#unless …}}` | blocks |
/// | `{{upper (jsonPath request.body '$.name')}}` | helpers, nested in `( )` |
///
/// Every helper is named in ``ResponseTemplate/helperNames``. A value that is missing (a query
/// parameter the request lacks) renders as empty text.
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

    /// A piece of a template.
    indirect enum Node: Sendable {
        case text(String)
        /// `{{…}}`; `raw` for `{{{…}}}`, which Handlebars never escapes.
        case expression(Call, raw: Bool)
        /// `{{#name …}}body{{else}}inverse{{/name}}`, with `as |item index|` names.
        case block(Call, body: [Node], inverse: [Node], names: [String])
    }

    /// A helper call or a value: `name params… key=value…`.
    struct Call: Sendable {
        var name: String
        var params: [Argument]
        var hash: [(key: String, value: Argument)]
        /// The expression as written, for messages.
        var source: String

        func option(_ key: String) -> Argument? { hash.first { $0.key == key }?.value }
    }

    /// A parameter: a literal, a path (`request.query.id`, `this`, `@index`) or `(helper …)`.
    indirect enum Argument: Sendable {
        case literal(TemplateValue)
        case path([String])
        case call(Call)

        var literalText: String? {
            if case .literal(let value) = self { return value.text }
            return nil
        }
    }

    let nodes: [Node]

    /// Whether the template renders as its own text: no expression, comment or `~` in it.
    package let isConstant: Bool

    /// Parses a template.
    /// - Parameters:
    ///   - text: The template.
    ///   - root: The name its request values start with: `request` in a response,
    ///     `originalRequest` in a webhook (WireMock's name for the request that triggered it).
    /// - Throws: ``ParseError`` naming the expression that is not valid.
    package init(_ text: String, root: String = "request") throws(ParseError) {
        var parser = Parser(text: text)
        let parsed = try parser.parseTemplate()
        if root == "request" {
            nodes = parsed
            try Self.check(nodes, assigned: Self.assignedNames(nodes), inBlock: false)
        } else {
            // The request's values under another name: the paths are renamed once, here, and a
            // path from `request` is not a variable there.
            nodes = try Self.renaming(parsed, root: root)
            do {
                try Self.check(nodes, assigned: Self.assignedNames(nodes), inBlock: false)
            } catch {
                throw ParseError(
                    problem: error.problem.replacingOccurrences(of: "\"request.", with: "\"\(root)."),
                    expected: error.expected.replacingOccurrences(of: "request.", with: "\(root).")
                )
            }
        }
        var constant = ""
        for node in nodes {
            guard case .text(let piece) = node else { break }
            constant += piece
        }
        isConstant = nodes.allSatisfy { if case .text = $0 { true } else { false } } && constant == text
    }

    /// The text for a request.
    /// - Parameters:
    ///   - request: The request the response answers.
    ///   - escaping: How inserted values are written.
    ///   - now: The time `now` gives.
    ///   - parameters: The `parameters` root (WireMock's `transformerParameters`).
    package func render(_ request: RecordedRequest, escaping: Escaping = .none, now: Date = Date(), parameters: JSONValue? = nil) -> String {
        var scope = Scope(request: request, now: now, escaping: escaping, parameters: parameters.map { TemplateValue.json($0) } ?? .null)
        return scope.render(nodes)
    }

    // MARK: Checking

    /// The variables, for messages.
    package static let variables = "request.method, request.url, request.path, request.path.[n], request.pathSegments.[n], request.query.<name>, "
        + "request.headers.<name>, request.cookies.<name>, request.body, request.bodyAsBase64, request.host, request.port, request.scheme, request.baseUrl, "
        + "parameters.<name>, or a helper such as jsonPath request.body '$.a.b', now [format='…'] [timezone='…'] [offset='3 days'], randomValue type='UUID' [length=n], "
        + "upper/lower/trim/base64/urlEncode <a variable or 'text'>, or another helper of the template reference (StubFiles, \"Templates\")"

    /// Roots a path may start from anywhere.
    static let roots: Set<String> = ["request", "parameters", "this", "."]

    /// Names that `assign`, `parseJson`, `formData`, `regexExtract` and block parameters give.
    private static func assignedNames(_ nodes: [Node]) -> Set<String> {
        var names: Set<String> = []
        func visit(_ call: Call) {
            if ["assign", "parseJson", "formData", "regexExtract"].contains(call.name), let name = call.params.last?.literalText, call.params.count >= (call.name == "assign" ? 1 : 2) {
                names.insert(name)
            }
            if call.name == "val", let name = call.option("assign")?.literalText { names.insert(name) }
            for argument in call.params + call.hash.map(\.value) {
                if case .call(let inner) = argument { visit(inner) }
            }
        }
        for node in nodes {
            switch node {
            case .text: break
            case .expression(let call, _): visit(call)
            case .block(let call, let body, let inverse, let blockNames):
                visit(call)
                names.formUnion(blockNames)
                names.formUnion(assignedNames(body))
                names.formUnion(assignedNames(inverse))
            }
        }
        return names
    }

    /// The nodes with the paths from `root` made paths from `request`; a path from `request`
    /// is refused, naming `root`.
    private static func renaming(_ nodes: [Node], root: String) throws(ParseError) -> [Node] {
        func renamed(_ name: String, source: String) throws(ParseError) -> String {
            if name == "request" || name.hasPrefix("request.") || name.hasPrefix("request.[") {
                throw ParseError(
                    problem: "uses {{\(source)}}: \"\(name)\" is not a template variable here",
                    expected: "\(root).… for the request that triggered it (" + variables.replacingOccurrences(of: "request.", with: "\(root).") + ")"
                )
            }
            if name == root { return "request" }
            if name.hasPrefix(root + ".") { return "request" + name.dropFirst(root.count) }
            return name
        }
        func renamed(_ call: Call) throws(ParseError) -> Call {
            var call = call
            if call.params.isEmpty && call.hash.isEmpty && !Helper.known(call.name) {
                call.name = try renamed(call.name, source: call.source)
            }
            var params: [Argument] = []
            for argument in call.params { params.append(try renamed(argument, source: call.source)) }
            call.params = params
            var hash: [(key: String, value: Argument)] = []
            for (key, value) in call.hash { hash.append((key, try renamed(value, source: call.source))) }
            call.hash = hash
            return call
        }
        func renamed(_ argument: Argument, source: String) throws(ParseError) -> Argument {
            switch argument {
            case .literal: return argument
            case .path(let segments):
                guard let first = segments.first else { return argument }
                if first == "request" { _ = try renamed("request", source: source) }
                return .path(first == root ? ["request"] + segments.dropFirst() : segments)
            case .call(let inner): return .call(try renamed(inner))
            }
        }
        var result: [Node] = []
        for node in nodes {
            switch node {
            case .text: result.append(node)
            case .expression(let call, let raw): result.append(.expression(try renamed(call), raw: raw))
            case .block(let call, let body, let inverse, let names):
                result.append(.block(try renamed(call), body: try renaming(body, root: root), inverse: try renaming(inverse, root: root), names: names))
            }
        }
        return result
    }

    /// Checks each call's helper and arguments, and each path's root outside blocks.
    private static func check(_ nodes: [Node], assigned: Set<String>, inBlock: Bool) throws(ParseError) {
        for node in nodes {
            switch node {
            case .text: break
            case .expression(let call, _):
                try check(call, assigned: assigned, inBlock: inBlock, asBlock: false)
            case .block(let call, let body, let inverse, _):
                try check(call, assigned: assigned, inBlock: inBlock, asBlock: true)
                let opensContext = ["each", "with"].contains(call.name) || !Helper.known(call.name)
                try check(body, assigned: assigned, inBlock: inBlock || opensContext)
                try check(inverse, assigned: assigned, inBlock: inBlock)
            }
        }
    }

    private static func check(_ call: Call, assigned: Set<String>, inBlock: Bool, asBlock: Bool) throws(ParseError) {
        if let (problem, instead) = Helper.refusal(call.name) {
            throw ParseError(problem: "uses {{\(call.source)}}: \(call.name) \(problem)", expected: instead)
        }
        if Helper.known(call.name) {
            try Helper.check(call, asBlock: asBlock)
        } else if !call.params.isEmpty || !call.hash.isEmpty {
            let suggestion = KnownFields.nearest(call.name, in: Set(Helper.all)).map { "; did you mean \"\($0)\"?" } ?? ""
            throw ParseError(problem: "uses {{\(call.source)}}: \"\(call.name)\" is not a helper\(suggestion)", expected: "a helper: " + helperNames)
        } else {
            try checkPath(path(call.name), source: call.source, assigned: assigned, inBlock: inBlock)
        }
        for argument in call.params + call.hash.map(\.value) {
            switch argument {
            case .literal: break
            case .path(let segments): try checkPath(segments, source: call.source, assigned: assigned, inBlock: inBlock)
            case .call(let inner): try check(inner, assigned: assigned, inBlock: inBlock, asBlock: false)
            }
        }
    }

    private static func checkPath(_ segments: [String], source: String, assigned: Set<String>, inBlock: Bool) throws(ParseError) {
        guard let root = segments.first else { return }
        let unknown = ParseError(problem: "uses {{\(source)}}: \"\(segments.joined(separator: "."))\" is not a template variable", expected: variables)
        if root == "request" {
            guard segments.count >= 2, RequestModel.fields.contains(segments[1]) else { throw unknown }
            return
        }
        if roots.contains(root) || assigned.contains(root) || inBlock || root.hasPrefix("@") || root == ".." { return }
        throw unknown
    }

    /// `request.path.[1]` → `["request", "path", "[1]"]`; `../name` → `["..", "name"]`.
    static func path(_ text: String) -> [String] {
        var segments: [String] = []
        var rest = Substring(text)
        while rest.hasPrefix("../") {
            segments.append("..")
            rest = rest.dropFirst(3)
        }
        var current = ""
        var bracket = false
        for character in rest {
            if bracket {
                current.append(character)
                if character == "]" { bracket = false }
            } else if character == "[" {
                bracket = true
                current.append(character)
            } else if character == "." || character == "/" {
                if !current.isEmpty { segments.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { segments.append(current) }
        if segments.isEmpty, text == "." { return ["this"] }
        return segments
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
