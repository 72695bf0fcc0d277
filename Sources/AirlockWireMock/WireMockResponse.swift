import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation
import HTTPTypes

/// The `response` object of a WireMock mapping, decoded into the ``MockResponse`` Airlock serves.
///
/// A mapping answers every request it matches: its response is `.eternal`. Header fields are
/// sent in the order the mapping lists them, a field with an array of values as one field per
/// value, and no `Content-Type` is added that the mapping does not give (WireMock adds none).
enum WireMockResponse {
    /// The fields of a response.
    enum Fields {
        static let response: Set<String> = [
            "status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName",
            "fixedDelayMilliseconds", "delayDistribution", "chunkedDribbleDelay", "fault", "transformers",
            "proxyBaseUrl", "additionalProxyRequestHeaders", "removeProxyRequestHeaders", "proxyUrlPrefixToRemove",
            "transformerParameters", "fromConfiguredStub",
        ]
        static let dribble: Set<String> = ["numberOfChunks", "totalDuration"]
        static let uniform: Set<String> = ["type", "lower", "upper"]
        static let lognormal: Set<String> = ["type", "median", "sigma", "maxValue"]
        static let fixed: Set<String> = ["type", "milliseconds"]
    }

    /// WireMock's fault names and Airlock's faults.
    static let faults: [(name: String, fault: MockResponse.Fault)] = [
        ("EMPTY_RESPONSE", .emptyResponse),
        ("CONNECTION_RESET_BY_PEER", .connectionReset),
        ("MALFORMED_RESPONSE_CHUNK", .malformedChunkedBody),
        ("RANDOM_DATA_THEN_CLOSE", .randomBytesThenClose),
    ]

    /// Reads one response.
    /// - Parameters:
    ///   - node: The `response` object.
    ///   - files: Where `bodyFileName` resolves and which files it may name.
    static func response(_ node: JSONNode, files: ResponseFile.Access) throws(StubFileError) -> MockResponse {
        let fields = try node.object("a WireMock response", fields: Fields.response)
        // The `parameters` root of the response's templates.
        var parameters: JSONValue?
        if let field = fields["transformerParameters"] {
            _ = try field.members("an object of template parameters (read as {{parameters.name}})")
            parameters = field.value
        }
        let bodies = ["body", "jsonBody", "base64Body", "bodyFileName"].filter { fields[$0] != nil }
        if bodies.count > 1 {
            throw node.error(.conflictingFields, "has \(bodies.joined(separator: " and "))", expected: "at most one of body, jsonBody, base64Body and bodyFileName")
        }
        var status = MockResponse.Status.ok
        if let field = fields["status"] { status = try field.status() }
        var reasonPhrase: String?
        if let field = fields["statusMessage"] {
            let text = try field.string()
            // A reason phrase is tab, space and visible characters (RFC 9112 §4): no line breaks.
            guard text.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
                throw field.error(.invalidValue, "has a control character", expected: "a reason phrase on one line, without control characters")
            }
            reasonPhrase = text
        }
        var headers: [(name: String, value: String, node: JSONNode)] = []
        if let field = fields["headers"] { headers = try Self.headers(field) }
        var fixedDelay = 0.0
        if let field = fields["fixedDelayMilliseconds"] {
            fixedDelay = try field.number() / 1000
            _ = try field.delivery(seconds: fixedDelay)
        }
        let distribution = try fields["delayDistribution"].map(Self.distribution)
        var dribble: DribblePlan?
        if let field = fields["chunkedDribbleDelay"] {
            let object = try field.object("chunkedDribbleDelay", fields: Fields.dribble)
            let chunks = try object.required("numberOfChunks").integer()
            let seconds = try object.required("totalDuration").number() / 1000
            dribble = try field.dribble(chunks: chunks, seconds: seconds, fields: ("numberOfChunks", "totalDuration (milliseconds)"))
        }
        let templated = try Self.isTemplated(fields["transformers"])
        let delivery: MockResponse.Delivery = fixedDelay == 0 ? .instant : .delayed(fixedDelay)

        if let field = fields["proxyBaseUrl"] {
            let proxy = try Self.proxy(field, fields: fields, templated: templated, parameters: parameters)
            return Self.drawingDelay(
                MockResponse(body: .proxy(proxy), status: .ok, lifetime: .eternal, delivery: delivery, headerFields: HTTPFields()),
                fixed: fixedDelay,
                distribution: distribution
            )
        }
        for key in ["proxyUrlPrefixToRemove", "additionalProxyRequestHeaders", "removeProxyRequestHeaders"] {
            if let field = fields[key] {
                throw field.error(.missingField, "is given without \"proxyBaseUrl\"", expected: "a \"proxyBaseUrl\" to send the request to, or no \(key)")
            }
        }

        if let field = fields["fault"] {
            let name = try field.string()
            guard let fault = faults.first(where: { $0.name == name })?.fault else {
                throw field.error(.invalidValue, "is \"\(name)\"", expected: "one of " + faults.map { "\"\($0.name)\"" }.joined(separator: ", "))
            }
            return Self.drawingDelay(.fault(fault, lifetime: .eternal, delivery: delivery), fixed: fixedDelay, distribution: distribution)
        }

        let body: MockResponse.Body
        var template = TemplatedResponse.Source.none
        if let field = fields["jsonBody"] {
            body = .data(try field.compactJSON())
            template = .json(field)
        } else if let field = fields["base64Body"] {
            let text = try field.string()
            guard let data = Data(base64Encoded: text) else {
                throw field.error(.invalidValue, "is not Base64", expected: "the body's bytes in standard Base64")
            }
            body = .data(data)
            template = .bytes(data)
        } else if let field = fields["bodyFileName"] {
            if templated, try field.string().contains("{{") {
                // The file's name is a template: the file is found, read and rendered per request.
                let made = try TemplatedBodyFile(field, files: files, parameters: parameters)
                return Self.drawingDelay(
                    made.response(status: status, reasonPhrase: reasonPhrase, headers: headers, delivery: delivery, dribble: dribble),
                    fixed: fixedDelay,
                    distribution: distribution
                )
            }
            if !templated, try field.string().contains("{{") {
                throw field.error(
                    .responseFileUnavailable,
                    "is a template, and the mapping has no response-template transformer (WireMock renders it only with --global-response-templating)",
                    expected: "\"transformers\": [\"response-template\"] in the response, or the name of a file inside __files"
                )
            }
            let url = try field.responseFile(files)
            if templated {
                // WireMock renders a body file's contents when the mapping is templated: text is
                // a template, other bytes are sent as they are.
                let data = try StubFileError.contents(of: url, expected: "a readable file inside __files")
                body = .data(data)
                template = String(data: data, encoding: .utf8).map { .text($0, field) } ?? .bytes(data)
            } else {
                body = .file(url)
            }
        } else if let field = fields["body"] {
            let text = try field.string()
            body = .data(Data(text.utf8))
            template = .text(text, field)
        } else {
            body = .data(Data())
        }

        var headerFields = HTTPFields()
        for header in headers {
            guard let name = HTTPField.Name(header.name) else {
                throw header.node.error(.invalidHeader, "has the name \"\(header.name)\"", expected: ResponseLimits.headerFix)
            }
            headerFields.append(HTTPField(name: name, value: header.value))
        }
        var response = MockResponse(body: body, status: status, reasonPhrase: reasonPhrase, lifetime: .eternal, delivery: delivery, headerFields: headerFields)
        if let dribble { response = response.dribbled(dribble) }
        if templated {
            let templates = try TemplatedResponse(body: template, headers: headers, writing: .wireMock, parameters: parameters)
            let made = status
            let plan = dribble
            let reason = reasonPhrase
            response = MockResponse.computed(lifetime: .eternal, delivery: delivery) { request in
                let rendered = templates.render(request, status: made).with(reasonPhrase: reason)
                return plan.map(rendered.dribbled) ?? rendered
            }
        }
        return Self.drawingDelay(response, fixed: fixedDelay, distribution: distribution)
    }

    /// `proxyBaseUrl` (with `proxyUrlPrefixToRemove`, `removeProxyRequestHeaders` and
    /// `additionalProxyRequestHeaders`): the request goes on to that server and its answer is the
    /// response, so the mapping gives no status, headers or body of its own. With the
    /// `response-template` transformer, the added header values are templates, rendered for each
    /// request (WireMock 3 renders them so).
    private static func proxy(_ field: JSONNode, fields: JSONObject, templated: Bool, parameters: JSONValue?) throws(StubFileError) -> MockResponse.Proxy {
        let base = try field.string()
        var baseTemplate: MockResponse.RequestTemplate?
        if templated, base.contains("{{") {
            // Rendered for each request, as WireMock does: the target is checked then.
            let template: ResponseTemplate
            do {
                template = try ResponseTemplate(base)
            } catch {
                throw field.error(.invalidTemplate, error.problem, expected: error.expected)
            }
            baseTemplate = MockResponse.RequestTemplate { template.render($0, escaping: .none, parameters: parameters) }
        }
        guard baseTemplate != nil || Self.isBaseURL(base) else {
            throw field.error(.invalidValue, "is \"\(base)\"", expected: "an http or https base URL such as \"http://localhost:8081\" (the request's path and query are appended)")
        }
        for key in ["status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName", "fault", "chunkedDribbleDelay"] {
            if fields[key] != nil {
                throw fields.error(
                    .conflictingFields,
                    at: key,
                    "is given beside \"proxyBaseUrl\", where the other server's answer is sent as it is",
                    expected: "either \"proxyBaseUrl\" or a response of the mapping's own"
                )
            }
        }
        var removing: [String] = []
        if let list = fields["removeProxyRequestHeaders"] {
            for item in try list.array(of: "header names (strings)") {
                let name = try item.string()
                if let problem = ResponseLimits.headerProblem(name: name, value: "") {
                    throw item.error(.invalidHeader, problem, expected: "the name of a header field the client sends, such as \"Authorization\"")
                }
                removing.append(name)
            }
        }
        var adding: [MockResponse.AddedHeader] = []
        if let object = fields["additionalProxyRequestHeaders"] {
            for (name, value) in try object.members("an object of header names and values (strings)") {
                adding.append(try Self.addedHeader(name, value, templated: templated, parameters: parameters))
            }
        }
        return MockResponse.Proxy(
            baseURL: base,
            removingPrefix: try fields["proxyUrlPrefixToRemove"]?.string(),
            removingHeaders: removing,
            addingHeaders: adding,
            baseTemplate: baseTemplate
        )
    }

    /// Whether the text is an http or https base URL without a query.
    private static func isBaseURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && components.host?.isEmpty == false && components.query == nil
    }

    /// The fields a proxy cannot set: the transports make them for the connection to the other
    /// server (`Host` from `proxyBaseUrl`), so an added one would never be sent.
    static let connectionFields: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization", "content-length",
    ]

    /// One field of `additionalProxyRequestHeaders`: a string (or a list of one, as WireMock
    /// sends only the first value), a template when the mapping is templated.
    private static func addedHeader(_ name: String, _ node: JSONNode, templated: Bool, parameters: JSONValue?) throws(StubFileError) -> MockResponse.AddedHeader {
        if connectionFields.contains(name.lowercased()) {
            throw node.error(
                .invalidHeader,
                "sets \(name), which belongs to the connection to the other server (Host is proxyBaseUrl's)",
                expected: "a header of the request itself, such as \"Authorization\" or \"User-Agent\""
            )
        }
        var valueNode = node
        if case .array = node.value {
            let items = try node.array(of: "one header value (a string)")
            guard items.count == 1 else {
                throw node.error(.invalidValue, "has \(items.count) values", expected: "one value (WireMock sends only the first): a string, or a list of one")
            }
            valueNode = items[0]
        }
        let text = try valueNode.string()
        guard templated, text.contains("{{") else {
            if let problem = ResponseLimits.headerProblem(name: name, value: text) {
                throw valueNode.error(.invalidHeader, problem, expected: ResponseLimits.headerFix)
            }
            return MockResponse.AddedHeader(name: name, value: .text(text))
        }
        if let problem = ResponseLimits.headerProblem(name: name, value: "") {
            throw valueNode.error(.invalidHeader, problem, expected: ResponseLimits.headerFix)
        }
        let template: ResponseTemplate
        do {
            template = try ResponseTemplate(text)
        } catch {
            throw valueNode.error(.invalidTemplate, error.problem, expected: error.expected)
        }
        // Inserted values escaped as the WireMock read as writes every template.
        let escaping = WireMockVersion.reading.insertedEscaping
        return MockResponse.AddedHeader(name: name, value: .template(MockResponse.RequestTemplate { template.render($0, escaping: escaping, parameters: parameters) }))
    }

    /// The header fields in the mapping's order: each value a string, or an array of strings
    /// sent as one field each.
    private static func headers(_ node: JSONNode) throws(StubFileError) -> [(name: String, value: String, node: JSONNode)] {
        var headers: [(name: String, value: String, node: JSONNode)] = []
        for (name, field) in try node.members("an object of header names and values (a string, or an array of strings)") {
            let values: [(String, JSONNode)]
            if case .array = field.value {
                var listed: [(String, JSONNode)] = []
                for item in try field.array(of: "header values (strings)") { listed.append((try item.string(), item)) }
                values = listed
            } else {
                values = [(try field.string(), field)]
            }
            for (value, valueNode) in values {
                if let problem = ResponseLimits.headerProblem(name: name, value: value) {
                    throw valueNode.error(.invalidHeader, problem, expected: ResponseLimits.headerFix)
                }
                headers.append((name, value, valueNode))
            }
        }
        return headers
    }

    /// Whether `transformers` asks for response templating; any other transformer is refused.
    private static func isTemplated(_ node: JSONNode?) throws(StubFileError) -> Bool {
        guard let node else { return false }
        var templated = false
        for item in try node.array(of: "transformer names") {
            let name = try item.string()
            guard name == "response-template" else {
                throw item.error(
                    .unsupported,
                    "names the transformer \"\(name)\", which Airlock does not have",
                    expected: "\"response-template\" (Airlock's templates, with WireMock's helper names), or no transformers"
                )
            }
            templated = true
        }
        return templated
    }

    /// `{"type": "uniform", "lower": …, "upper": …}`, `{"type": "lognormal", "median": …, "sigma": …}`
    /// or `{"type": "fixed", "milliseconds": …}`, in milliseconds.
    /// A `delayDistribution` (a response's) or a webhook's `delay`: `uniform`, `lognormal` or
    /// `fixed`, in milliseconds; one wait is drawn from it each time.
    static func distribution(_ node: JSONNode) throws(StubFileError) -> WebhookDelay {
        guard case .object(let members) = node.value, let typeValue = members["type"] else {
            throw node.mismatch(expected: "an object with a \"type\": \"uniform\", \"lognormal\" or \"fixed\"")
        }
        func seconds(_ field: JSONNode) throws(StubFileError) -> Double {
            let value = try field.number() / 1000
            _ = try field.delivery(seconds: value)
            return value
        }
        switch typeValue {
        case .string("uniform"):
            let object = try node.object("a uniform delay distribution", fields: Fields.uniform)
            let lower = try seconds(try object.required("lower"))
            let upperField = try object.required("upper")
            let upper = try seconds(upperField)
            guard upper >= lower else { throw upperField.error(.invalidValue, "is below \"lower\"", expected: "an upper bound at least the lower one") }
            return .uniform(lower: lower, upper: upper)
        case .string("lognormal"):
            let object = try node.object("a lognormal delay distribution", fields: Fields.lognormal)
            let median = try seconds(try object.required("median"))
            let sigmaField = try object.required("sigma")
            let sigma = try sigmaField.number()
            guard sigma >= 0, sigma <= 10 else { throw sigmaField.error(.invalidValue, "is \(sigma)", expected: "a sigma from 0 to 10") }
            let maximum = try object["maxValue"].map(seconds)
            return .lognormal(median: median, sigma: sigma, maximum: maximum)
        case .string("fixed"):
            let object = try node.object("a fixed delay distribution", fields: Fields.fixed)
            return .fixed(seconds: try seconds(try object.required("milliseconds")))
        default:
            throw node.error(.invalidValue, "has the type \(typeValue)", expected: "\"uniform\", \"lognormal\" or \"fixed\"")
        }
    }

    /// The response, with a wait drawn for each request when the mapping has a distribution
    /// (added to its fixed delay, as WireMock adds them).
    private static func drawingDelay(_ response: MockResponse, fixed: Double, distribution: WebhookDelay?) -> MockResponse {
        guard let distribution else { return response }
        return MockResponse.computed(lifetime: .eternal) { request in
            let wait = Swift.min(fixed + distribution.sample(), ResponseLimits.maximumSeconds)
            var made = response
            if case .computed(let computation) = response.body { made = try computation.make(request) }
            return made.with(lifetime: .eternal, delivery: wait == 0 ? .instant : .delayed(wait))
        }
    }
}

extension JSONNode {
    /// The value written as WireMock writes a `jsonBody`: compact, members in the document's order.
    func compactJSON() throws(StubFileError) -> Data {
        do {
            return try value.compactData()
        } catch {
            throw self.error(.invalidValue, "cannot be sent as JSON (\(error))", expected: "a JSON value of finite numbers")
        }
    }
}

extension TemplatedResponse.Writing {
    /// A WireMock mapping's: only the fields the mapping gives (no `Content-Type` added); JSON
    /// compact, in the document's order, as WireMock writes a `jsonBody`; and what `{{…}}`
    /// inserts HTML-escaped as WireMock 2.35 writes it, or as it is for a mapping read as
    /// WireMock 3's (``WireMockVersion``). Read when the mapping is.
    static var wireMock: TemplatedResponse.Writing {
        TemplatedResponse.Writing(escapesInsertedHTML: WireMockVersion.reading.escapesTemplates, keepsJSONOrder: true, addsContentType: false)
    }
}
