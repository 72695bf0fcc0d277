import AirlockBase
import Foundation
@_spi(AirlockTransport) import AirlockCore
import NIOHTTP1

/// The admin API's WebSocket endpoints, after ``AdminAPI``'s checks (loopback `Host`, `Origin`,
/// JSON writes, token):
///
/// | request | does |
/// | --- | --- |
/// | `GET /__admin/websockets` | the open WebSockets: each opening request's sequence, URL and frames |
/// | `POST /__admin/websockets/send` | pushes a message to the open WebSockets whose opening request matches |
///
/// A push's body: `{"text": "news"}` or `{"binary": "<base64>"}`, with `"path"` (a path pattern,
/// `/chat/*`) and `"host"` (a host pattern) to choose the connections; without them, every one.
struct WebSocketAdminAPI {
    static let endpoints = ["GET /__admin/websockets", "POST /__admin/websockets/send"]

    let context: ServerContext

    /// The answer to `method path`, or `nil` when it is not a WebSocket endpoint.
    func handle(_ method: HTTPMethod, path: String, body: Data?) -> AdminAPI.Answer? {
        switch (method, path) {
        case (.GET, "/__admin/websockets"):
            let redaction = context.registry.journal.redaction
            let kept = Dictionary(context.registry.journal.all.map { ($0.sequence, $0) }) { first, _ in first }
            let open = context.webSockets.openRequests.map { opening -> JSONValue in
                let request = redaction.apply(to: kept[opening.sequence] ?? opening)
                var members: [JSONMembers.Element] = [
                    ("sequence", .number(Double(request.sequence))), ("url", .string(request.url)), ("frames", .array(request.webSocketFrames.map(Self.frame))),
                ]
                // Frames past the journal's limit for one conversation: not kept, only counted.
                if request.webSocketFramesDropped > 0 { members.append(("framesDropped", .number(Double(request.webSocketFramesDropped)))) }
                return .object(JSONMembers(members))
            }
            return AdminAPI.json(200, ["webSockets": .array(open)])
        case (.POST, "/__admin/websockets/send"):
            guard let body, case .object(let object)? = try? JSONValue.parse(body) else {
                return AdminAPI.json(400, ["error": .string(Self.usage)])
            }
            func string(_ key: String) -> String? {
                if case .string(let value)? = object[key] { return value }
                return nil
            }
            let message: WebSocketMessage
            if let text = string("text") {
                message = .text(text)
            } else if let base64 = string("binary"), let data = Data(base64Encoded: base64) {
                message = .binary(data)
            } else {
                return AdminAPI.json(400, ["error": .string(Self.usage)])
            }
            var matcher = RequestMatcher.any
            if let path = string("path") { matcher = matcher && .path(path) }
            if let host = string("host") { matcher = matcher && .host(host) }
            let sent = context.webSockets.send(message, toConnectionsMatching: matcher)
            return AdminAPI.json(200, ["sent": .number(Double(sent))])
        default:
            return nil
        }
    }

    static let usage = #"send {"text": "…"} or {"binary": "<base64>"}, with "path" and "host" patterns to choose the WebSockets (default: all)"#

    /// A frame as JSON, in the shape of Chrome's HAR `_webSocketMessages` plus the close's code.
    static func frame(_ frame: RecordedWebSocketFrame) -> JSONValue {
        var shown: JSONMembers = [
            "type": .string(frame.direction == .fromClient ? "send" : "receive"),
            "time": .number(frame.date.timeIntervalSince1970),
        ]
        switch frame.content {
        case .message(.text(let text)):
            shown["opcode"] = .number(1)
            shown["data"] = .string(text)
        case .message(.binary(let data)):
            shown["opcode"] = .number(2)
            shown["data"] = .string(data.base64EncodedString())
        case .close(let code, let reason):
            shown["opcode"] = .number(8)
            shown["data"] = .string(reason)
            if let code { shown["code"] = .number(Double(code)) }
        }
        return .object(shown)
    }
}
