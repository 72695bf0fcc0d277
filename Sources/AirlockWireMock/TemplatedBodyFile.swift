import AirlockBase
import AirlockCore
import AirlockStubFiles
import Foundation
import HTTPTypes

/// A templated mapping's `bodyFileName` whose name is itself a template
/// (`"bodyFileName": "users/{{request.pathSegments.[1]}}.json"`): for each request the name is
/// rendered, the file found inside `__files` (never outside it), read, and its contents rendered
/// as a template too — as WireMock does both.
struct TemplatedBodyFile: Sendable {
    private let name: ResponseTemplate
    private let field: JSONNode
    private let files: ResponseFile.Access
    private let parameters: JSONValue?
    /// How the file's template writes, decided when the mapping is read.
    private let writing: TemplatedResponse.Writing

    /// Reads the name's template.
    init(_ field: JSONNode, files: ResponseFile.Access, parameters: JSONValue?) throws(StubFileError) {
        let text = try field.string()
        do {
            name = try ResponseTemplate(text)
        } catch {
            throw field.error(.invalidTemplate, error.problem, expected: error.expected)
        }
        self.field = field
        self.files = files
        self.parameters = parameters
        writing = .wireMock
    }

    /// The response: each request's file, rendered; a name that leads nowhere answers 500 with
    /// a message naming the mapping's field and the file it looked for.
    func response(
        status: MockResponse.Status,
        reasonPhrase: String?,
        headers: [(name: String, value: String, node: JSONNode)],
        delivery: MockResponse.Delivery,
        dribble: DribblePlan?
    ) -> MockResponse {
        MockResponse.computed(lifetime: .eternal, delivery: delivery) { request in
            let rendered = name.render(request, escaping: .none, parameters: parameters)
            let url: URL
            do {
                url = try field.replacingValue(with: .string(rendered)).responseFile(files)
            } catch {
                return MockResponse(
                    data: Data("Airlock: the templated bodyFileName rendered \"\(rendered)\": \(error)\n".utf8),
                    contentType: "text/plain; charset=utf-8",
                    status: .internalServerError,
                    headers: [:]
                )
            }
            let data = (try? Data(contentsOf: url)) ?? Data()
            var body = TemplatedResponse.Source.none
            if let text = String(data: data, encoding: .utf8) { body = .text(text, field) }
            guard case .text = body, let templates = try? TemplatedResponse(body: body, headers: headers, writing: writing, parameters: parameters) else {
                var fields = HTTPFields()
                for header in headers { if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) } }
                let plain = MockResponse(body: .data(data), status: status, reasonPhrase: reasonPhrase, lifetime: .eternal, delivery: .instant, headerFields: fields)
                return dribble.map(plain.dribbled) ?? plain
            }
            let made = templates.render(request, status: status).with(reasonPhrase: reasonPhrase)
            return dribble.map(made.dribbled) ?? made
        }
    }
}
