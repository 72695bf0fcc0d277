// libFuzzer harness: WireMock's date-time matchers and multipart bodies, the two parsers of
// outside text that WireMock's matchers add — a date-time's expected value and `actualFormat`
// pattern (read when a mapping loads), a request's date-time value and its multipart body (read
// when a request is matched).
//
// The input is lines: an `actualFormat` pattern (empty: none), an expected value, a request's
// value, then the rest, a multipart body whose boundary is the first line (or `b`). Mappings are
// made from them (a date-time matcher on a header, with each of the three comparisons and a
// truncation; the request's value as an expected value too; `multipartPatterns` with `ANY` and
// `ALL`), each loaded on its own as the admin API loads a `POST /__admin/mappings` body: refused
// with a `StubFileError` whose message can be built, or registered and sent the request (the
// header, and the body as `multipart/form-data` and `multipart/mixed`).
//
// The same lines make a webhook (`postServeActions` and `serveEventListeners`): its url, method,
// header and body templates of `originalRequest`, and a delay object of each type with numbers
// from the input, so that the webhook parameter and delay parsers run when loading and the
// webhook is rendered and checked against the policy when the request is planned (nothing is
// sent: no transport carries the plan out).
//
// Never crash, never hang. Requests go through `@_spi(Fuzzing) MockRegistry.respond(…)`.
import FuzzSupport
import HTTPMock

@_spi(Fuzzing) @_spi(AirlockTransport) import AirlockCore
import Foundation

/// One mock for the whole run, cleared before each input; replaced now and then because its
/// list of rejected stubs only grows.
nonisolated(unsafe) private var mock = HTTPMock()
nonisolated(unsafe) private var inputs = 0

private let comparisons = ["before", "after", "equalToDateTime"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireMockMatchers(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let text = String(decoding: data, as: UTF8.self)
    let lines = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    let format = lines[0]
    let expected = lines.count > 1 ? lines[1] : ""
    let actual = lines.count > 2 ? lines[2] : ""
    let body = lines.count > 3 ? Data(lines[3].utf8) : data
    let boundary = format.isEmpty ? "b" : format

    inputs += 1
    if inputs % 2_000 == 0 { mock = HTTPMock() }
    mock.clearQueues()

    var matchers: [[String: Any]] = []
    for (index, comparison) in comparisons.enumerated() {
        var matcher: [String: Any] = [comparison: expected]
        if !format.isEmpty { matcher["actualFormat"] = format }
        if index == 1 { matcher["truncateActual"] = "first day of month" }
        if index == 2 { matcher["truncateExpected"] = "last day of year"; matcher["applyTruncationLast"] = count % 2 == 0 }
        matchers.append(matcher)
    }
    matchers.append(["equalToDateTime": actual, "expectedOffset": count % 7 - 3, "expectedOffsetUnit": "days"])
    var requests: [[String: Any]] = matchers.map { ["urlPath": "/d", "headers": ["X-Date": $0]] }
    for type in ["ANY", "ALL"] {
        requests.append([
            "urlPath": "/m",
            "multipartPatterns": [["matchingType": type, "fileName": actual, "headers": ["Content-Disposition": ["contains": expected]], "bodyPatterns": [["contains": "a"]]]],
        ])
    }
    var documents: [[String: Any]] = requests.map { ["request": $0, "response": ["status": 200]] }
    let number = Double(count % 2_000) - 100
    let delays: [[String: Any]] = [
        ["type": "fixed", "milliseconds": number],
        ["type": "uniform", "lower": number, "upper": Double(expected.count * 10)],
        ["type": "lognormal", "median": number, "sigma": Double(actual.count) / 10, "maxValue": Double(count)],
        ["type": format],
    ]
    for (index, delay) in delays.enumerated() {
        // Built field by field: a literal with two equal keys would trap.
        var headers: [String: Any] = ["X-Hook": "{{originalRequest.headers.\(format)}}"]
        headers[format.isEmpty ? "X-Empty" : format] = [actual, expected]
        let parameters: [String: Any] = [
            "url": expected, "method": actual, "headers": headers,
            "body": "{{jsonPath originalRequest.body '\(format)'}} \(actual)", "delay": delay,
        ]
        let key = index % 2 == 0 ? "postServeActions" : "serveEventListeners"
        documents.append(["request": ["urlPath": "/d"], "response": ["status": 200], key: [["name": "webhook", "parameters": parameters]]])
    }
    for document in documents {
        guard let mapping = try? JSONSerialization.data(withJSONObject: document) else { continue }
        do {
            let mappings = try WireMockMappings(data: mapping, source: "request body", rootDirectory: FileManager.default.temporaryDirectory)
            let rejected = silencingStandardError { mock.registerStubs(mappings) }
            for error in rejected { _ = error.description }
        } catch {
            // Refused: the message must still be buildable (it names the field's JSON path).
            _ = error.description
        }
    }
    _ = mock.unusedStubs
    _ = mock.registry.respond(method: "GET", target: "/d", host: "fuzz.example", headers: ["X-Date": actual], body: nil)
    for type in ["form-data", "mixed"] {
        _ = mock.registry.respond(method: "POST", target: "/m", host: "fuzz.example", headers: ["Content-Type": "multipart/\(type); boundary=\(boundary)"], body: body)
    }
    mock.clearRequests()
    return 0
}
