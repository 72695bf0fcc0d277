import AirlockBase
import AirlockCore
import Foundation

/// The `request` root of a template, as WireMock's request model names its parts.
enum RequestModel {
    /// The fields under `request.`.
    static let fields: Set<String> = [
        "url", "path", "pathSegments", "method", "host", "port", "scheme", "baseUrl", "query", "headers", "cookies", "body", "bodyAsBase64",
    ]

    /// The request as a template value. A parameter with several values renders as its first
    /// (`request.query.id`), and its values are `.[0]`, `.[1]`….
    static func value(of request: RecordedRequest) -> TemplateValue {
        let url = request.url
        let components = URLComponents(string: url)
        let scheme = url.lowercased().hasPrefix("https:") ? "https" : "http"
        let port = components?.port ?? (scheme == "https" ? 443 : 80)
        var baseURL = ""
        if let separator = url.range(of: "://") {
            let end = url[separator.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
            baseURL = String(url[..<end])
        }
        let query = url.firstIndex(of: "?").map { String(url[$0...].prefix { $0 != "#" }) } ?? ""
        let segments = request.pathSegments.map(TemplateValue.string)
        func multi(_ values: [String]) -> TemplateValue { .list(values.map(TemplateValue.string), text: values.first ?? "") }
        var queryNames: [String] = []
        for item in request.queryItems where !queryNames.contains(item.name) { queryNames.append(item.name) }
        let queryValues = queryNames.map { name in (key: name, value: multi(request.queryItems.filter { $0.name == name }.map { $0.value ?? "" })) }
        var headerNames: [String] = []
        for header in request.headers where !headerNames.contains(where: { $0.lowercased() == header.name.lowercased() }) { headerNames.append(header.name) }
        let headerValues = headerNames.map { name in
            (key: name, value: multi(request.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)))
        }
        var cookies: [(key: String, value: TemplateValue)] = []
        for header in request.headers where header.name.lowercased() == "cookie" {
            for pair in header.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard let name = parts.first, !name.isEmpty else { continue }
                cookies.append((name, multi([parts.count > 1 ? parts[1] : ""])))
            }
        }
        let members: [(key: String, value: TemplateValue)] = [
            ("url", .string(request.path + query)),
            ("path", .list(segments, text: request.path)),
            ("pathSegments", .list(segments, text: request.path)),
            ("method", .string(request.method)),
            ("host", .string(request.host)),
            ("port", .integer(port)),
            ("scheme", .string(scheme)),
            ("baseUrl", .string(baseURL)),
            ("query", .object(queryValues, text: nil, caseInsensitive: false)),
            ("headers", .object(headerValues, text: nil, caseInsensitive: true)),
            ("cookies", .object(cookies, text: nil, caseInsensitive: false)),
            ("body", .string(request.bodyText ?? "")),
            ("bodyAsBase64", .string(request.body?.base64EncodedString() ?? "")),
        ]
        return .object(members, text: nil, caseInsensitive: false)
    }
}
