import AirlockBase
import Foundation
@_spi(AirlockTransport) import AirlockCore

/// The journal in WireMock's JSON shapes — a logged request, a serve event — and the small
/// conversions the WireMock admin API needs. Every request shown has been through the journal's
/// redaction before it gets here.
enum WireMockJournal {
    /// The id WireMock clients see for a journal entry: a UUID that carries its sequence number.
    static func id(of sequence: Int) -> String {
        String(format: "00000000-0000-4000-8000-%012llx", UInt64(max(0, sequence)))
    }

    /// The sequence number an id from ``id(of:)`` carries.
    static func sequence(of id: String) -> Int? {
        let lowered = id.lowercased()
        guard lowered.hasPrefix("00000000-0000-4000-8000-"), lowered.count == 36 else { return nil }
        return Int(lowered.suffix(12), radix: 16)
    }

    /// A request as WireMock logs it (`LoggedRequest`), with Airlock's sequence number. Headers,
    /// cookies and query parameters are in the order the request sent them.
    static func loggedRequest(_ request: RecordedRequest) -> JSONMembers {
        let target = RequestTarget(url: request.url).pathAndQuery
        // A name sent once has its value; one sent more often, the list of them.
        var headers = JSONMembers()
        for header in request.headers {
            switch headers[header.name] {
            case .string(let first)?: headers[header.name] = [.string(first), .string(header.value)]
            case .array(let values)?: headers[header.name] = .array(values + [.string(header.value)])
            default: headers[header.name] = .string(header.value)
            }
        }
        var cookies = JSONMembers()
        for header in request.headers where header.name.lowercased() == "cookie" {
            for pair in header.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if let name = parts.first, !name.isEmpty { cookies[name] = .string(parts.count > 1 ? parts[1] : "") }
            }
        }
        var queryParameters = JSONMembers()
        for item in request.incoming.queryItems {
            let value = JSONValue.string(item.value ?? "")
            if case .object(var parameter)? = queryParameters[item.name], case .array(let values)? = parameter["values"] {
                parameter["values"] = .array(values + [value])
                queryParameters[item.name] = .object(parameter)
            } else {
                queryParameters[item.name] = ["key": .string(item.name), "values": [value]]
            }
        }
        let body = request.body ?? Data()
        let milliseconds = Int((request.date.timeIntervalSince1970 * 1000).rounded())
        return [
            "id": .string(id(of: request.sequence)),
            "sequence": .number(Double(request.sequence)),
            "url": .string(target),
            "absoluteUrl": .string(request.url),
            "method": .string(request.method),
            // WireMock 3's `LoggedRequest.protocol`.
            "protocol": .string(request.httpVersion ?? "HTTP/1.1"),
            "clientIp": .string(request.clientAddress ?? "127.0.0.1"),
            "headers": .object(headers),
            "cookies": .object(cookies),
            "queryParams": .object(queryParameters),
            "body": .string(String(data: body, encoding: .utf8) ?? ""),
            "bodyAsBase64": .string(body.base64EncodedString()),
            "bodySize": .number(Double(request.bodySize)),
            "browserProxyRequest": false,
            "loggedDate": .number(Double(milliseconds)),
            "loggedDateString": .string(ISO8601DateFormatter().string(from: request.date)),
        ]
    }

    /// A request with what answered it, as WireMock lists the journal (`ServeEvent`): with
    /// `stubMapping`, the mapping that answered (as the admin API lists it), when one did.
    static func serveEvent(_ request: RecordedRequest, stubMapping: JSONValue? = nil) -> JSONMembers {
        let status = JSONValue.number(Double(request.response?.status ?? 0))
        var event: JSONMembers = [
            "id": .string(id(of: request.sequence)),
            "request": .object(loggedRequest(request)),
            "wasMatched": .bool(request.wasMatched),
            "responseDefinition": ["status": status, "fromConfiguredStub": .bool(request.wasMatched)],
        ]
        if let stubMapping { event["stubMapping"] = stubMapping }
        if let response = request.response {
            var headers = JSONMembers()
            for field in response.headerFields { headers[field.name.canonicalName] = .string(field.value) }
            event["response"] = ["status": status, "headers": .object(headers), "bodyAsBase64": .string(response.body.base64EncodedString())]
        }
        if !request.webhooks.isEmpty { event["subEvents"] = .array(subEvents(request)) }
        return event
    }

    /// The webhooks the exchange sent, as WireMock 3 lists them in a serve event's `subEvents`:
    /// a `WEBHOOK_REQUEST`, then a `WEBHOOK_RESPONSE` with its status, or an `ERROR` with why it
    /// failed or was refused (Airlock adds `"refused": true` to a refusal).
    private static func subEvents(_ request: RecordedRequest) -> [JSONValue] {
        var events: [JSONValue] = []
        for webhook in request.webhooks {
            let offset = JSONValue.number((webhook.date.timeIntervalSince(request.date) * 1_000_000_000).rounded())
            events.append(["type": "WEBHOOK_REQUEST", "timeOffsetNanos": offset, "data": ["method": .string(webhook.method), "url": .string(webhook.url)]])
            let ended = JSONValue.number(((webhook.date.timeIntervalSince(request.date) + webhook.duration) * 1_000_000_000).rounded())
            switch webhook.outcome {
            case .answered(let status):
                events.append(["type": "WEBHOOK_RESPONSE", "timeOffsetNanos": ended, "data": ["status": .number(Double(status))]])
            case .failed(let reason):
                events.append(["type": "ERROR", "timeOffsetNanos": ended, "data": ["message": .string("Webhook \(webhook.method) \(webhook.url) failed: \(reason)")]])
            case .refused(let reason):
                events.append(["type": "ERROR", "timeOffsetNanos": ended, "data": ["message": .string("Webhook \(webhook.method) \(webhook.url) refused: \(reason)"), "refused": true]])
            }
        }
        return events
    }

    /// A request sent to `POST /__admin/near-misses/request`: a logged request's `url` (or
    /// `absoluteUrl`), `method`, `headers` and `body`.
    static func request(from data: Data) -> RecordedRequest? {
        guard case .object(let object)? = try? JSONValue.parse(data) else { return nil }
        func text(_ key: String) -> String? {
            if case .string(let text)? = object[key] { text } else { nil }
        }
        let method = text("method") ?? "GET"
        let absolute = text("absoluteUrl") ?? "http://localhost" + (text("url") ?? "/")
        guard var incoming = IncomingRequest(method: method, absoluteURL: absolute) else { return nil }
        // In the order sent: a name with a list of values gives a header for each.
        var headers: [(name: String, value: String)] = []
        if case .object(let fields)? = object["headers"] {
            for (name, value) in fields {
                switch value {
                case .string(let text):
                    headers.append((name, text))
                case .array(let values):
                    let texts = values.compactMap { value -> String? in if case .string(let text) = value { text } else { nil } }
                    // Only a list of strings, as before.
                    if texts.count == values.count { headers += texts.map { (name, $0) } }
                default:
                    break
                }
            }
        }
        incoming.headers = headers
        if let base64 = text("bodyAsBase64"), let body = Data(base64Encoded: base64) {
            incoming.body = body
        } else if let body = text("body") {
            incoming.body = Data(body.utf8)
        }
        return RecordedRequest(sequence: 0, request: incoming, date: Date())
    }

    /// A mapping's JSON with its `id` (and `uuid`) set, for `PUT /__admin/mappings/<id>`.
    static func settingID(_ id: UUID, in data: Data) throws(StubFileError) -> Data {
        // (The numbers written back read as the same `Double`s, which is how mappings hold them.)
        guard case .object(var object)? = try? JSONValue.parse(data) else {
            throw StubFileError(.invalidJSON, file: "request body", location: nil, problem: "is not a JSON object", expected: "a WireMock mapping")
        }
        object["id"] = .string(id.uuidString.lowercased())
        object["uuid"] = .string(id.uuidString.lowercased())
        guard let updated = try? JSONValue.object(object).compactData() else {
            throw StubFileError(.invalidJSON, file: "request body", location: nil, problem: "cannot be read again", expected: "a WireMock mapping")
        }
        return updated
    }

    /// A JSON pointer (`/request/bodyPatterns/0`) for a field path (`request.bodyPatterns[0]`).
    static func pointer(_ location: String?) -> String {
        guard let location, !location.hasPrefix("line "), location != "(top level)" else { return "" }
        var pointer = ""
        var key = ""
        for character in location {
            switch character {
            case ".", "[":
                if !key.isEmpty { pointer += "/" + key }
                key = ""
            case "]":
                pointer += "/" + key
                key = ""
            default:
                key.append(character)
            }
        }
        if !key.isEmpty { pointer += "/" + key }
        return pointer
    }

    /// A mapping's JSON with the values of secret headers, cookies and query parameters in its
    /// request patterns, its basic-auth password, its secret response headers and the secret
    /// headers a proxy adds and a webhook sends (and its URL's credentials) replaced by the
    /// redaction's replacement.
    static func redacted(_ json: JSONValue, by redaction: Redaction) -> JSONValue {
        guard case .object(var mapping) = json else { return .object(JSONMembers()) }
        let replacement = JSONValue.string(redaction.replacement)
        func hidingValues(_ value: JSONValue) -> JSONValue {
            switch value {
            case .string: return replacement
            case .array(let items): return .array(items.map(hidingValues))
            case .object(let members):
                // Keep the matcher's operators (`equalTo`, `caseInsensitive`); hide the values.
                return .object(members.mapValues { value in
                    if case .bool = value { value } else { hidingValues(value) }
                })
            default: return value
            }
        }
        func hiding(_ value: JSONValue?, where isSecret: (String) -> Bool) -> JSONValue? {
            guard case .object(let members)? = value else { return value }
            return .object(JSONMembers(members.map { (key: $0.key, value: isSecret($0.key) ? hidingValues($0.value) : $0.value) }))
        }
        // Members that are null are left out, as before.
        func withoutNulls(_ members: JSONMembers) -> JSONValue {
            .object(members.filter { $0.value != .null })
        }
        if case .object(var request)? = mapping["request"] {
            request["headers"] = hiding(request["headers"], where: redaction.hidesHeader)
            request["cookies"] = hiding(request["cookies"]) { _ in redaction.hidesHeader("Cookie") }
            request["queryParameters"] = hiding(request["queryParameters"], where: redaction.hidesQueryItem)
            if case .object(var credentials)? = request["basicAuthCredentials"], credentials["password"] != nil {
                credentials["password"] = replacement
                request["basicAuthCredentials"] = .object(credentials)
            }
            mapping["request"] = withoutNulls(request)
        }
        if case .object(var response)? = mapping["response"] {
            response["headers"] = hiding(response["headers"], where: redaction.hidesHeader)
            // What a proxy adds to the request it sends on: a real token, often.
            response["additionalProxyRequestHeaders"] = hiding(response["additionalProxyRequestHeaders"], where: redaction.hidesHeader)
            mapping["response"] = withoutNulls(response)
        }
        // What a webhook sends: a real token, often (in its headers or its URL's query).
        func hidingWebhookSecrets(_ action: JSONValue) -> JSONValue {
            guard case .object(var members) = action, case .object(var parameters)? = members["parameters"] else { return action }
            parameters["headers"] = hiding(parameters["headers"], where: redaction.hidesHeader)
            if case .string(let url)? = parameters["url"] { parameters["url"] = .string(redaction.url(url)) }
            members["parameters"] = withoutNulls(parameters)
            return .object(members)
        }
        for key in ["postServeActions", "serveEventListeners"] {
            switch mapping[key] {
            case .array(let actions)?: mapping[key] = .array(actions.map(hidingWebhookSecrets))
            case .object(let byName)?:
                // WireMock 2's older form: an object of action names and their parameters.
                mapping[key] = .object(byName.mapValues { parameters in
                    guard case .object(let wrapped) = hidingWebhookSecrets(.object(["parameters": parameters])) else { return parameters }
                    return wrapped["parameters"] ?? parameters
                })
            default: break
            }
        }
        return .object(mapping)
    }
}
