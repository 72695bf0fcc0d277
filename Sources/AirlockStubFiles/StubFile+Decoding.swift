import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes

/// The stub-file format: its field names and what each means, decoded straight into
/// ``Registration`` and ``MockResponse`` values.
extension StubFile {
    /// The fields each object may have; any other is an error (`"statusCode": 404` would
    /// otherwise be ignored and serve 200).
    enum Fields {
        static let topLevel: Set<String> = ["stubs"]
        static let stub: Set<String> = ["host", "path", "method", "query", "queryMatching", "responses", "scenarioName", "requiredScenarioState", "newScenarioState"]
        static let response: Set<String> = ["status", "headers", "trailers", "body", "json", "file", "fault", "events", "parts", "ending", "webSocket", "lifetime", "delay", "dribble", "template", "webhooks"]
        static let dribble: Set<String> = ["chunks", "seconds"]
    }

    /// The stubs of `{"stubs": [...]}`, a bare array of stubs, or a single stub object.
    static func stubNodes(in document: JSONNode) throws(StubFileError) -> [JSONNode] {
        if case .array = document.value {
            return try document.array(of: "stubs")
        }
        guard case .object(let members) = document.value else {
            throw document.mismatch(expected: "a JSON object with a \"stubs\" array")
        }
        if members["path"] != nil, members["stubs"] == nil {
            return [document]
        }
        let top = try document.object("the top level", fields: Fields.topLevel)
        return try top.required("stubs").array(of: "stubs")
    }

    /// One stub: where it applies, and its responses.
    static func stub(_ node: JSONNode, files: ResponseFile.Access) throws(StubFileError) -> (Registration, method: String?) {
        let fields = try node.object("a stub", fields: Fields.stub)
        var host = "**"
        if let field = fields["host"] {
            host = try field.string()
            do { _ = try HostPattern(host) } catch {
                throw field.error(.invalidValue, error.problem, expected: inJSON(error.fix))
            }
        }
        let pathField = try fields.required("path")
        let path = try pathField.string()
        do { _ = try PathPattern(path) } catch {
            throw pathField.error(.invalidValue, error.problem, expected: inJSON(error.fix))
        }
        let method = try fields["method"]?.string()
        let query = try fields["query"].map(queryConstraint)
        var queryMatching = QueryMatching.exact
        if let field = fields["queryMatching"] {
            switch try field.string() {
            case "exact": queryMatching = .exact
            case "contains": queryMatching = .contains
            case let other: throw field.error(.invalidValue, "is \"\(other)\"", expected: "\"exact\" or \"contains\"")
            }
        }
        let scenario = try fields.scenarioStep()
        let responsesField = try fields.required("responses")
        var responses: [MockResponse] = []
        for response in try responsesField.array(of: "responses") {
            responses.append(try Self.response(response, files: files))
        }
        if responses.isEmpty {
            throw responsesField.error(.invalidValue, "is empty", expected: "at least one response")
        }
        let registration = Registration(
            host: host,
            path: path,
            query: query,
            queryMatching: queryMatching,
            requirement: method.map { RequestMatcher.method($0) },
            scenario: scenario,
            responses: responses
        )
        return (registration, method)
    }

    /// Required query parameters: a value or a list of values per name.
    private static func queryConstraint(_ node: JSONNode) throws(StubFileError) -> [String: [String]] {
        var query: [String: [String]] = [:]
        for (name, field) in try node.members("an object of parameter names and values") {
            switch field.value {
            case .string(let value):
                query[name] = [value]
            case .array:
                var values: [String] = []
                for item in try field.array(of: "strings") {
                    values.append(try item.string())
                }
                query[name] = values
            default:
                throw field.mismatch(expected: "a string or an array of strings")
            }
        }
        return query
    }

    /// One response, each field checked where it is read.
    static func response(_ node: JSONNode, files: ResponseFile.Access) throws(StubFileError) -> MockResponse {
        let fields = try node.object("a response", fields: Fields.response)
        let given = ["body", "json", "file", "fault", "events", "parts", "webSocket"].filter { fields[$0] != nil }
        if given.count > 1 {
            throw node.error(.conflictingFields, "has more than one of body, json, file, fault, events, parts and webSocket", expected: "at most one of them")
        }
        if let field = fields["ending"], fields["events"] == nil, fields["parts"] == nil {
            throw field.error(.conflictingFields, "is given for a response that is not a stream", expected: "\"ending\" only beside \"events\" or \"parts\"")
        }
        var parts = ResponseParts()
        if let field = fields["status"] { parts.status = try field.status() }
        var headers: [(name: String, value: String, node: JSONNode)] = []
        if let field = fields["headers"] {
            headers = try field.headers()
            parts.headers = HTTPFields(pairs: headers.lazy.map { (name: $0.name, value: $0.value) })
        }
        if let field = fields["lifetime"] { parts.lifetime = try lifetime(field) }
        if let field = fields["delay"] { parts.delivery = try field.delivery(seconds: try field.number()) }
        if let field = fields["dribble"] {
            if fields["events"] != nil || fields["parts"] != nil {
                throw field.error(.conflictingFields, "is given for a stream", expected: "a \"delay\" on each event or part instead")
            }
            let dribble = try field.object("dribble", fields: Fields.dribble)
            let chunks = try dribble.required("chunks").integer()
            let seconds = try dribble.required("seconds").number()
            parts.dribble = try field.dribble(chunks: chunks, seconds: seconds, fields: ("chunks", "seconds"))
        }
        if let field = fields["webSocket"] {
            for other in ["status", "delay", "dribble", "template", "webhooks", "trailers"] where fields[other] != nil {
                throw node.error(.conflictingFields, "has \(other) beside webSocket", expected: "a webSocket response with at most headers and lifetime (its status is 101)")
            }
            return try webSocket(field, lifetime: parts.lifetime, headers: parts.headers)
        }
        var template = TemplatedResponse.Source.none
        if let field = fields["fault"] {
            parts.body = .fault(try fault(field))
        } else if let field = fields["json"] {
            parts.body = .json(try field.jsonBody())
            template = .json(field)
        } else if let field = fields["file"] {
            parts.body = .file(try field.responseFile(files))
        } else if let field = fields["events"] {
            parts.body = .stream(try StreamParts(field, kind: .events, ending: fields["ending"]))
        } else if let field = fields["parts"] {
            parts.body = .stream(try StreamParts(field, kind: .chunks, ending: fields["ending"]))
        } else if let field = fields["body"] {
            let text = try field.string()
            parts.body = .text(text)
            template = .text(text, field)
        }
        if let field = fields["template"], try field.bool() {
            if case .file = parts.body {
                throw field.error(.conflictingFields, "is true for a file response", expected: "a template in body or json (files are sent as they are)")
            }
            parts.templates = try TemplatedResponse(body: template, headers: headers)
            if case .stream(let stream) = parts.body, let streamField = fields["events"] ?? fields["parts"] {
                for (text, _) in stream.templateTexts where parts.streamTemplates[text] == nil {
                    do {
                        parts.streamTemplates[text] = try ResponseTemplate(text)
                    } catch {
                        throw streamField.error(.invalidTemplate, error.problem, expected: error.expected)
                    }
                }
            }
        }
        var response = parts.response
        if let field = fields["trailers"] {
            // Sent after the body (HTTP/2's closing HEADERS, HTTP/1.1's last chunk): gRPC's
            // trailing metadata, say. Checked as headers are.
            response = response.with(trailerFields: HTTPFields(pairs: try field.headers().lazy.map { (name: $0.name, value: $0.value) }))
        }
        guard let field = fields["webhooks"] else { return response }
        return response.with(webhooks: try webhooks(field))
    }

    /// `"webhooks"`: requests sent after the response, each with WireMock's fields (`method`,
    /// `url`, `headers`, `body` or `base64Body`) as templates of the triggering `request`, and a
    /// `delay` in seconds.
    private static func webhooks(_ node: JSONNode) throws(StubFileError) -> [Webhook] {
        var webhooks: [Webhook] = []
        for entry in try node.array(of: "webhooks, each {\"url\": …, \"method\": …, \"headers\": {…}, \"body\": …, \"delay\": seconds}") {
            webhooks.append(try Webhook(parameters: entry, root: "request", escaping: .none) { field throws(StubFileError) in
                let seconds = try field.number()
                _ = try field.delivery(seconds: seconds)
                return .fixed(seconds: seconds)
            })
        }
        return webhooks
    }

    /// `"single"`, `"eternal"` or a count of at least 1.
    private static func lifetime(_ node: JSONNode) throws(StubFileError) -> MockResponse.Lifetime {
        let expected = "\"single\", \"eternal\" or a count of at least 1"
        switch node.value {
        case .string("single"): return .single
        case .string("eternal"): return .eternal
        case .string(let name): throw node.error(.invalidValue, "is \"\(name)\"", expected: expected)
        case .number:
            let count = try node.integer()
            let lifetime: MockResponse.Lifetime = count == 1 ? .single : .multiple(count)
            guard ResponseLimits.lifetimeProblem(lifetime) == nil else { throw node.error(.invalidValue, "is \(count)", expected: expected) }
            return lifetime
        default:
            throw node.mismatch(expected: expected)
        }
    }

    /// A fault by its name: `connectionReset`, …
    private static func fault(_ node: JSONNode) throws(StubFileError) -> MockResponse.Fault {
        let name = try node.string()
        guard let fault = MockResponse.Fault.all.first(where: { $0.description == name }) else {
            throw node.error(.invalidValue, "is \"\(name)\"", expected: MockResponse.Fault.all.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        return fault
    }

    /// A pattern error's fix, worded for stub-file users (fields, not Swift API).
    private static func inJSON(_ fix: String) -> String {
        fix.replacingOccurrences(of: "put the path in forPath:/Path(_:)", with: "put the path in \"path\"")
            .replacingOccurrences(of: "Give query parameters with query:/queryItems: instead of in the path", with: "Give query parameters in \"query\" instead of in the path")
    }
}
