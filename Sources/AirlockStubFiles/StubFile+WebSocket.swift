import AirlockCore
import Foundation
import HTTPTypes

/// A stub file's WebSocket response: `{"webSocket": {"script": [...]}}`, each step one object.
///
/// ```json
/// { "webSocket": { "script": [
///     { "send": "welcome" },
///     { "expect": "hello*" },
///     { "send": "hi" },
///     { "echo": 2 },
///     { "close": 4000, "reason": "bye" }
/// ] } }
/// ```
///
/// Steps: `{"send": "text"}`, `{"sendBinary": "<base64>"}`, `{"expect": "pattern"}` (a text
/// message; `*` stands for any run of characters), `{"echo": n}` or `{"echo": "untilClosed"}`,
/// `{"wait": seconds}`, `{"close": code}` with an optional `"reason"`.
extension StubFile {
    static let webSocketFields: Set<String> = ["script"]
    static let webSocketStepFields: Set<String> = ["send", "sendBinary", "expect", "echo", "wait", "close", "reason"]

    /// The WebSocket response of `node`, with the response's `lifetime` and `headers`.
    static func webSocket(_ node: JSONNode, lifetime: MockResponse.Lifetime, headers: HTTPFields) throws(StubFileError) -> MockResponse {
        let object = try node.object("webSocket", fields: webSocketFields)
        var steps: [WebSocketScript.Step] = []
        for item in try object.required("script").array(of: "WebSocket steps") {
            steps.append(try webSocketStep(item))
        }
        let fields = Dictionary(headers.map { ($0.name.rawName, $0.value) }) { first, second in first + ", " + second }
        return MockResponse.webSocket(WebSocketScript(steps), lifetime: lifetime, headers: fields)
    }

    private static func webSocketStep(_ node: JSONNode) throws(StubFileError) -> WebSocketScript.Step {
        let expected = #"one of {"send": "…"}, {"sendBinary": "<base64>"}, {"expect": "pattern"}, {"echo": n or "untilClosed"}, {"wait": seconds}, {"close": code, "reason": "…"}"#
        let step = try node.object("a WebSocket step", fields: webSocketStepFields)
        let kinds = ["send", "sendBinary", "expect", "echo", "wait", "close"].filter { step[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first, let value = step[kind] else {
            throw node.error(.conflictingFields, kinds.isEmpty ? "names no step" : "names more than one step (\(kinds.joined(separator: ", ")))", expected: expected)
        }
        if step["reason"] != nil, kind != "close" {
            throw node.error(.conflictingFields, "has a reason but is no close step", expected: expected)
        }
        switch kind {
        case "send":
            return .send(.text(try value.string()))
        case "sendBinary":
            guard let data = Data(base64Encoded: try value.string()) else { throw value.error(.invalidValue, "is not base64", expected: "the message's bytes in base64") }
            return .send(.binary(data))
        case "expect":
            return .expect(.text(matching: try value.string()))
        case "echo":
            if case .string("untilClosed") = value.value { return .echoUntilClosed }
            let count = try value.integer()
            guard count >= 0 else { throw value.error(.invalidValue, "is \(count)", expected: "a count of 0 or more, or \"untilClosed\"") }
            return .echo(count: count)
        case "wait":
            let seconds = try value.number()
            guard seconds.isFinite, seconds >= 0, seconds <= ResponseLimits.maximumSeconds else {
                throw value.error(.invalidValue, "is \(seconds)", expected: "the seconds to wait, from 0 to \(Int(ResponseLimits.maximumSeconds))")
            }
            return .wait(seconds)
        default:
            let code = try value.integer()
            guard let code16 = UInt16(exactly: code), WebSocketScript.isSendable(closeCode: code16) else {
                throw value.error(.invalidValue, "is \(code)", expected: "a close code a server may send: 1000-1003, 1007-1014 or 3000-4999")
            }
            let reason = try step["reason"]?.string() ?? ""
            return .close(code: code16, reason: reason)
        }
    }
}
