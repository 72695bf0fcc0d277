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
            let open = context.webSockets.openRequests.map { opening -> [String: Any] in
                let request = redaction.apply(to: kept[opening.sequence] ?? opening)
                return ["sequence": request.sequence, "url": request.url, "frames": request.webSocketFrames.map(Self.frame)]
            }
            return AdminAPI.json(200, ["webSockets": open])
        case (.POST, "/__admin/websockets/send"):
            guard let object = body.flatMap({ try? JSONSerialization.jsonObject(with: $0) }) as? [String: Any] else {
                return AdminAPI.json(400, ["error": Self.usage])
            }
            let message: WebSocketMessage
            if let text = object["text"] as? String {
                message = .text(text)
            } else if let base64 = object["binary"] as? String, let data = Data(base64Encoded: base64) {
                message = .binary(data)
            } else {
                return AdminAPI.json(400, ["error": Self.usage])
            }
            var matcher = RequestMatcher.any
            if let path = object["path"] as? String { matcher = matcher && .path(path) }
            if let host = object["host"] as? String { matcher = matcher && .host(host) }
            let sent = context.webSockets.send(message, toConnectionsMatching: matcher)
            return AdminAPI.json(200, ["sent": sent])
        default:
            return nil
        }
    }

    static let usage = #"send {"text": "…"} or {"binary": "<base64>"}, with "path" and "host" patterns to choose the WebSockets (default: all)"#

    /// A frame as JSON, in the shape of Chrome's HAR `_webSocketMessages` plus the close's code.
    static func frame(_ frame: RecordedWebSocketFrame) -> [String: Any] {
        var shown: [String: Any] = [
            "type": frame.direction == .fromClient ? "send" : "receive",
            "time": frame.date.timeIntervalSince1970,
        ]
        switch frame.content {
        case .message(.text(let text)):
            shown["opcode"] = 1
            shown["data"] = text
        case .message(.binary(let data)):
            shown["opcode"] = 2
            shown["data"] = data.base64EncodedString()
        case .close(let code, let reason):
            shown["opcode"] = 8
            shown["data"] = reason
            if let code { shown["code"] = Int(code) }
        }
        return shown
    }
}
