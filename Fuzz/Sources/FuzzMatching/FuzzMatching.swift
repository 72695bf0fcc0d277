// libFuzzer harness: a host and path pattern against a request.
//
// The input is two lines:
//
//     [host-pattern ' '] path-pattern '\n'
//     [request-host ' '] request-target          (a path, optionally with ?query)
//
// The host parts are optional (the default pattern is "**", the default request host
// "fuzz.example"); the request target is everything after the first newline. The pattern is
// registered with one response (a rejected pattern is expected and fine), then the request is
// resolved: matched, or not (404, with the unmatched-request diagnosis). Never crash, never hang.
//
// The request is resolved through `@_spi(Fuzzing) MockRegistry.respond(method:target:host:…)`:
// the target as a server receives it, matched or diagnosed, its response planned, no transport.
import FuzzSupport
import HTTPMock

@_spi(Fuzzing) @_spi(AirlockTransport) import AirlockCore
import Foundation

/// One mock for the whole run, its queues and journal cleared before each input; replaced now
/// and then because its list of rejected stubs only grows.
nonisolated(unsafe) private var mock = HTTPMock()
nonisolated(unsafe) private var inputs = 0

/// `host rest` → (host, rest); a line without a space is all `rest`.
private func split(_ line: Substring, defaultHost: String) -> (host: String, rest: String) {
    guard let space = line.firstIndex(of: " ") else { return (defaultHost, String(line)) }
    return (String(line[..<space]), String(line[line.index(after: space)...]))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMatching(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count), as: UTF8.self)
    let newline = text.firstIndex(of: "\n") ?? text.endIndex
    let pattern = split(text[..<newline], defaultHost: "**")
    let request = split(newline == text.endIndex ? "" : text[text.index(after: newline)...], defaultHost: "fuzz.example")

    inputs += 1
    if inputs % 2_000 == 0 { mock = HTTPMock() }
    mock.clearQueues()
    mock.clearRequests()
    silencingStandardError {
        mock.addResponses(forPath: pattern.rest, host: pattern.host, responses: [.plaintext("matched", lifetime: .eternal)])
    }

    // The target as a server receives it, unchanged: origin form, absolute form or `*`.
    _ = mock.registry.respond(method: "GET", target: request.rest, host: request.host)
    // An unmatched request was diagnosed on the way (the nearest stubs and what differed), which
    // costs most of an input's time: not asked for a second time here.
    return 0
}
