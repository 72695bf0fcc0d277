import AirlockBase
import AirlockCore
import Foundation

extension Webhook {
    /// A webhook's fields, by WireMock's names (`parameters` of a `webhook` action), which stub
    /// files share.
    package enum Parameters {
        /// Every field a webhook may have.
        package static let fields: Set<String> = ["method", "url", "headers", "body", "base64Body", "delay"]
    }

    /// Reads a webhook: `method` (default `POST`), `url` (required), `headers` (an object of names
    /// and values, a value a string or an array of strings), `body` or `base64Body`, and `delay`
    /// as `delay` reads it. Every text is a template of the request that triggered the webhook,
    /// whose values start with `root`; a text without `{{` is sent as written.
    ///
    /// Whether the URL's host may be reached is decided when the webhook is sent (a URL that is a
    /// template has no host until then); a constant URL that is not absolute `http(s)` is refused
    /// here.
    /// - Parameters:
    ///   - node: The webhook's object.
    ///   - root: The templates' name for the triggering request (`originalRequest`, `request`).
    ///   - escaping: How values inserted by templates are written.
    ///   - delay: Reads the `delay` field.
    package init(
        parameters node: JSONNode,
        root: String,
        escaping: ResponseTemplate.Escaping,
        delay: (JSONNode) throws(StubFileError) -> WebhookDelay
    ) throws(StubFileError) {
        let fields = try node.object("a webhook", fields: Parameters.fields)
        func text(_ field: JSONNode) throws(StubFileError) -> Text {
            let value = try field.string()
            guard value.contains("{{") else { return .text(value) }
            let template: ResponseTemplate
            do {
                template = try ResponseTemplate(value, root: root)
            } catch {
                throw field.error(.invalidTemplate, error.problem, expected: error.expected)
            }
            return .template(MockResponse.RequestTemplate { template.render($0, escaping: escaping) })
        }
        var method = Text.text("POST")
        if let field = fields["method"] {
            method = try text(field)
            if case .text(let name) = method, name.isEmpty || name.contains(where: { !($0.isLetter || $0 == "-" || $0 == "_") }) {
                throw field.error(.invalidValue, "is \"\(name)\"", expected: "an HTTP method such as \"POST\" or \"GET\" (or a template of one)")
            }
        }
        let urlField = try fields.required("url")
        let url = try text(urlField)
        if case .text(let address) = url {
            guard let components = URLComponents(string: address), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                components.host?.isEmpty == false
            else {
                throw urlField.error(.invalidValue, "is \"\(address)\"", expected: "an absolute http or https URL such as \"http://127.0.0.1:8081/callback\" (or a template of one)")
            }
        }
        var headers: [Field] = []
        if let field = fields["headers"] {
            for (name, valueNode) in try field.members("an object of header names and values (a string, or an array of strings)") {
                let values: [JSONNode]
                if case .array = valueNode.value {
                    values = try valueNode.array(of: "header values (strings)")
                } else {
                    values = [valueNode]
                }
                for valueNode in values {
                    let value = try text(valueNode)
                    let shown: String
                    switch value {
                    case .text(let constant): shown = constant
                    case .template: shown = ""
                    }
                    if let problem = ResponseLimits.headerProblem(name: name, value: shown) {
                        throw valueNode.error(.invalidHeader, problem, expected: ResponseLimits.headerFix)
                    }
                    headers.append(Field(name: name, value: value))
                }
            }
        }
        var body = Body.empty
        if let field = fields["body"] {
            if fields["base64Body"] != nil {
                throw fields.error(.conflictingFields, at: "base64Body", "is given beside \"body\"", expected: "either \"body\" (text) or \"base64Body\" (bytes)")
            }
            body = .text(try text(field))
        } else if let field = fields["base64Body"] {
            guard let data = Data(base64Encoded: try field.string()) else {
                throw field.error(.invalidValue, "is not valid Base64", expected: "the body's bytes in Base64, such as \"aGVsbG8=\"")
            }
            body = .data(data)
        }
        let wait = try fields["delay"].map(delay) ?? WebhookDelay.immediate
        self.init(method: method, url: url, fields: headers, body: body, delay: wait)
    }
}
