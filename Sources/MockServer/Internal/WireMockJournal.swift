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

    /// A request as WireMock logs it (`LoggedRequest`), with Airlock's sequence number.
    static func loggedRequest(_ request: RecordedRequest) -> [String: Any] {
        let target = RequestTarget(url: request.url).pathAndQuery
        var headers: [String: Any] = [:]
        var order: [String] = []
        for header in request.headers {
            let value = header.value
            if let existing = headers[header.name] {
                headers[header.name] = ((existing as? [String]) ?? [existing as? String ?? ""]) + [value]
            } else {
                headers[header.name] = value
                order.append(header.name)
            }
        }
        var cookies: [String: String] = [:]
        for header in request.headers where header.name.lowercased() == "cookie" {
            for pair in header.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if let name = parts.first, !name.isEmpty { cookies[name] = parts.count > 1 ? parts[1] : "" }
            }
        }
        var queryValues: [String: [String]] = [:]
        for item in request.incoming.queryItems {
            queryValues[item.name, default: []].append(item.value ?? "")
        }
        let queryParameters = queryValues.reduce(into: [String: Any]()) { $0[$1.key] = ["key": $1.key, "values": $1.value] }
        let body = request.body ?? Data()
        let milliseconds = Int((request.date.timeIntervalSince1970 * 1000).rounded())
        return [
            "id": id(of: request.sequence),
            "sequence": request.sequence,
            "url": target,
            "absoluteUrl": request.url,
            "method": request.method,
            "clientIp": "127.0.0.1",
            "headers": headers,
            "cookies": cookies,
            "queryParams": queryParameters,
            "body": String(data: body, encoding: .utf8) ?? "",
            "bodyAsBase64": body.base64EncodedString(),
            "bodySize": request.bodySize,
            "browserProxyRequest": false,
            "loggedDate": milliseconds,
            "loggedDateString": ISO8601DateFormatter().string(from: request.date),
        ]
    }

    /// A request with what answered it, as WireMock lists the journal (`ServeEvent`): with
    /// `stubMapping`, the mapping that answered (as the admin API lists it), when one did.
    static func serveEvent(_ request: RecordedRequest, stubMapping: [String: Any]? = nil) -> [String: Any] {
        var event: [String: Any] = [
            "id": id(of: request.sequence),
            "request": loggedRequest(request),
            "wasMatched": request.wasMatched,
            "responseDefinition": ["status": request.response?.status ?? 0, "fromConfiguredStub": request.wasMatched],
        ]
        if let stubMapping { event["stubMapping"] = stubMapping }
        if let response = request.response {
            var headers: [String: String] = [:]
            for field in response.headerFields { headers[field.name.canonicalName] = field.value }
            event["response"] = ["status": response.status ?? 0, "headers": headers, "bodyAsBase64": response.body.base64EncodedString()]
        }
        return event
    }

    /// A request sent to `POST /__admin/near-misses/request`: a logged request's `url` (or
    /// `absoluteUrl`), `method`, `headers` and `body`.
    static func request(from data: Data) -> RecordedRequest? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        let method = object["method"] as? String ?? "GET"
        let absolute = object["absoluteUrl"] as? String ?? "http://localhost" + (object["url"] as? String ?? "/")
        guard var incoming = IncomingRequest(method: method, absoluteURL: absolute) else { return nil }
        var headers: [(name: String, value: String)] = []
        for (name, value) in (object["headers"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let text = value as? String {
                headers.append((name, text))
            } else if let values = value as? [String] {
                headers += values.map { (name, $0) }
            }
        }
        incoming.headers = headers
        if let base64 = object["bodyAsBase64"] as? String, let body = Data(base64Encoded: base64) {
            incoming.body = body
        } else if let body = object["body"] as? String {
            incoming.body = Data(body.utf8)
        }
        return RecordedRequest(sequence: 0, request: incoming, date: Date())
    }

    /// A mapping's JSON with its `id` (and `uuid`) set, for `PUT /__admin/mappings/<id>`.
    static func settingID(_ id: UUID, in data: Data) throws(StubFileError) -> Data {
        guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw StubFileError(.invalidJSON, file: "request body", location: nil, problem: "is not a JSON object", expected: "a WireMock mapping")
        }
        object["id"] = id.uuidString.lowercased()
        object["uuid"] = id.uuidString.lowercased()
        guard let updated = try? JSONSerialization.data(withJSONObject: object) else {
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
    /// request patterns, its basic-auth password and its secret response headers replaced by the
    /// redaction's replacement.
    static func redacted(_ json: JSONValue, by redaction: Redaction) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(json), var mapping = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return [:]
        }
        let replacement = redaction.replacement
        func hidingValues(_ value: Any) -> Any {
            switch value {
            case is String: return replacement
            case let array as [Any]: return array.map(hidingValues)
            case let object as [String: Any]:
                // Keep the matcher's operators (`equalTo`, `caseInsensitive`); hide the values.
                return object.mapValues { $0 is Bool ? $0 : hidingValues($0) }
            default: return value
            }
        }
        func hiding(_ object: Any?, where isSecret: (String) -> Bool) -> Any? {
            guard let object = object as? [String: Any] else { return object }
            var result = object
            for (name, value) in object where isSecret(name) { result[name] = hidingValues(value) }
            return result
        }
        if var request = mapping["request"] as? [String: Any] {
            request["headers"] = hiding(request["headers"], where: redaction.hidesHeader)
            request["cookies"] = hiding(request["cookies"]) { _ in redaction.hidesHeader("Cookie") }
            request["queryParameters"] = hiding(request["queryParameters"], where: redaction.hidesQueryItem)
            if var credentials = request["basicAuthCredentials"] as? [String: Any], credentials["password"] != nil {
                credentials["password"] = replacement
                request["basicAuthCredentials"] = credentials
            }
            mapping["request"] = request.filter { !($0.value is NSNull) }
        }
        if var response = mapping["response"] as? [String: Any] {
            response["headers"] = hiding(response["headers"], where: redaction.hidesHeader)
            mapping["response"] = response.filter { !($0.value is NSNull) }
        }
        return mapping
    }
}
