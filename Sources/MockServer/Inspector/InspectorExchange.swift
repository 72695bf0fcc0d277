import AirlockBase
import AirlockCassettes
@_spi(AirlockTransport) import AirlockCore
import AirlockStubFiles
@_spi(AirlockTransport) import AirlockWireMock
import Foundation
import HTTPTypes

/// One exchange as the traffic page shows it: a JSON object built from the journal's redacted
/// view of the request and its response, with the near-miss diagnosis of an unmatched request
/// and the exchange written out as a stub in each format ("copy as").
///
/// Every value comes from traffic, and the page treats all of it as text (it never parses it as
/// markup). Secrets are shown as the journal shows them: the value is built from
/// `Redaction.apply(to:)`'s output only, never from the raw request.
enum InspectorExchange {
    /// The field the unmatched-request policy marks its answer with.
    private static let unmatchedMark = HTTPField.Name("X-Airlock-Unmatched")!

    /// The most of one body the page gets; the size says how much there was.
    static let bodyLimit = 256 * 1024

    /// The exchange's row in the page's list, as the live feed sends it: what the row shows and
    /// the filters use, built from the request's URL through the redaction and a few counts —
    /// not the fields, bodies or stubs-to-copy, which the page asks for when a row is opened.
    /// Besides the stub, it names the WireMock mapping that answered (`source`) and the contract
    /// operation the request belongs to (`operation`).
    static func summary(_ request: RecordedRequest, redaction: Redaction, registry: MockRegistry) -> JSONValue {
        let response = request.response
        return .members([
            ("sequence", .number(Double(request.sequence))),
            ("time", .string(Timestamp.string(from: request.date))),
            ("method", .string(request.method)),
            ("url", .string(redaction.url(request.url))),
            ("matched", .bool(request.wasMatched)),
            ("stub", request.stub.map { .string(redaction.text($0)) } ?? .null),
            ("source", mapping(of: request, registry: registry).map { .string(redaction.text($0)) } ?? .null),
            ("operation", request.operationID.map(JSONValue.string) ?? .null),
            ("status", response?.status.map { .number(Double($0)) } ?? .null),
            ("error", response?.error.map { .string(redaction.text($0)) } ?? .null),
            ("ended", .bool(response != nil)),
            ("size", .number(Double(response?.bodySize ?? 0))),
            ("problems", .number(Double(request.problems.count))),
            ("frames", .number(Double(request.webSocketFrames.count))),
            ("webhooks", .number(Double(request.webhooks.count))),
        ])
    }

    /// The exchange as JSON, for the page's detail of one exchange.
    /// - Parameters:
    ///   - shown: The request with its response (if it has ended), already redacted.
    ///   - registry: The registry, for an unmatched request's nearest stubs.
    ///   - original: The request before redaction, for the diagnosis (which redacts its own
    ///     output with `redaction`).
    ///   - redaction: The journal's redaction.
    static func json(_ shown: RecordedRequest, original: RecordedRequest, registry: MockRegistry, redaction: Redaction) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("sequence", .number(Double(shown.sequence))),
            ("time", .string(Timestamp.string(from: shown.date))),
            ("method", .string(shown.method)),
            ("url", .string(shown.url)),
            ("host", .string(shown.host)),
            ("path", .string(shown.path)),
            ("httpVersion", shown.httpVersion.map(JSONValue.string) ?? .null),
            ("matched", .bool(shown.wasMatched)),
        ]
        members.append(("stub", shown.stub.map(JSONValue.string) ?? .null))
        members.append(("source", mapping(of: original, registry: registry).map { .string(redaction.text($0)) } ?? .null))
        members.append(("operation", shown.operationID.map(JSONValue.string) ?? .null))
        members.append(("problems", .array(shown.problems.map { .string(redaction.text($0)) })))
        members.append(("request", .members([
            ("headers", fields(shown.headers.lazy.map { ($0.name, $0.value) })),
            ("body", body(shown.body ?? Data(), size: shown.bodySize, contentType: shown.header("Content-Type"))),
        ])))
        if let response = shown.response {
            var answer: [(String, JSONValue)] = [
                ("status", response.status.map { .number(Double($0)) } ?? .null),
                ("error", response.error.map(JSONValue.string) ?? .null),
                ("durationMs", .number((response.duration * 1000).rounded())),
                ("headers", fields(response.headerFields.lazy.map { ($0.name.rawName, $0.value) })),
                ("body", body(response.body, size: response.bodySize, contentType: response.headerFields[.contentType], isEncoded: response.bodyIsEncoded)),
            ]
            if let stream = response.stream {
                var elapsed = 0.0
                answer.append(("parts", .array(stream.parts.map { part in
                    elapsed += part.delay
                    return .members([("atMs", .number((elapsed * 1000).rounded())), ("body", body(part.bytes, size: part.bytes.count, contentType: nil))])
                })))
            }
            members.append(("response", .members(answer)))
        } else {
            members.append(("response", .null))
        }
        if !shown.webSocketFrames.isEmpty {
            let opened = shown.date
            members.append(("frames", .array(shown.webSocketFrames.map { frame in
                var item: [(String, JSONValue)] = [
                    ("direction", .string(frame.direction == .fromClient ? "from client" : "to client")),
                    ("atMs", .number((frame.date.timeIntervalSince(opened) * 1000).rounded())),
                ]
                switch frame.content {
                case .message(let message): item.append(("body", body(message.bytes, size: message.bytes.count, contentType: message.text == nil ? "application/octet-stream" : "text/plain")))
                case .close(let code, let reason): item.append(("close", .members([("code", code.map { .number(Double($0)) } ?? .null), ("reason", .string(reason))])))
                }
                return .members(item)
            })))
        }
        if !shown.webhooks.isEmpty {
            members.append(("webhooks", .array(shown.webhooks.map { webhook in
                .members([
                    ("method", .string(webhook.method)),
                    ("url", .string(redaction.url(webhook.url))),
                    ("outcome", .string(redaction.text(webhook.summary))),
                    ("succeeded", .bool(webhook.succeeded)),
                    ("atMs", .number((webhook.date.timeIntervalSince(shown.date) * 1000).rounded())),
                    ("delayMs", .number((webhook.delay * 1000).rounded())),
                    ("durationMs", .number((webhook.duration * 1000).rounded())),
                ])
            })))
        }
        if !shown.wasMatched, shown.response?.status != nil || shown.response == nil {
            members.append(("diagnosis", diagnosis(original, registry: registry, redaction: redaction)))
        }
        // A stub answers with the response the request got, except the unmatched-request answer
        // (a stub with a placeholder body instead, in every format).
        let answer = shown.response?.headerFields[unmatchedMark] == "true" ? nil : shown.response
        members.append(("copy", .members([
            ("swift", .string(RegistrationSnippet.lines(for: shown, response: answer).joined(separator: "\n"))),
            ("stubFile", .string(String(decoding: StubFile.entry(for: shown, response: answer).prettyText, as: UTF8.self))),
            ("wireMock", .string(answer?.status == nil ? String(decoding: WireMockSnapshot.placeholderMapping(for: shown).prettyText, as: UTF8.self) : wireMockMapping(shown))),
            ("curl", .string(curl(shown))),
        ])))
        return .members(members)
    }

    /// The WireMock mapping that answered `request`, as the page names it: by its `name`, or by
    /// its id when it has none (`nil` when no mapping answered, or it has been removed since).
    static func mapping(of request: RecordedRequest, registry: MockRegistry) -> String? {
        guard let id = request.mappingID, let mapping = registry.wireMockMapping(id: id) else { return nil }
        return mapping.name.map { "WireMock mapping \"\($0)\"" } ?? "WireMock mapping \(id.uuidString.lowercased())"
    }

    /// Header fields as `[{name, value}]`, in order, repeated names kept.
    private static func fields(_ pairs: some Sequence<(String, String)>) -> JSONValue {
        .array(pairs.map { .members([("name", .string($0.0)), ("value", .string($0.1))]) })
    }

    /// A body: its size and content type, and its bytes as text (when UTF-8) or base64, cut at
    /// ``bodyLimit``.
    private static func body(_ data: Data, size: Int, contentType: String?, isEncoded: Bool = false) -> JSONValue {
        var members: [(String, JSONValue)] = [("size", .number(Double(size))), ("contentType", contentType.map(JSONValue.string) ?? .null)]
        let kept = data.prefix(bodyLimit)
        if kept.count < data.count || kept.count < size { members.append(("truncated", .bool(true))) }
        if !isEncoded, let text = String(data: kept, encoding: .utf8) {
            members.append(("text", .string(text)))
        } else {
            members.append(("base64", .string(kept.base64EncodedString())))
            if isEncoded { members.append(("encoded", .bool(true))) }
        }
        return .members(members)
    }

    /// The nearest stubs of an unmatched request, each part's verdict marked as matching or not,
    /// and the whole message as the server's log has it.
    private static func diagnosis(_ request: RecordedRequest, registry: MockRegistry, redaction: Redaction) -> JSONValue {
        let diagnosis = registry.diagnosis(for: request)
        return .members([
            ("nearest", .array(diagnosis.nearest.map { nearMiss in
                .members([
                    ("stub", .string(redaction.text(nearMiss.stub, secrets: diagnosis.secrets))),
                    ("verdicts", .array(nearMiss.verdicts.map { verdict in
                        .members([("text", .string(redaction.text(verdict, secrets: diagnosis.secrets))), ("matches", .bool(verdict.hasSuffix("✓")))])
                    })),
                ])
            })),
            ("message", .string(diagnosis.render(.json))),
        ])
    }

    /// The exchange as a WireMock mapping (WireMock's recorder's shape, the body inline or as
    /// base64).
    private static func wireMockMapping(_ request: RecordedRequest) -> String {
        guard request.response?.status != nil else { return "" }
        let snapshot = WireMockSnapshot(HTTPArchive(entries: [request]), redaction: .none)
        guard let mapping = snapshot.files.first else { return "" }
        guard snapshot.files.count > 1, let body = request.response?.body, case .object(var members)? = try? JSONValue.parse(mapping.contents),
            case .object(var response)? = members["response"]
        else {
            return String(decoding: mapping.contents, as: UTF8.self)
        }
        // One file to copy: the body inline as base64 rather than in __files.
        response["bodyFileName"] = nil
        response["base64Body"] = .string(body.base64EncodedString())
        members["response"] = .object(response)
        return String(decoding: JSONValue.object(members).prettyText, as: UTF8.self)
    }

    /// A `curl` command that sends the request again: method, URL, every header in order, the
    /// body byte for byte (through `base64 -d` when it is not text).
    static func curl(_ request: RecordedRequest) -> String {
        var parts = ["curl", "-X", shellQuoted(request.method), shellQuoted(request.url)]
        for header in request.headers where !["content-length", "host"].contains(header.name.lowercased()) {
            parts += ["-H", shellQuoted("\(header.name): \(header.value)")]
        }
        guard let body = request.body, !body.isEmpty else { return parts.joined(separator: " ") }
        if let text = String(data: body, encoding: .utf8), !text.contains("\0") {
            return (parts + ["--data-binary", shellQuoted(text)]).joined(separator: " ")
        }
        return "printf %s \(shellQuoted(body.base64EncodedString())) | base64 -d | " + (parts + ["--data-binary", "@-"]).joined(separator: " ")
    }

    /// `text` in single quotes for a POSIX shell: a quote inside becomes `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
