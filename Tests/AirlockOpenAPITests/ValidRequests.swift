import AirlockBase
@_spi(AirlockTransport) import AirlockCore
@testable import AirlockOpenAPICore
import Foundation

/// A request an operation accepts, made from its contract: path variables, required query,
/// header and cookie parameters, a body and credentials, each from the schema's example or a
/// value built from it.
enum ValidRequests {
    struct Made {
        var url: String
        var headers: [String: String]
        var body: String?
    }

    static func make(for listed: OpenAPIOperation, in contract: OpenAPIContract) -> Made? {
        guard let operation = contract.index.operation(listed) else { return nil }
        let examples = SchemaExample(document: contract.document, direction: .request)
        func text(_ rule: ParameterRule) -> String {
            let value = rule.schema.map { examples.value(at: $0) } ?? .string("x")
            switch value {
            case .string(let text): return text
            case .array(let items): return items.map { ExchangeCheck.text($0) }.joined(separator: ",")
            default: return ExchangeCheck.text(value)
            }
        }
        var path = operation.path
        var query: [String] = []
        var headers: [String: String] = [:]
        var cookies: [String] = []
        for rule in operation.parameters where rule.required || rule.location == .path {
            let value = text(rule)
            let encoded = value.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics) ?? value
            switch rule.location {
            case .path: path = path.replacingOccurrences(of: "{\(rule.name)}", with: encoded)
            case .query: query.append("\(rule.name)=\(encoded)")
            case .header: headers[rule.name] = value
            case .cookie: cookies.append("\(rule.name)=\(value)")
            }
        }
        if !cookies.isEmpty { headers["Cookie"] = cookies.joined(separator: "; ") }
        for name in operation.security?.first ?? [] {
            switch contract.securitySchemes[name]?.kind {
            case .apiKey(let key, .header)?: headers[key] = "test-key"
            case .apiKey(let key, .query)?: query.append("\(key)=test-key")
            case .apiKey(let key, .cookie)?: headers["Cookie"] = "\(key)=test-key"
            case .http(let scheme)?: headers["Authorization"] = scheme == "basic" ? "Basic dXNlcjpwYXNz" : "\(scheme.capitalized) token"
            case .bearerToken?: headers["Authorization"] = "Bearer token"
            default: break
            }
        }
        var body: String?
        if let rule = operation.body, let media = rule.content.first {
            headers["Content-Type"] = media.mediaType.contains("*") ? "application/json" : media.mediaType
            let value = media.schema.map { examples.value(at: $0) } ?? .object(JSONMembers())
            if media.mediaType == "application/x-www-form-urlencoded", case .object(let members) = value {
                body = members.map { "\($0.key)=\(ExchangeCheck.text($0.value))" }.joined(separator: "&")
            } else {
                body = ExchangeCheck.json(value)
            }
        }
        let base = contract.index.basePaths.first ?? ""
        let url = "https://api.example.test" + base + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        return Made(url: url, headers: headers, body: body)
    }
}
