import AirlockBase
import AirlockCore
import Foundation
import HTTPTypes

/// A response's templates, parsed when its document is read: body or JSON, and header values.
package struct TemplatedResponse: Sendable {
    /// Where the body's templates are.
    package enum Source {
        /// No body.
        case none
        /// A text body, and where it is.
        case text(String, JSONNode)
        /// A JSON body whose strings are templates.
        case json(JSONNode)
        /// A body of bytes, sent as they are (WireMock templates text bodies only: a
        /// `base64Body` is not a template).
        case bytes(Data)
    }

    private enum Body: Sendable {
        case none
        case text(ResponseTemplate, escaping: ResponseTemplate.Escaping)
        case json(JSONValue, [String: ResponseTemplate])
        case bytes(Data)
    }

    /// How a format writes what it renders.
    package struct Writing: Sendable {
        /// Whether what a template inserts is HTML-escaped everywhere (Handlebars' rule), rather
        /// than as the body's type asks (JSON string content in a JSON text body, else as is).
        package var escapesInsertedHTML: Bool
        /// Whether a JSON body keeps the document's order and is written compact, rather than
        /// with its keys sorted.
        package var keepsJSONOrder: Bool
        /// Whether a body gets a `Content-Type` for its kind unless a header gives one.
        package var addsContentType: Bool

        package init(escapesInsertedHTML: Bool, keepsJSONOrder: Bool, addsContentType: Bool) {
            self.escapesInsertedHTML = escapesInsertedHTML
            self.keepsJSONOrder = keepsJSONOrder
            self.addsContentType = addsContentType
        }

        /// A stub file's: a `Content-Type` for the body unless a header gives one; JSON with its
        /// keys sorted; inserted values escaped as the body's type asks.
        package static let stubFile = Writing(escapesInsertedHTML: false, keepsJSONOrder: false, addsContentType: true)
    }

    private let body: Body
    private let writing: Writing
    /// In the document's order.
    private let headers: [(name: String, template: ResponseTemplate)]
    private let contentType: String?
    /// The `parameters` root of every template (WireMock's `transformerParameters`).
    private let parameters: JSONValue?

    /// Parses a response's templates; an error names the field the template is in.
    /// - Parameters:
    ///   - body: The body: text or JSON whose strings are templates, or no body.
    ///   - headers: The header fields, each value a template.
    ///   - writing: How the format writes the response.
    ///   - parameters: The `parameters` root of the templates (WireMock's `transformerParameters`).
    package init(body: Source, headers: [(name: String, value: String, node: JSONNode)], writing: Writing = .stubFile, parameters: JSONValue? = nil) throws(StubFileError) {
        self.writing = writing
        self.parameters = parameters
        func parse(_ text: String, at node: JSONNode) throws(StubFileError) -> ResponseTemplate {
            do {
                return try ResponseTemplate(text)
            } catch {
                throw node.error(.invalidTemplate, error.problem, expected: error.expected)
            }
        }
        var parsed: [(name: String, template: ResponseTemplate)] = []
        for header in headers {
            parsed.append((header.name, try parse(header.value, at: header.node)))
        }
        self.headers = parsed
        switch body {
        case .json(let node):
            var templates: [String: ResponseTemplate] = [:]
            for text in Self.strings(in: node.value) where templates[text] == nil {
                templates[text] = try parse(text, at: node)
            }
            self.body = .json(node.value, templates)
            contentType = "application/json"
        case .text(let text, let node):
            // Values inserted into a JSON body are escaped as JSON string content.
            let declaredType = HeaderFields.value(named: "Content-Type", in: Dictionary(headers.map { ($0.name, $0.value) }) { first, _ in first })
            let isJSON = declaredType?.lowercased().contains("json") == true
            self.body = .text(try parse(text, at: node), escaping: isJSON ? .jsonString : .none)
            contentType = "text/plain; charset=utf-8"
        case .none:
            self.body = .none
            contentType = nil
        case .bytes(let data):
            self.body = .bytes(data)
            contentType = nil
        }
    }

    /// The response for a request.
    package func render(_ request: RecordedRequest, status: MockResponse.Status) -> MockResponse {
        let inserted: ResponseTemplate.Escaping = writing.escapesInsertedHTML ? .html : .none
        let rendered = headers.map { (name: $0.name, value: $0.template.render(request, escaping: inserted, parameters: parameters)) }
        let data: Data
        switch body {
        case .none:
            data = Data()
        case .bytes(let bytes):
            data = bytes
        case .text(let template, let escaping):
            data = Data(template.render(request, escaping: writing.escapesInsertedHTML ? .html : escaping, parameters: parameters).utf8)
        case .json(let value, let templates):
            let rendered = Self.rendering(value, templates, request, escaping: inserted, parameters: parameters)
            if writing.keepsJSONOrder {
                // Rendered strings are finite: the numbers are the document's own, already written once.
                data = (try? rendered.compactData()) ?? Data()
            } else {
                data = (try? rendered.sortingKeys().compactData()) ?? Data()
            }
        }
        let contentType = data.isEmpty || !writing.addsContentType ? nil : contentType
        // In the document's order; a value that cannot be sent (a request value with a line
        // break) stays as rendered, for the check that fails the response naming the header.
        guard rendered.allSatisfy({ ResponseLimits.headerProblem(name: $0.name, value: $0.value) == nil }) else {
            return MockResponse(data: data, contentType: contentType, status: status, headers: Dictionary(rendered) { first, _ in first })
        }
        return MockResponse(data: data, contentType: contentType, status: status, headerFields: HTTPFields(pairs: rendered))
    }

    private static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings)
        case .object(let object): object.values.flatMap(strings)
        default: []
        }
    }

    private static func rendering(
        _ value: JSONValue,
        _ templates: [String: ResponseTemplate],
        _ request: RecordedRequest,
        escaping: ResponseTemplate.Escaping,
        parameters: JSONValue?
    ) -> JSONValue {
        switch value {
        case .string(let text): .string(templates[text]?.render(request, escaping: escaping, parameters: parameters) ?? text)
        case .array(let items): .array(items.map { rendering($0, templates, request, escaping: escaping, parameters: parameters) })
        case .object(let object): .object(object.mapValues { rendering($0, templates, request, escaping: escaping, parameters: parameters) })
        default: value
        }
    }
}
