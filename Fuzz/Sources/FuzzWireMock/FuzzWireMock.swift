// libFuzzer harness: arbitrary bytes as WireMock mappings, loaded as the admin API loads a
// `POST /__admin/mappings` body (and `airlock serve --wiremock` each mapping file), registered,
// and sent requests.
//
// Never crash, never hang. Every input is either refused with a `StubFileError` whose message
// can be built, or it loads: its mappings are registered (`registerStubs(_:)`), described
// (`unusedStubs`), and each of the first mappings is sent a request made from its own `request`
// object (method, url or urlPath with its query parameters, a host, headers and a body taken
// from its patterns), so that request patterns — regular expressions, JSONPath, JSON equality,
// templates in the response — are evaluated and responses rendered.
//
// Requests go through `@_spi(Fuzzing) MockRegistry.respond(method:target:host:headers:body:)`,
// which plans the response without a transport or any waiting.
import FuzzSupport
import HTTPMock

@_spi(Fuzzing) @_spi(AirlockTransport) import AirlockCore
import Foundation

/// A WireMock root of the repository's corpus, so that `bodyFileName`s such as the seeds' resolve
/// in its `__files/`.
private let rootDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Sources/FuzzWireMock
    .deletingLastPathComponent()  // Sources
    .deletingLastPathComponent()  // Fuzz
    .deletingLastPathComponent()  // the repository
    .appendingPathComponent("Tests/Fixtures/WireMockCorpus/wiremock-tests", isDirectory: true)

/// One mock for the whole run, cleared before each input; replaced now and then because its
/// list of rejected stubs only grows.
nonisolated(unsafe) private var mock = HTTPMock()
nonisolated(unsafe) private var inputs = 0

/// A body for mappings that give none to match: JSON, for JSONPath and JSON patterns.
private let defaultBody = Data(#"{"user":{"name":"Alice","id":42},"items":[1,"two",{"odd key":null}],"flag":true}"#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireMock(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let mappings: WireMockMappings
    do {
        mappings = try WireMockMappings(data: data, source: "request body", rootDirectory: rootDirectory)
    } catch {
        // Refused: the message must still be buildable (it names the field's JSON path).
        _ = error.description
        return 0
    }
    inputs += 1
    if inputs % 2_000 == 0 { mock = HTTPMock() }
    mock.clearQueues()
    let rejected = silencingStandardError { mock.registerStubs(mappings) }
    for error in rejected { _ = error.description }
    _ = mock.unusedStubs

    for request in requests(in: data).prefix(6) {
        _ = mock.registry.respond(method: request.method, target: request.target, host: request.host, headers: request.headers, body: request.body)
    }
    mock.clearRequests()
    return 0
}

/// A request a mapping's `request` object describes, as nearly as a few lookups can make one.
private struct Request {
    var method = "GET"
    var target = "/"
    var host = "fuzz.example"
    var headers: [String: String] = ["Content-Type": "application/json", "Accept": "application/json"]
    var body: Data? = defaultBody
}

/// A request for each mapping of the document (one mapping, or `{"mappings": [...]}`), read with
/// Foundation's JSON parser: the harness's own reading, independent of the loader's.
private func requests(in data: Data) -> [Request] {
    guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
    let mappings = (document["mappings"] as? [Any])?.compactMap { $0 as? [String: Any] } ?? [document]
    return mappings.prefix(6).map { mapping in
        var request = Request()
        guard let pattern = mapping["request"] as? [String: Any] else { return request }
        if let method = pattern["method"] as? String, method != "ANY", !method.isEmpty {
            request.method = method
        }
        if let url = pattern["url"] as? String {
            request.target = url
        } else if let path = (pattern["urlPath"] ?? pattern["urlPathTemplate"]) as? String {
            // `{id}` in a template becomes a value.
            request.target = path.replacingOccurrences(of: #"\{[^}/]*\}"#, with: "1", options: .regularExpression)
            request.target += query(pattern["queryParameters"])
        } else if pattern["urlPattern"] != nil || pattern["urlPathPattern"] != nil {
            request.target = "/fuzz/1" + query(pattern["queryParameters"])
        }
        if !request.target.hasPrefix("/") { request.target = "/" + request.target }
        if let host = value(of: pattern["host"]) { request.host = host }
        if let headers = pattern["headers"] as? [String: Any] {
            for (name, rule) in headers.prefix(8) {
                if let value = value(of: rule) { request.headers[name] = value }
            }
        }
        if let bodies = pattern["bodyPatterns"] as? [Any], let first = bodies.first as? [String: Any] {
            if let json = first["equalToJson"] {
                request.body = json as? String != nil
                    ? Data((json as! String).utf8)
                    : (try? JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])) ?? defaultBody
            } else if let text = (first["equalTo"] ?? first["contains"]) as? String {
                request.body = Data(text.utf8)
            }
        }
        return request
    }
}

/// The value a simple value pattern (`{"equalTo": "x"}`, `{"contains": "x"}`) asks for.
private func value(of rule: Any?) -> String? {
    guard let rule = rule as? [String: Any] else { return nil }
    return (rule["equalTo"] ?? rule["contains"] ?? rule["matches"]) as? String
}

/// `?name=value&…` from `queryParameters` with `equalTo` values, or nothing.
private func query(_ parameters: Any?) -> String {
    guard let parameters = parameters as? [String: Any], !parameters.isEmpty else { return "" }
    let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))
    func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
    let items = parameters.sorted { $0.key < $1.key }.prefix(8).map { name, rule in
        "\(encoded(name))=\(encoded(value(of: rule) ?? "x"))"
    }
    return "?" + items.joined(separator: "&")
}
