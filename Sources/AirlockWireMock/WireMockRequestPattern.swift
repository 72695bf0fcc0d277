import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
import Foundation

/// The `request` object of a WireMock mapping — also the body of WireMock's
/// `POST /__admin/requests/count`, `/requests/find` and `/near-misses/request` — read in one
/// pass and split into what the registry indexes (``method``, ``pathPattern``) and everything
/// else (``matcher``).
///
/// ```swift
/// let document = try JSONNode.parse(Data(#"{"method": "POST", "urlPath": "/users", "headers": {"Content-Type": {"contains": "json"}}}"#.utf8), source: "mappings/users.json", expected: "a WireMock request")
/// let pattern = try WireMockRequestPattern(document)
/// pattern.method        // "POST"
/// pattern.pathPattern   // "/users"
/// pattern.matcher?.description
/// // method POST and urlPath /users and header Content-Type contains "json"
/// ```
///
/// Matching follows WireMock: the url fields compare the path (and query) as sent,
/// percent-encoded; regular expressions must match the whole value; header names compare
/// case-insensitively; a header, query parameter or cookie sent several times matches when any
/// of its values does; `absent` matches when the field is not sent. Fields and operators
/// Airlock does not read (`customMatcher`, unknown keys; the XML matchers while no XML engine is
/// installed) are errors naming their JSON path, never ignored.
package struct WireMockRequestPattern: Sendable {
    /// The method required, uppercased; nil for "ANY", for `oneOf`/`noneOf` (the matcher checks
    /// those) or when absent.
    package let method: String?
    /// A path pattern in Airlock's ``PathPattern`` syntax that every request this pattern
    /// matches fits, for the registry's trie: the exact path for `url`/`urlPath` (when the
    /// literal path holds no character that is special in a path pattern or percent-encoded —
    /// otherwise `/**`), `/users/*` for `urlPathTemplate` `/users/{id}`, `/**` for
    /// `urlPattern`/`urlPathPattern` or no url field.
    package let pathPattern: String
    /// Every other rule (the method, the url field's own rule, query parameters, headers,
    /// cookies, form parameters, body patterns, basic auth, host, port, scheme) as one matcher
    /// whose mismatches name each failed rule in WireMock's words; nil when ``pathPattern``
    /// alone decides.
    package let matcher: RequestMatcher?
    /// Every rule, the url field's included, for matching and distances.
    private let rules: [WireMockRule]
    private let compiledPath: PathPattern

    /// The fields of a request object Airlock reads.
    static let fields: Set<String> = Set(WireMockURLPattern.fieldNames).union([
        "method", "pathParameters", "queryParameters", "headers", "cookies", "formParameters", "bodyPatterns",
        "basicAuthCredentials", "basicAuth", "host", "port", "scheme", "clientIp", "multipartPatterns",
    ])

    /// WireMock's request fields Airlock refuses, with what to do instead.
    static let refusedFields: [String: String] = [
        "customMatcher": "a mapping without \"customMatcher\" (extensions do not run in Airlock; use the built-in matchers)",
    ]

    /// Reads and checks a request object; a field or operator Airlock does not support throws
    /// an error naming its JSON path and what to do.
    /// - Parameter node: The `request` object.
    package init(_ node: JSONNode) throws(StubFileError) {
        let fields = try Self.checkedFields(node)
        let url = try WireMockURLPattern.decode(fields)
        var rules: [WireMockRule] = []
        var method: String?
        if let field = fields["method"] {
            let (name, rule) = try Self.method(field)
            method = name
            rules += rule.map { [$0] } ?? []
        }
        var decides = true
        var pathPattern = "/**"
        if let url {
            (pathPattern, decides) = url.pathPattern
            rules.append(WireMockRule(part: .url, template: url.template, verdict: url.verdict, actual: url.actual))
        }
        rules += try Self.pathParameters(fields, url: url)
        rules += try Self.address(fields)
        rules += try Self.namedValues(fields)
        if let field = fields["bodyPatterns"] {
            for item in try field.array(of: "body patterns") {
                let pattern = try WireMockBodyPattern.decode(item)
                rules.append(WireMockRule(part: .body, template: pattern.template, verdict: pattern.verdict, actual: pattern.actual))
            }
        }
        if let field = fields["multipartPatterns"] {
            rules += try WireMockMultipartPattern.rules(field)
        }
        do {
            compiledPath = try PathPattern(pathPattern)
        } catch {
            // The url fields only give literal paths that are valid patterns; this is a safety net.
            compiledPath = try! PathPattern("/**")
            pathPattern = "/**"
            decides = false
        }
        self.method = method
        self.pathPattern = pathPattern
        self.rules = rules
        let others = rules.filter { $0.part != .url || !decides }
        let ruleSet = rules
        matcher = others.isEmpty
            ? nil
            : RequestMatcher(description: rules.map(\.template).joined(separator: " and ")) { request in
                let view = WireMockRequestView(request)
                return ruleSet.compactMap { $0.mismatch(view) }
            }
    }

    /// The object's fields, with refused and unknown ones named.
    private static func checkedFields(_ node: JSONNode) throws(StubFileError) -> JSONObject {
        guard case .object(let members) = node.value else { throw node.mismatch(expected: "a JSON object for a WireMock request") }
        for key in members.keys.sorted() where !fields.contains(key) {
            let location = node.path.appending(key).description
            if let instead = refusedFields[key] {
                throw StubFileError(.unsupported, file: node.source, location: location, problem: "is not supported by Airlock", expected: instead)
            }
            let suggestion = KnownFields.nearest(key, in: fields).map { "; did you mean \"\($0)\"?" } ?? ""
            throw StubFileError(
                .unknownField,
                file: node.source,
                location: location,
                problem: "is not a field of a WireMock request\(suggestion)",
                expected: "one of " + fields.subtracting(["basicAuth"]).sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            )
        }
        let object = try node.object("a WireMock request", fields: fields)
        if object["basicAuth"] != nil, object["basicAuthCredentials"] != nil {
            throw object.error(.conflictingFields, at: "basicAuth", "is given beside \"basicAuthCredentials\"", expected: "only one of them")
        }
        return object
    }

    /// `"POST"`, `"ANY"`, `{"oneOf": ["GET", "HEAD"]}` or `{"noneOf": [...]}`.
    private static func method(_ node: JSONNode) throws(StubFileError) -> (String?, WireMockRule?) {
        if case .string(let text) = node.value {
            let name = text.uppercased()
            guard !name.isEmpty else { throw node.error(.invalidValue, "is empty", expected: "a method such as \"GET\", or \"ANY\"") }
            guard name != "ANY" else { return (nil, nil) }
            let rule = WireMockRule(
                part: .method,
                template: "method \(name)",
                verdict: { WireMockVerdict($0.request.method == name) },
                actual: { "was \($0.request.method)" }
            )
            return (name, rule)
        }
        guard case .object(let members) = node.value, let key = ["oneOf", "noneOf"].first(where: { members[$0] != nil }) else {
            throw node.mismatch(expected: "a method such as \"GET\", \"ANY\", or {\"oneOf\": [...]} / {\"noneOf\": [...]}")
        }
        let list = try node.object("a method pattern", fields: [key]).required(key)
        var listed: [String] = []
        for item in try list.array(of: "methods") { listed.append(try item.string().uppercased()) }
        let names = listed
        let isOneOf = key == "oneOf"
        let rule = WireMockRule(
            part: .method,
            template: "method \(key) [\(names.joined(separator: ", "))]",
            verdict: { WireMockVerdict(names.contains($0.request.method) == isOneOf) },
            actual: { "was \($0.request.method)" }
        )
        return (nil, rule)
    }

    /// `pathParameters`: matchers for the variables of `urlPathTemplate`.
    private static func pathParameters(_ fields: JSONObject, url: WireMockURLPattern?) throws(StubFileError) -> [WireMockRule] {
        guard let field = fields["pathParameters"] else { return [] }
        guard case .urlPathTemplate(let template) = url else {
            throw field.error(.missingField, "is given without \"urlPathTemplate\"", expected: "a \"urlPathTemplate\" such as \"/users/{id}\" naming the parameters")
        }
        var rules: [WireMockRule] = []
        for (name, node) in try field.members("an object of path parameter names and matchers") {
            guard template.variables.contains(name) else {
                throw node.error(.invalidValue, "is not a variable of \"\(template.source)\"", expected: "one of " + template.variables.map { "\"\($0)\"" }.joined(separator: ", "))
            }
            let pattern = try WireMockValuePattern.decode(node)
            rules.append(
                .values(.pathParameters, label: "pathParameter \(name)", .single(pattern), mark: .none) { request in
                    template.values(in: request.rawPath)?[name].map { [$0] }
                }
            )
        }
        return rules
    }

    /// `scheme`, `host`, `port` and `clientIp`.
    private static func address(_ fields: JSONObject) throws(StubFileError) -> [WireMockRule] {
        var rules: [WireMockRule] = []
        if let field = fields["scheme"] {
            let scheme = try field.string().lowercased()
            guard scheme == "http" || scheme == "https" else { throw field.error(.invalidValue, "is \"\(scheme)\"", expected: "\"http\" or \"https\"") }
            rules.append(WireMockRule(part: .scheme, template: "scheme \(scheme)", verdict: { WireMockVerdict($0.scheme == scheme) }, actual: { "was \($0.scheme)" }))
        }
        if let field = fields["host"] {
            let pattern = try WireMockValuePattern.decode(field)
            rules.append(.values(.host, label: "host", .single(pattern), mark: .none) { [$0.request.host] })
        }
        if let field = fields["port"] {
            let port = try field.integer()
            guard (1...65535).contains(port) else { throw field.error(.invalidValue, "is \(port)", expected: "a port from 1 to 65535") }
            rules.append(
                WireMockRule(
                    part: .port,
                    template: "port \(port)",
                    verdict: { WireMockVerdict($0.port == port) },
                    actual: { $0.port.map { "was \($0)" } ?? "none" }
                )
            )
        }
        if let field = fields["clientIp"] {
            let pattern = try WireMockValuePattern.decode(field)
            rules.append(.values(.clientIp, label: "clientIp", .single(pattern), mark: .none) { $0.clientIP.map { [$0] } })
        }
        return rules
    }

    /// `queryParameters`, `headers`, `basicAuthCredentials`, `cookies` and `formParameters`.
    private static func namedValues(_ fields: JSONObject) throws(StubFileError) -> [WireMockRule] {
        var rules: [WireMockRule] = []
        if let field = fields["queryParameters"] {
            for (name, node) in try field.members("an object of query parameter names and matchers") {
                rules.append(.values(.query, label: "queryParameter \(name)", try WireMockMultiValuePattern.decode(node), mark: .field(name)) { $0.queryValues(name) })
            }
        }
        if let field = fields["headers"] {
            for (name, node) in try field.members("an object of header names and matchers") {
                rules.append(.values(.headers, label: "header \(name)", try WireMockMultiValuePattern.decode(node), mark: .header(name)) { $0.headerValues(name) })
            }
        }
        if let field = fields["basicAuthCredentials"] ?? fields["basicAuth"] {
            rules.append(try basicAuth(field))
        }
        if let field = fields["cookies"] {
            for (name, node) in try field.members("an object of cookie names and matchers") {
                let pattern = try WireMockValuePattern.decode(node)
                let rule = WireMockRule.values(.cookies, label: "cookie \(name)", .single(pattern), mark: .header("Cookie")) { $0.cookies[name] }
                // WireMock: a cookie not sent satisfies `absent` and nothing else (not even a negation).
                let requiresAbsence = if case .absent = pattern { true } else { false }
                rules.append(
                    WireMockRule(part: .cookies, template: rule.template, verdict: { request in
                        request.cookies[name] == nil ? WireMockVerdict(requiresAbsence) : rule.verdict(request)
                    }, actual: rule.actual)
                )
            }
        }
        if let field = fields["formParameters"] {
            for (name, node) in try field.members("an object of form field names and matchers") {
                rules.append(.values(.form, label: "formParameter \(name)", try WireMockMultiValuePattern.decode(node), mark: .field(name)) { $0.formFields[name] })
            }
        }
        return rules
    }

    /// `{"username": …, "password": …}`: an `Authorization: Basic …` header with those credentials
    /// (the scheme's name in any case), as WireMock checks it.
    private static func basicAuth(_ node: JSONNode) throws(StubFileError) -> WireMockRule {
        let credentials = try node.object("basic auth credentials", fields: ["username", "password"])
        let username = try credentials.required("username").string()
        let password = try credentials.required("password").string()
        let encoded = Data("\(username):\(password)".utf8).base64EncodedString()
        let expected = "Basic " + encoded
        let mark = WireMockMarker.header("Authorization")
        return WireMockRule(
            part: .headers,
            template: "basicAuth \(mark("\(username):\(password)"))",
            verdict: { request in
                WireMockVerdict.best((request.headerValues("Authorization")?.map(Optional.some) ?? [nil]).map { value in
                    guard let value else { return .miss }
                    let matched = value.count >= 6 && value.prefix(6).lowercased() == "basic " && value.dropFirst(6) == encoded
                    return WireMockVerdict(matched: matched, distance: TextDistance.normalised(expected, value))
                })
            },
            actual: { WireMockRule.shown($0.headerValues("Authorization"), mark) }
        )
    }

    /// Whether a recorded request matches: its path fits ``pathPattern`` and ``matcher`` accepts
    /// it (for `requests/count` and `requests/find`).
    package func matches(_ request: RecordedRequest) -> Bool {
        compiledPath.matches(request.path) && (matcher?.matches(request) ?? true)
    }

    /// WireMock's near-miss distance: 0 for a match, up to 1. The address rules (scheme 3,
    /// host 10, port 10, url 10, method 3) count first; only when they all hold do the other
    /// parts (path parameters, headers with basic auth, query, form, cookies, body — each the
    /// mean of its rules) count, with weight 1 each, as WireMock weighs them.
    package func distance(to request: RecordedRequest) -> Double {
        guard !matches(request) else { return 0 }
        let view = WireMockRequestView(request)
        var distance = WireMockRule.distance(rules, view)
        if distance == 0 {
            // Only the decoded path differs from the encoded one WireMock reads: close, not equal.
            distance = 0.000_001
        }
        return min(1, distance)
    }
}
