import AirlockBase
import AirlockJSONSchema
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes

/// Checks one exchange against a contract: the request against its operation (path, method,
/// parameters, body, security), the response against the operation's responses (status,
/// headers, body).
///
/// Every violation leaves through ``finish(_:)``, which applies the journal's redaction once:
/// the values it shows are the request's and response's own, secrets hidden.
struct ExchangeCheck {
    let contract: OpenAPIContract
    let request: RecordedRequest
    let redaction: Redaction
    private(set) var violations: [ContractViolation] = []
    private var side: ContractViolation.Side = .request
    private var operation: OpenAPIOperation?

    init(contract: OpenAPIContract, request: RecordedRequest, redaction: Redaction) {
        self.contract = contract
        self.request = request
        self.redaction = redaction
    }

    // MARK: Request

    /// Checks the request; returns its operation, if the contract has one.
    mutating func checkRequest() -> ContractOperation? {
        side = .request
        let target = RequestTarget(url: request.url)
        switch contract.index.lookup(method: request.method, path: target.path) {
        case .noPath(let basePaths):
            let bases = basePaths == [""] ? "" : " after its server path \(basePaths.map { "\"\($0)\"" }.joined(separator: " or "))"
            report("path", at: JSONPointer(["paths"]), location: "path", value: target.path, "is \(target.path), which matches no path of the contract\(bases)")
            return nil
        case .methodNotAllowed(let path, let allowed, let pointer):
            report("method", at: pointer, location: "method", value: request.method, "is \(request.method), which \(path) does not have (it has \(allowed.joined(separator: ", ")))")
            return nil
        case .operation(let found, let pathValues):
            operation = found.public
            checkParameters(of: found, pathValues: pathValues)
            checkBody(of: found)
            checkSecurity(of: found)
            return found
        }
    }

    private mutating func checkParameters(of operation: ContractOperation, pathValues: [String: String]) {
        let cookies = Self.cookies(in: request.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value))
        for rule in operation.parameters {
            let reader = ParameterReader(rule: rule, shape: ValueShape.of(rule.schema, in: contract.document))
            let value: JSONValue?
            let text: String?
            switch rule.location {
            case .path:
                text = pathValues[rule.name]
                value = text.map(reader.fromPath)
            case .query:
                text = request.queryItems.first { $0.name == rule.name }?.value
                value = reader.fromQuery(request.queryItems)
            case .header:
                text = request.header(rule.name)
                value = text.map(reader.fromText)
            case .cookie:
                text = cookies[rule.name]
                value = text.map(reader.fromText)
            }
            let location = "\(rule.location.rawValue) parameter \(rule.name)"
            guard let value else {
                if rule.required { report("required", at: rule.pointer.appending("required"), location: location, value: nil, "is missing") }
                continue
            }
            if let schema = rule.schema {
                let hidden: Bool
                switch rule.location {
                case .query: hidden = redaction.hidesQueryItem(rule.name)
                case .header: hidden = redaction.hidesHeader(rule.name)
                case .cookie: hidden = true
                case .path: hidden = false
                }
                // A number read from its text: the text, for the integers a Double may not keep.
                let literals = text.map { [JSONPointer(): $0] } ?? [:]
                checkSchema(value, at: schema, location: location, direction: .request, hidden: hidden, integerLiterals: literals)
            }
        }
    }

    private mutating func checkBody(of operation: ContractOperation) {
        guard let rule = operation.body else { return }
        let body = request.body ?? Data()
        guard !body.isEmpty else {
            if rule.required { report("required", at: rule.pointer.appending("required"), location: "body", value: nil, "is missing") }
            return
        }
        guard !rule.content.isEmpty else { return }
        let contentType = request.header("Content-Type")
        guard let media = Self.mediaType(contentType, in: rule.content) else {
            report(
                "content-type", at: rule.pointer.appending("content"), location: "header Content-Type", value: contentType,
                contentType == nil ? "is missing (the operation accepts \(Self.list(rule.content)))" : "is \(contentType!), which the operation does not accept (it accepts \(Self.list(rule.content)))"
            )
            return
        }
        checkBody(body, contentType: contentType, media: media, direction: .request)
    }

    private mutating func checkSecurity(of operation: ContractOperation) {
        guard let alternatives = operation.security, !alternatives.isEmpty, !alternatives.contains(where: \.isEmpty) else { return }
        let met = alternatives.contains { names in
            names.allSatisfy { name in contract.securitySchemes[name].map(isPresent) ?? false }
        }
        guard !met else { return }
        let needed = alternatives.map { $0.map { contract.securitySchemes[$0].map(Self.describe) ?? $0 }.joined(separator: " and ") }
        report("security", at: operation.securityPointer, location: "credentials", value: nil, "are missing (it needs \(needed.joined(separator: ", or ")))")
    }

    private func isPresent(_ scheme: SecurityScheme) -> Bool {
        switch scheme.kind {
        case .apiKey(let name, .header): return request.header(name) != nil
        case .apiKey(let name, .query): return request.queryItems.contains { $0.name == name }
        case .apiKey(let name, .cookie): return Self.cookies(in: request.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value))[name] != nil
        case .apiKey(_, .path): return false
        case .http(let scheme): return request.header("Authorization")?.lowercased().hasPrefix(scheme + " ") == true
        case .bearerToken: return request.header("Authorization")?.lowercased().hasPrefix("bearer ") == true
        case .mutualTLS: return true
        }
    }

    private static func describe(_ scheme: SecurityScheme) -> String {
        switch scheme.kind {
        case .apiKey(let name, let location): "\(scheme.name): the \(location.rawValue) \(location == .query ? "parameter " : "")\(name)"
        case .http(let kind): "\(scheme.name): Authorization: \(kind.prefix(1).uppercased() + kind.dropFirst()) …"
        case .bearerToken: "\(scheme.name): Authorization: Bearer …"
        case .mutualTLS: scheme.name
        }
    }

    // MARK: Response

    /// Checks a response to the request, which the contract answers with `operation`.
    mutating func checkResponse(_ response: RecordedResponse, of operation: ContractOperation) {
        side = .response
        self.operation = operation.public
        guard let status = response.status, !operation.responses.isEmpty else { return }
        // Airlock's own answers (a problem about the request, a replay miss) are not the API's.
        if response.headerFields[HTTPField.Name(ContractResponder.errorHeader)!] != nil { return }
        let candidates = operation.responses.filter { $0.covers(status) }
        guard let rule = candidates.min(by: { $0.precedence < $1.precedence }) else {
            report("status", at: operation.public.pointer.appending("responses"), location: "status", value: String(status),
                   "is \(status), which the operation does not list (it lists \(operation.responses.map { $0.key == "DEFAULT" ? "default" : $0.key }.joined(separator: ", ")))")
            return
        }
        for header in rule.headers {
            let location = "header \(header.name)"
            guard let text = response.headerFields[HTTPField.Name(header.name) ?? .contentType] else {
                if header.required { report("required", at: header.pointer.appending("required"), location: location, value: nil, "is missing") }
                continue
            }
            if let schema = header.schema {
                let parameter = ParameterRule(name: header.name, location: .header, required: header.required, style: .simple, explode: false, allowEmptyValue: false, schema: schema, contentType: nil, pointer: header.pointer)
                checkSchema(ParameterReader(rule: parameter, shape: ValueShape.of(schema, in: contract.document)).fromText(text), at: schema, location: location, direction: .response)
            }
        }
        var body = response.body
        if response.bodyIsEncoded, let coding = response.headerFields.contentCoding {
            body = ContentCoding.decode(body, coding: coding) ?? body
        }
        let contentType = response.headerFields[.contentType]
        if rule.content.isEmpty {
            if !body.isEmpty, request.method != "HEAD" {
                report("content", at: rule.pointer, location: "body", value: Self.preview(body), "is \(body.count) bytes, but the response has no content in the contract")
            }
            return
        }
        guard !body.isEmpty || contentType != nil else { return }
        guard let media = Self.mediaType(contentType, in: rule.content) else {
            report(
                "content-type", at: rule.pointer.appending("content"), location: "header Content-Type", value: contentType,
                contentType == nil ? "is missing (the response has \(Self.list(rule.content)))" : "is \(contentType!), which the response does not have (it has \(Self.list(rule.content)))"
            )
            return
        }
        if request.method != "HEAD" {
            checkBody(body, contentType: contentType, media: media, direction: .response)
        }
    }

    // MARK: Values

    private mutating func checkBody(_ body: Data, contentType: String?, media: MediaTypeRule, direction: SchemaDirection) {
        guard let schema = media.schema else { return }
        let essence = Self.essence(contentType) ?? media.mediaType
        let value: JSONValue
        var literals: [JSONPointer: String] = [:]
        if Self.isJSON(essence) {
            do {
                let parsed = try JSONValue.parseKeepingLongIntegers(body)
                value = parsed.value
                for (path, literal) in parsed.longIntegers { literals[JSONPointer(path)] = literal }
            } catch {
                report("content", at: media.pointer, location: "body", value: Self.preview(body), "is not valid JSON (\(error))")
                return
            }
        } else if essence == "application/x-www-form-urlencoded" {
            let shape = ValueShape.of(schema, in: contract.document)
            var object = JSONMembers()
            for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = PercentDecoding.decode(Substring(parts[0].replacingOccurrences(of: "+", with: " ")))
                let text = parts.count > 1 ? PercentDecoding.decode(Substring(parts[1].replacingOccurrences(of: "+", with: " "))) : ""
                object[name] = shape.member(name).scalar(text)
            }
            value = .object(object)
        } else if essence.hasPrefix("text/"), let text = String(data: body, encoding: .utf8) {
            value = .string(text)
        } else {
            // Binary and multipart bodies: the media type is checked, not the bytes.
            return
        }
        checkSchema(value, at: schema, location: "body", direction: direction, integerLiterals: literals)
    }

    /// Checks a value against a schema. A value the redaction hides (a secret parameter, or a
    /// body field with a secret name) is shown as the redaction's replacement, in the value and
    /// in the problem.
    private mutating func checkSchema(
        _ value: JSONValue, at schema: JSONPointer, location: String, direction: SchemaDirection, hidden: Bool = false, integerLiterals: [JSONPointer: String] = [:]
    ) {
        for violation in contract.schemas.validate(value, against: schema, direction: direction, integerLiterals: integerLiterals) {
            let place = violation.instancePath.tokens.isEmpty ? location : "\(location) at \(violation.instancePath)"
            let secretField = violation.instancePath.tokens.contains { direction == .response ? redaction.hidesResponseField($0) : redaction.hidesField($0) }
            var shown = Self.text(violation.value)
            if case .number(let number) = violation.value, let literal = integerLiterals[violation.instancePath], Double(literal) == number {
                shown = literal  // the integer as written, not its nearest Double
            }
            var problem = violation.message
            if hidden || secretField {
                for form in [shown, Self.json(violation.value)] where !form.isEmpty {
                    problem = problem.replacingOccurrences(of: form, with: redaction.replacement)
                }
                shown = redaction.replacement
            }
            report(violation.keyword, at: violation.schemaPath, location: place, value: shown, problem)
        }
    }

    private mutating func report(_ rule: String, at pointer: JSONPointer, location: String, value: String?, _ problem: String) {
        violations.append(ContractViolation(
            side: side,
            request: "\(request.method) \(request.url)",
            operation: operation,
            rule: rule,
            pointer: pointer,
            location: location,
            value: value,
            problem: problem
        ))
    }

    /// The violations with the request's and response's secrets hidden, as every output shows
    /// them.
    func finish(secrets: [String]) -> [ContractViolation] {
        violations.map { violation in
            ContractViolation(
                side: violation.side,
                request: "\(request.method) \(redaction.url(request.url))",
                operation: violation.operation,
                rule: violation.rule,
                pointer: violation.pointer,
                location: violation.location,
                value: violation.value.map { redaction.scrub($0, secrets: secrets) },
                problem: redaction.scrub(violation.problem, secrets: secrets)
            )
        }
    }

    // MARK: Helpers

    /// `application/json` of `application/json; charset=utf-8`, lowercased.
    static func essence(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return essence?.isEmpty == false ? essence : nil
    }

    /// The media type of `rules` a `Content-Type` falls under: the exact type, then `type/*`,
    /// then `*/*`. Without a `Content-Type`, only `*/*` accepts.
    static func mediaType(_ contentType: String?, in rules: [MediaTypeRule]) -> MediaTypeRule? {
        let keyed = rules.map { (essence: essence($0.mediaType) ?? $0.mediaType, rule: $0) }
        guard let essence = essence(contentType) else { return keyed.first { $0.essence == "*/*" }?.rule }
        let range = (essence.split(separator: "/").first.map(String.init) ?? essence) + "/*"
        return keyed.first { $0.essence == essence }?.rule
            ?? keyed.first { $0.essence == range }?.rule
            ?? keyed.first { $0.essence == "*/*" }?.rule
    }

    /// JSON and its `+json` kin.
    static func isJSON(_ essence: String) -> Bool {
        essence == "application/json" || essence.hasSuffix("+json") || essence == "*/*" || essence == "text/json"
    }

    private static func list(_ rules: [MediaTypeRule]) -> String {
        rules.map(\.mediaType).joined(separator: ", ")
    }

    /// The cookies of `Cookie` fields by name (the first of a repeated name).
    static func cookies(in fields: [String]) -> [String: String] {
        var cookies: [String: String] = [:]
        for field in fields {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                if cookies[name] == nil { cookies[name] = parts.count > 1 ? String(parts[1]) : "" }
            }
        }
        return cookies
    }

    /// A value as the message shows it: strings as they are, anything else as compact JSON, cut
    /// after 200 characters.
    static func text(_ value: JSONValue) -> String {
        let text: String
        if case .string(let string) = value {
            text = string
        } else {
            text = json(value)
        }
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// The value as compact JSON.
    static func json(_ value: JSONValue) -> String {
        String(decoding: (try? value.compactData()) ?? Data(), as: UTF8.self)
    }

    private static func preview(_ body: Data) -> String {
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return body.count > 200 ? text + "…" : text
    }
}
