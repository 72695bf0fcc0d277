import AirlockBase
import AirlockCore
import Foundation

/// A stream read from a stub file: `events` (server-sent events) or `parts` (raw parts, NDJSON
/// lines), each item with its `delay`, and what happens after the last (`ending`).
///
/// ```json
/// {"events": [
///     {"data": {"delta": "Hel"}, "id": "1"},
///     {"data": {"delta": "lo"}, "id": "2", "delay": 0.05},
///     {"comment": "keep-alive", "delay": 15},
///     {"data": "[DONE]"}
/// ], "ending": "close"}
/// ```
///
/// With `"template": true`, the strings of each item (an event's `data`, `id` and `event`, a
/// part's `text` and `json` strings) are templates rendered for each request: an event can echo
/// the `Last-Event-ID` a reconnecting client sends.
package struct StreamParts: Sendable {
    /// One item as read, its strings still templates.
    enum Item: Sendable {
        case event(data: String?, dataIsJSON: Bool, event: String?, id: String?, retry: Int?, comment: String?, delay: Double)
        case part(text: String?, bytes: Data?, textIsJSON: Bool, delay: Double)
    }

    let kind: ResponseStream.Kind
    let items: [Item]
    let ending: ResponseStream.Ending

    /// The fields an event may have.
    static let eventFields: Set<String> = ["data", "event", "id", "retry", "comment", "delay"]
    /// The fields a part may have.
    static let partFields: Set<String> = ["text", "json", "base64", "delay"]

    /// Reads `events` or `parts` and the response's `ending`.
    /// - Parameters:
    ///   - node: The `events` or `parts` field.
    ///   - kind: Which of the two it is.
    ///   - ending: The `ending` field, if given.
    init(_ node: JSONNode, kind: ResponseStream.Kind, ending endingField: JSONNode?) throws(StubFileError) {
        self.kind = kind
        var items: [Item] = []
        for itemNode in try node.array(of: kind == .events ? "events" : "parts") {
            let fields = try itemNode.object(kind == .events ? "an event" : "a part", fields: kind == .events ? Self.eventFields : Self.partFields)
            var delay = 0.0
            if let field = fields["delay"] {
                delay = try field.number()
                if let problem = ResponseLimits.durationProblem(delay, named: "the delay") {
                    throw field.error(.invalidValue, problem, expected: "a number of seconds from 0 to \(Int(ResponseLimits.maximumSeconds)) (one day)")
                }
            }
            switch kind {
            case .events:
                var data: String?
                var dataIsJSON = false
                if let field = fields["data"] {
                    if case .string(let text) = field.value {
                        data = text
                    } else {
                        data = String(decoding: try field.compactJSON(), as: UTF8.self)
                        dataIsJSON = true
                    }
                }
                let event = try fields["event"]?.string()
                let id = try fields["id"]?.string()
                let comment = try fields["comment"]?.string()
                var retry: Int?
                if let field = fields["retry"] {
                    let value = try field.integer()
                    guard value >= 0 else { throw field.error(.invalidValue, "is \(value)", expected: "milliseconds, 0 or more") }
                    retry = value
                }
                if data == nil, event == nil, id == nil, retry == nil, comment == nil {
                    throw itemNode.error(.invalidValue, "has none of data, event, id, retry and comment", expected: "an event with at least one of them")
                }
                let checked = ServerSentEvent(data: data, event: event, id: id, retry: retry, comment: comment, delay: delay)
                if let problem = checked.problem {
                    throw itemNode.error(.invalidValue, problem, expected: "fields without line breaks (data may have several lines)")
                }
                items.append(.event(data: data, dataIsJSON: dataIsJSON, event: event, id: id, retry: retry, comment: comment, delay: delay))
            case .chunks:
                let given = ["text", "json", "base64"].filter { fields[$0] != nil }
                guard given.count == 1 else {
                    throw itemNode.error(.conflictingFields, given.isEmpty ? "has none of text, json and base64" : "has more than one of text, json and base64", expected: "exactly one of them")
                }
                if let field = fields["text"] {
                    items.append(.part(text: try field.string(), bytes: nil, textIsJSON: false, delay: delay))
                } else if let field = fields["json"] {
                    // One NDJSON line: the value, compact, then a line feed.
                    items.append(.part(text: String(decoding: try field.compactJSON(), as: UTF8.self) + "\n", bytes: nil, textIsJSON: true, delay: delay))
                } else if let field = fields["base64"] {
                    guard let bytes = Data(base64Encoded: try field.string()) else {
                        throw field.error(.invalidValue, "is not base64", expected: "the part's bytes in base64")
                    }
                    items.append(.part(text: nil, bytes: bytes, textIsJSON: false, delay: delay))
                }
            }
        }
        self.items = items
        switch try endingField?.string() {
        case nil, "close": ending = .close
        case "keepOpen": ending = .keepOpen
        case let other?: throw endingField!.error(.invalidValue, "is \"\(other)\"", expected: "\"close\" (the default) or \"keepOpen\"")
        }
    }

    /// Every string that is a template when the response is templated, with what to escape
    /// inserted values as.
    var templateTexts: [(text: String, escaping: ResponseTemplate.Escaping)] {
        items.flatMap { item -> [(String, ResponseTemplate.Escaping)] in
            switch item {
            case .event(let data, let dataIsJSON, let event, let id, _, _, _):
                [data.map { ($0, dataIsJSON ? .jsonString : .none) }, event.map { ($0, .none) }, id.map { ($0, .none) }].compactMap { $0 }
            case .part(let text, _, let textIsJSON, _):
                text.map { [($0, textIsJSON ? .jsonString : .none)] } ?? []
            }
        }
    }

    /// The stream, each string given by `render` (as it is, or rendered for a request).
    func stream(_ render: (String, ResponseTemplate.Escaping) -> String = { text, _ in text }) -> ResponseStream {
        let parts = items.map { item -> StreamPart in
            switch item {
            case .event(let data, let dataIsJSON, let event, let id, let retry, let comment, let delay):
                return ServerSentEvent(
                    data: data.map { render($0, dataIsJSON ? .jsonString : .none) },
                    event: event.map { render($0, .none) },
                    id: id.map { render($0, .none) },
                    retry: retry,
                    comment: comment,
                    delay: delay
                ).part
            case .part(let text, let bytes, let textIsJSON, let delay):
                return StreamPart(bytes: bytes ?? Data(render(text ?? "", textIsJSON ? .jsonString : .none).utf8), after: delay)
            }
        }
        return ResponseStream(kind: kind, parts: parts, ending: ending)
    }
}

extension JSONNode {
    /// The value written compact, in the document's order, numbers as written.
    func compactJSON() throws(StubFileError) -> Data {
        do {
            return try value.compactData()
        } catch {
            throw self.error(.invalidValue, "cannot be sent as JSON (\(error))", expected: "a JSON value of finite numbers")
        }
    }
}
