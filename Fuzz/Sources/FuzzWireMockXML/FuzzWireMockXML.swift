// libFuzzer harness: WireMock's XML matchers and JSON Schema matcher — the XPath expression and
// the expected XML document (read when a mapping loads, by libxml2 through AirlockWireMockXML),
// the request's XML body (read when a request is matched), a JSON Schema given as text, and the
// template helpers `xPath` and `soapXPath` with the same expression over the same body, and
// `formatXml` writing the body again.
//
// The input is lines: an XPath expression, an expected XML document, then the rest, the
// request's body. Mappings are made from them (`matchesXPath` as a string, with
// `xPathNamespaces`, and with `equalToXml` of the expected document as its matcher; `equalToXml`
// with and without placeholders, and under `namespaceAwareness` `STRICT` or `NONE`; `matchesJsonSchema` with the expected line as the schema; a
// response template with `xPath` and one with `#each (soapXPath …)`), each loaded on its own as
// the admin API loads a `POST /__admin/mappings` body: refused with a `StubFileError` whose
// message can be built, or registered and sent the body.
//
// Never crash, never hang: libxml2 reads every document here, and an XPath it rejects must be a
// refusal, never a crash. Requests go through `@_spi(Fuzzing) MockRegistry.respond(…)`.
import AirlockWireMockXML
import FuzzSupport
import HTTPMock

@_spi(Fuzzing) @_spi(AirlockTransport) import AirlockCore
import Foundation

/// One mock for the whole run, cleared before each input; replaced now and then because its
/// list of rejected stubs only grows.
nonisolated(unsafe) private var mock = HTTPMock()
nonisolated(unsafe) private var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireMockXML(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let text = String(decoding: data, as: UTF8.self)
    let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let expression = lines[0]
    let expected = lines.count > 1 ? lines[1] : ""
    let body = lines.count > 2 ? Data(lines[2].utf8) : data

    inputs += 1
    if inputs == 1 { WireMockXML.install() }
    if inputs % 2_000 == 0 { mock = HTTPMock() }
    mock.clearQueues()

    let patterns: [[String: Any]] = [
        ["matchesXPath": expression],
        ["matchesXPath": expression, "xPathNamespaces": ["p": "urn:p", "soap": "http://schemas.xmlsoap.org/soap/envelope/"]],
        ["matchesXPath": ["expression": expression, "equalToXml": expected]],
        ["matchesXPath": ["expression": expression, "contains": "a"]],
        ["equalToXml": expected],
        ["equalToXml": expected, "enablePlaceholders": true, "exemptedComparisons": ["ATTR_VALUE"]],
        ["equalToXml": expected, "namespaceAwareness": count % 2 == 0 ? "STRICT" : "NONE", "ignoreOrderOfSameNode": true],
        ["matchesJsonSchema": expected, "schemaVersion": count % 2 == 0 ? "V4" : "V202012"],
    ]
    // The template helpers, given the expression: refused when the template is read, or rendered.
    let templates = [
        "{{xPath request.body '\(expression)'}}",
        "{{#each (soapXPath request.body '\(expression)')}}{{{this}}}{{/each}}",
        "{{{formatXml request.body format='\(count % 2 == 0 ? "pretty" : "compact")'}}}",
    ]
    let mappings: [[String: Any]] =
        patterns.map { ["request": ["method": "POST", "urlPath": "/x", "bodyPatterns": [$0]], "response": ["status": 200]] }
        + templates.map { ["request": ["method": "POST", "urlPath": "/x"], "response": ["status": 200, "body": $0, "transformers": ["response-template"]]] }
    for mapping in mappings {
        guard let mapping = try? JSONSerialization.data(withJSONObject: mapping) else { continue }
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
    _ = mock.registry.respond(method: "POST", target: "/x", host: "fuzz.example", headers: ["Content-Type": "application/xml"], body: body)
    mock.clearRequests()
    return 0
}
