import AirlockBase
@_spi(AirlockTransport) import AirlockCore
import Foundation
import HTTPTypes

extension Mocking {
    /// Answers every operation of a contract from the contract itself: each request to one of
    /// its paths gets the operation's example (or a value built from its schema), as a server
    /// keeping the contract would.
    ///
    /// ```swift
    /// let mock = HTTPMock()
    /// mock.registerStubs(from: try OpenAPIContract(contentsOf: URL(fileURLWithPath: "openapi.yaml")))
    /// ```
    ///
    /// - The answer is the operation's lowest `2XX` response (a range or `default` answers
    ///   `200`), in the first media type the request's `Accept` takes, with its example: the
    ///   media type's `example`, its first `examples` entry, the schema's own example, or a value
    ///   built from the schema. Headers the response requires come with their examples too.
    /// - `Prefer: code=404` picks the response with that status; `Prefer: example=cat` the
    ///   example of that name (Prism's convention; both together work). A code or example the
    ///   operation lacks is answered `500 Internal Server Error` with a problem naming the ones
    ///   it has.
    /// - A request that breaks the contract is answered `422 Unprocessable Content` (or `400`,
    ///   when the operation lists a `400` response and no `422`), with an
    ///   `application/problem+json` body (RFC 9457) listing each violation in `violations`; a
    ///   method the path lacks, `405 Method Not Allowed` with `Allow`.
    ///
    /// A request to a path the contract lacks is left to the mock: other stubs, then the
    /// unmocked policy. Stubs of your own with literal paths win over the contract's templated
    /// ones, as more specific stubs always do; each contract path is one stub, answering for as
    /// long as the mock lives.
    /// - Parameter contract: The contract.
    /// - Returns: Registration errors (none for a contract that loaded).
    @discardableResult
    public func registerStubs(from contract: OpenAPIContract) -> [RegistrationError] {
        let responder = ContractResponder(contract: contract)
        var registrations: [Registration] = []
        for template in contract.index.templates {
            for base in contract.index.basePaths {
                let segments = template.segments.map { segment -> String in
                    if case .literal(let text) = segment { return text }
                    return "*"
                }
                let path = base + "/" + segments.joined(separator: "/")
                registrations.append(Registration(
                    host: "**",
                    path: path,
                    query: nil,
                    queryMatching: .exact,
                    responses: [.computed(lifetime: .eternal) { request in responder.respond(to: request) }]
                ))
            }
        }
        return registry.register(registrations)
    }
}

/// Makes the answer to a request from the contract: an example, a problem for a request that
/// breaks it.
struct ContractResponder: Sendable {
    let contract: OpenAPIContract

    func respond(to request: RecordedRequest) -> MockResponse {
        let target = RequestTarget(url: request.url)
        if case .methodNotAllowed(let path, let allowed, _) = contract.index.lookup(method: request.method, path: target.path) {
            return Self.problem(
                status: 405, title: "Method Not Allowed",
                detail: "\(path) has no \(request.method) operation in the contract; it has \(allowed.joined(separator: ", ")).",
                headers: ["Allow": allowed.joined(separator: ", ")]
            )
        }
        var check = ExchangeCheck(contract: contract, request: request, redaction: .standard)
        guard let operation = check.checkRequest() else {
            return Self.problem(status: 404, title: "Not Found", detail: "No operation of the contract matches \(request.method) \(target.path).")
        }
        let violations = check.finish(secrets: Redaction.standard.secretValues(in: request))
        if !violations.isEmpty {
            let keys = Set(operation.responses.map(\.key))
            let status = keys.contains("422") ? 422 : keys.contains("400") ? 400 : 422
            return Self.problem(
                status: status,
                title: "The request does not match the API's contract",
                detail: "\(violations.count) violation\(violations.count == 1 ? "" : "s") of \(operation.public)",
                violations: violations
            )
        }
        let preferences = Self.preferences(request.header("Prefer"))
        return answer(operation, code: preferences["code"].flatMap { Int($0) }, exampleName: preferences["example"], accept: request.header("Accept"))
    }

    /// The response `code` (or the lowest success) of an operation, with the example named.
    private func answer(_ operation: ContractOperation, code: Int?, exampleName: String?, accept: String?) -> MockResponse {
        let chosen: (rule: ResponseRule, status: Int)
        if let code {
            guard let rule = operation.responses.filter({ $0.covers(code) }).min(by: { $0.precedence < $1.precedence }) else {
                return Self.problem(status: 500, title: "No such response", detail: "\(operation.public) has no response \(code) in the contract; it has \(Self.keys(operation)).")
            }
            chosen = (rule, code)
        } else if let success = Self.success(of: operation) {
            chosen = success
        } else {
            return .empty(status: .other(204))
        }
        var headers: [String: String] = [:]
        for header in chosen.rule.headers {
            let place = header.pointer
            let members = contract.document[place]?.objectMembers
            if let example = members?["example"] ?? (header.required ? header.schema.map { SchemaExample(document: contract.document, direction: .response).value(at: $0) } : nil) {
                headers[header.name] = Self.headerText(example)
            }
        }
        guard let media = Self.media(in: chosen.rule.content, accepting: accept) else {
            return MockResponse(data: Data(), status: .other(chosen.status), headers: headers)
        }
        let value: JSONValue
        switch example(of: media, named: exampleName) {
        case .success(let found): value = found
        case .failure(let missing):
            let available = missing.available
            return Self.problem(status: 500, title: "No such example", detail: "\(operation.public) has no example \"\(exampleName ?? "")\" for \(chosen.status) \(media.mediaType); it has \(available.isEmpty ? "none" : available.joined(separator: ", ")).")
        }
        let contentType = media.mediaType.contains("*") ? (ExchangeCheck.isJSON(media.mediaType) ? "application/json" : "application/octet-stream") : media.mediaType
        let body: Data
        if case .string(let text) = value, !ExchangeCheck.isJSON(ExchangeCheck.essence(contentType) ?? contentType) {
            body = Data(text.utf8)
        } else {
            body = (try? value.compactData()) ?? Data()
        }
        return MockResponse(data: body, contentType: contentType, status: .other(chosen.status), headers: headers)
    }

    private struct MissingExample: Error {
        let available: [String]
    }

    /// The example of a media type: the one named, else its `example`, its first `examples`
    /// entry, or one from its schema. A name it lacks fails with the names it has.
    private func example(of media: MediaTypeRule, named name: String?) -> Result<JSONValue, MissingExample> {
        let members = contract.document[media.pointer]?.objectMembers
        let examples = members?["examples"]?.objectMembers ?? JSONMembers()
        func value(of example: JSONValue) -> JSONValue? {
            let object = example.followingReferences(in: contract.document)
            return object?["value"] ?? object?["dataValue"]
        }
        if let name {
            guard let example = examples[name], let found = value(of: example) else { return .failure(MissingExample(available: Array(examples.keys))) }
            return .success(found)
        }
        if let example = members?["example"] { return .success(example) }
        for (_, example) in examples {
            if let found = value(of: example) { return .success(found) }
        }
        guard let schema = media.schema else { return .success(.string("")) }
        return .success(SchemaExample(document: contract.document, direction: .response).value(at: schema))
    }

    /// The lowest explicit `2XX` code, else a `2XX` range, else `default`, each as `200`.
    private static func success(of operation: ContractOperation) -> (rule: ResponseRule, status: Int)? {
        let explicit = operation.responses.compactMap { rule in Int(rule.key).map { (rule: rule, status: $0) } }
            .filter { (200..<300).contains($0.status) }
            .min { $0.status < $1.status }
        if let explicit { return explicit }
        if let range = operation.responses.first(where: { $0.key == "2XX" }) { return (range, 200) }
        if let fallback = operation.responses.first(where: { $0.key == "DEFAULT" }) { return (fallback, 200) }
        return operation.responses.first.flatMap { rule in Int(rule.key).map { (rule, $0) } }
    }

    /// The first media type `Accept` takes (by its order of preference, then the contract's), or
    /// the contract's first.
    private static func media(in content: [MediaTypeRule], accepting accept: String?) -> MediaTypeRule? {
        guard let accept, !content.isEmpty else { return content.first }
        let accepted = accept.split(separator: ",").compactMap { ExchangeCheck.essence(String($0)) }
        for type in accepted {
            if type == "*/*" { return content.first }
            if let match = ExchangeCheck.mediaType(type, in: content), match.mediaType != "*/*" || content.count == 1 { return match }
        }
        return content.first
    }

    /// `code=404, example=cat` as `["code": "404", "example": "cat"]`.
    static func preferences(_ header: String?) -> [String: String] {
        var preferences: [String: String] = [:]
        for part in (header ?? "").split(whereSeparator: { $0 == "," || $0 == ";" }) {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let key = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            preferences[key] = value
        }
        return preferences
    }

    private static func keys(_ operation: ContractOperation) -> String {
        operation.responses.map { $0.key == "DEFAULT" ? "default" : $0.key }.joined(separator: ", ")
    }

    private static func headerText(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .array(let items): items.map(headerText).joined(separator: ",")
        default: ExchangeCheck.json(value)
        }
    }

    /// An `application/problem+json` answer (RFC 9457), with the violations when there are some.
    static func problem(status: Int, title: String, detail: String, violations: [ContractViolation] = [], headers: [String: String] = [:]) -> MockResponse {
        var members: JSONMembers = [
            "type": .string("about:blank"),
            "title": .string(title),
            "status": .number(Double(status)),
            "detail": .string(detail),
        ]
        if !violations.isEmpty {
            members["violations"] = .array(violations.map { violation in
                var entry: JSONMembers = [
                    "rule": .string(violation.rule),
                    "pointer": .string(violation.pointer.fragment),
                    "location": .string(violation.location),
                    "message": .string(violation.description),
                ]
                if let value = violation.value { entry["value"] = .string(value) }
                return .object(entry)
            })
        }
        let body = (try? JSONValue.object(members).compactData()) ?? Data()
        var fields = headers
        fields[errorHeader] = errorHeaderValue
        return MockResponse(data: body, contentType: "application/problem+json", status: .other(status), headers: fields)
    }

    /// The header that marks Airlock's own answers (a problem, not the API's): the contract does
    /// not check them.
    static let errorHeader = "Airlock-Error"
    /// Its value.
    static let errorHeaderValue = "contract-violation"
}
