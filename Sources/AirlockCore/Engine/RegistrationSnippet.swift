import AirlockBase
import Foundation
import HTTPTypes

/// A Swift DSL registration written out from a request: what the unmatched-request diagnosis
/// suggests, and what the traffic page's "copy as Swift" gives for any exchange (with the
/// response it got).
package enum RegistrationSnippet {
    /// `mock.registerResponses { Host(…) { Path(…) { response } } }` that answers exactly
    /// `request`: its host, path, query and method.
    /// - Parameters:
    ///   - request: The request to answer (already through the output's redaction).
    ///   - response: The response to answer with: its status, fields and body; `nil` for a
    ///     placeholder (`MockResponse.plaintext("…")`).
    /// - Returns: The block's lines, unindented.
    package static func lines(for request: RecordedRequest, response: RecordedResponse?) -> [String] {
        var path = "Path(\(literal(request.path))"
        let query = QueryConstraint.lists(request.queryItems.lazy.map { (name: $0.name, value: $0.value) }, sorted: false)
        if !query.isEmpty {
            let entries = query.keys.sorted().map { name in
                let values = query[name, default: []]
                let value = values.count == 1 ? literal(values[0]) : "[" + values.map(literal).joined(separator: ", ") + "]"
                return "\(literal(name)): \(value)"
            }
            path += ", query: [\(entries.joined(separator: ", "))]"
        }
        if request.method != "GET" {
            path += ", requiring: .method(\(literal(request.method)))"
        }
        path += ")"
        return [
            "mock.registerResponses {",
            "    Host(\(literal(request.host))) {",
            "        \(path) {",
        ] + responseLines(response).map { "            " + $0 } + [
            "        }",
            "    }",
            "}",
        ]
    }

    /// The `MockResponse` expression for `response`.
    private static func responseLines(_ response: RecordedResponse?) -> [String] {
        guard let response, let status = response.status else { return ["MockResponse.plaintext(\"…\")"] }
        // The DSL's headers are a dictionary: a repeated name's values joined, as HTTPURLResponse shows them.
        let fields = response.headerFields.joinedForAStub
        let headers = fields.isEmpty ? "[:]" : "[" + fields.map { "\(literal($0.name)): \(literal($0.value))" }.joined(separator: ", ") + "]"
        let statusArgument = status == 200 ? "" : ", status: \(status)"
        let body = response.body
        if body.isEmpty {
            return ["MockResponse.empty(status: \(status), headers: \(headers))"]
        }
        let data: String
        if let text = String(data: body, encoding: .utf8), !response.bodyIsEncoded {
            data = "Data(\(literal(text)).utf8)"
        } else {
            data = "Data(base64Encoded: \(literal(body.base64EncodedString())))!"
        }
        return ["MockResponse(data: \(data)\(statusArgument), headers: \(headers))"]
    }

    /// `text` as a Swift string literal on one line: quotes, backslashes and control characters
    /// escaped.
    package static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
