// libFuzzer harness: arbitrary bytes into the stub-file parser, and what parses into a mock.
//
// Never crash, never hang: every input is either rejected with a `StubFileError` or parsed,
// registered and described, and each stub is sent a request made to match it through
// `@_spi(Fuzzing) MockRegistry.respond(method:target:host:headers:body:)`, which plans the
// response (rendering templates) without waiting out delays.
import FuzzSupport
import HTTPMock

@_spi(Fuzzing) @_spi(AirlockTransport) import AirlockCore
@_spi(Fuzzing) import AirlockStubFiles
import Foundation

/// `Examples/` at the repository root, so that the seeds' relative `file` paths
/// (`fixtures/user.json`) resolve as they do for `airlock serve Examples/stubs.json`.
private let baseDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Sources/FuzzStubFile
    .deletingLastPathComponent()  // Sources
    .deletingLastPathComponent()  // Fuzz
    .deletingLastPathComponent()  // the repository
    .appendingPathComponent("Examples", isDirectory: true)

/// One mock for the whole run (a mock per input costs two URLSessions); its queues are cleared
/// before each input. Replaced now and then because its list of rejected stubs only grows.
nonisolated(unsafe) private var mock = HTTPMock()
nonisolated(unsafe) private var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStubFile(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let file: StubFile
    do {
        file = try StubFile(data: data, source: "fuzz-input.json", baseDirectory: baseDirectory)
    } catch {
        // Rejected: the message must still be buildable (it quotes positions and fields).
        _ = error.description
        return 0
    }
    inputs += 1
    if inputs % 2_000 == 0 { mock = HTTPMock() }
    mock.clearQueues()
    let rejected = silencingStandardError { mock.registerStubs(file) }
    for error in rejected { _ = error.description }
    // Describing every stub renders its host, path, query, method and scenario.
    _ = mock.unusedStubs
    for stub in file.routes.prefix(8) {
        _ = mock.registry.respond(
            method: stub.method ?? "GET",
            target: concrete(stub.path, separator: "/") + query(stub.query),
            host: concrete(stub.host, separator: "."),
            headers: ["X-Trace-Id": "trace-1", "Content-Type": "application/json"],
            body: Data(#"{"user":{"name":"Alice"},"items":[1,"two",{"odd key":null}]}"#.utf8)
        )
    }
    mock.clearRequests()
    return 0
}

/// A host or path a pattern matches: `**` becomes two segments, `*` an `x`.
private func concrete(_ pattern: String, separator: Character) -> String {
    pattern.split(separator: separator, omittingEmptySubsequences: false).map { part in
        part == "**" ? "a\(separator)b" : part.replacingOccurrences(of: "*", with: "x")
    }.joined(separator: String(separator))
}

/// `?name=value&…` with each parameter's values, or nothing.
private func query(_ query: [String: [String]]?) -> String {
    guard let query, !query.isEmpty else { return "" }
    let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))
    func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
    let items = query.sorted { $0.key < $1.key }.flatMap { name, values in
        values.map { "\(encoded(name))=\(encoded($0))" }
    }
    return "?" + items.joined(separator: "&")
}
