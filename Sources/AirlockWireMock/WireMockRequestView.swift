import AirlockBase
import AirlockCassettes
import AirlockCore
import AirlockStubFiles
import Foundation

/// A recorded request seen the way WireMock's matchers see it: the path and query as sent
/// (percent-encoded), the scheme and port, header, query, cookie and form values per name, and
/// the body as text and as parsed JSON — each worked out once, when a rule first asks.
final class WireMockRequestView {
    let request: RecordedRequest
    /// `http` or `https`, lowercased.
    let scheme: String
    /// The port named in the URL, or the scheme's default.
    let port: Int?
    /// The path and query as the client sent them, such as `/users?page=2`.
    let pathAndQuery: String
    /// The path as sent, without the query.
    let rawPath: String

    init(_ request: RecordedRequest) {
        self.request = request
        let parts = Self.split(request.url)
        scheme = parts.scheme
        port = parts.port ?? (parts.scheme == "https" ? 443 : parts.scheme == "http" ? 80 : nil)
        if parts.pathAndQuery.isEmpty {
            // A request made from parts rather than a URL: rebuild what it would have sent.
            let query = request.queryItems.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }.joined(separator: "&")
            rawPath = request.path
            pathAndQuery = query.isEmpty ? request.path : request.path + "?" + query
        } else {
            pathAndQuery = parts.pathAndQuery
            rawPath = String(parts.pathAndQuery.prefix { $0 != "?" })
        }
    }

    /// `scheme://authority/path?query#fragment` → scheme, port, `/path?query`.
    private static func split(_ url: String) -> (scheme: String, port: Int?, pathAndQuery: String) {
        guard let separator = url.range(of: "://") else { return ("", nil, "") }
        let scheme = url[..<separator.lowerBound].lowercased()
        let rest = url[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var port: Int?
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            port = Int(authority[authority.index(after: colon)...])
        }
        return (scheme, port, RequestTarget(url: url).pathAndQuery)
    }

    /// The client's address as WireMock 3 gives it to `clientIp`: the `X-Forwarded-For` header's
    /// value when one is sent and not empty, else the address of the connection the request came
    /// on; `nil` for a request made in-process.
    var clientIP: String? {
        if let forwarded = headerValues("X-Forwarded-For")?.first, !forwarded.isEmpty { return forwarded }
        return request.clientAddress
    }

    /// The values of the header fields with this name (case-insensitive); `nil` when none was sent.
    func headerValues(_ name: String) -> [String]? {
        let lowered = name.lowercased()
        let values = request.headers.filter { $0.name.lowercased() == lowered }.map(\.value)
        return values.isEmpty ? nil : values
    }

    /// The percent-decoded values of a query parameter; a bare `?flag` has the value `""`.
    func queryValues(_ name: String) -> [String]? {
        let values = request.queryItems.filter { $0.name == name }.map { $0.value ?? "" }
        return values.isEmpty ? nil : values
    }

    /// Cookies from every `Cookie` header, by name.
    private(set) lazy var cookies: [String: [String]] = {
        var cookies: [String: [String]] = [:]
        for header in headerValues("Cookie") ?? [] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty else { continue }
                let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                cookies[name, default: []].append(value)
            }
        }
        return cookies
    }()

    /// The fields of an `application/x-www-form-urlencoded` body, by name.
    private(set) lazy var formFields: [String: [String]] = {
        var fields: [String: [String]] = [:]
        for (name, value) in FormFields.pairs(request.bodyText ?? "") where !name.isEmpty {
            fields[name, default: []].append(value)
        }
        return fields
    }()

    /// The body as text, `nil` when there is none (WireMock hands string matchers `null` for an
    /// empty body); bytes that are not UTF-8 are replaced.
    private(set) lazy var bodyText: String? = {
        guard let body = request.body, !body.isEmpty else { return nil }
        return String(decoding: body, as: UTF8.self)
    }()

    /// The parts of a `multipart/…` body WireMock reads (see ``WireMockMultipart``).
    private(set) lazy var multipartParts: [WireMockMultipart.Part] = {
        guard let contentType = headerValues("Content-Type")?.first, let body = request.body else { return [] }
        return WireMockMultipart.parts(of: body, contentType: contentType)
    }()

    private var parsed: [String: JSONValue?] = [:]

    /// JSON text parsed, each distinct text once (the body is read by several patterns).
    func json(_ text: String) -> JSONValue? {
        if let known = parsed[text] { return known }
        let value = try? JSONValue.parse(Data(text.utf8))
        parsed[text] = .some(value)
        return value
    }
}
