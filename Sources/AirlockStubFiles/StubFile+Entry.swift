import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes

extension StubFile {
    /// A stub-file entry that answers exactly `request` — its host, path, method and query — with
    /// `response`: what the traffic page's "copy as stub-file entry" and "add as stub" give.
    /// Without a response (or for one that failed), a placeholder `200` with the body `…`.
    ///
    /// The body goes in `body` as text when it is UTF-8, byte for byte; otherwise (binary, or
    /// kept in its `Content-Encoding`, which the entry keeps) as one base64 part (`parts`). A stub file's `headers` is an object, so a name the response
    /// repeats gets its values joined with `, `, as `HTTPURLResponse` shows them.
    /// - Parameters:
    ///   - request: The request, already through the output's redaction.
    ///   - response: The response to answer with (the one the request got, redacted too).
    package static func entry(for request: RecordedRequest, response: RecordedResponse?) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("host", .string(request.host)),
            ("path", .string(request.path)),
            ("method", .string(request.method)),
        ]
        let query = QueryConstraint.lists(request.queryItems.lazy.map { (name: $0.name, value: $0.value) }, sorted: false)
        if !query.isEmpty {
            members.append(("query", .members(query.keys.sorted().map { name in
                let values = query[name, default: []]
                return (name, values.count == 1 ? .string(values[0]) : .array(values.map(JSONValue.string)))
            })))
        }
        members.append(("responses", .array([Self.response(response)])))
        return .members(members)
    }

    /// A response of a stub-file entry: the status, the fields (framing left out) and the body.
    private static func response(_ recorded: RecordedResponse?) -> JSONValue {
        guard let recorded, let status = recorded.status else {
            return .members([("status", .number(200)), ("body", .string("…"))])
        }
        var members: [(String, JSONValue)] = [("status", .number(Double(status)))]
        let headers = recorded.headerFields.joinedForAStub
        if !headers.isEmpty {
            members.append(("headers", .members(headers.map { ($0.name, .string($0.value)) })))
        }
        let body = recorded.body
        if !body.isEmpty {
            if !recorded.bodyIsEncoded, let text = String(data: body, encoding: .utf8) {
                members.append(("body", .string(text)))
            } else {
                members.append(("parts", .array([.members([("base64", .string(body.base64EncodedString()))])])))
            }
        }
        return .members(members)
    }
}
