// libFuzzer harness: arbitrary bytes as a HAR file (a cassette), loaded as a test loads one and
// replayed.
//
// Never crash, never hang. Every input is either refused with the loader's own error (a
// `StubFileError` from `HTTPArchive(data:source:)`, a `CassetteError` from
// `Cassette(contentsOf:)`) whose message can be built, or it loads. What loads
//   - is registered in an `HTTPMock`: as a cassette (`insert`, replay only) for inputs of odd
//     length, with `registerStubs(_:)` for the others;
//   - has each of its first entries' requests sent back through the core (matched, or diagnosed
//     as unmatched, its response planned);
//   - is written again (`data(redaction:)`, as a cassette saves) and that file must load again
//     with as many entries, each with as many WebSocket frames (`_webSocketMessages`, whose
//     conversations the stubs map onto WebSocket scripts).
// Requests go through `@_spi(Fuzzing) MockRegistry.respond(method:target:host:headers:body:)`,
// which plans the response without a transport or any waiting.
import FuzzSupport
import HTTPMock

@_spi(Fuzzing) @_spi(AirlockTransport) import AirlockCore
import Foundation

/// One mock for the whole run, cleared before each input; replaced now and then because its
/// list of rejected stubs only grows.
nonisolated(unsafe) private var mock = HTTPMock()
nonisolated(unsafe) private var inputs = 0

/// Where inputs of odd length are written to be opened as a cassette.
private let cassetteURL = FileManager.default.temporaryDirectory
    .appendingPathComponent("airlock-fuzz-har-\(ProcessInfo.processInfo.processIdentifier).har")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAR(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    inputs += 1
    if inputs % 2_000 == 0 { mock = HTTPMock() }
    mock.clearQueues()
    mock.clearRequests()

    let archive: HTTPArchive
    if count % 2 == 1 {
        // As a test opens a cassette: from its file, replaying only (CI's mode).
        let cassette: Cassette
        do {
            try data.write(to: cassetteURL)
            cassette = try Cassette(contentsOf: cassetteURL, mode: .none, environment: [:])
        } catch let error as CassetteError {
            _ = error.description
            return 0
        } catch {
            fatalError("opening a cassette threw \(type(of: error)), not a CassetteError: \(error)")
        }
        archive = HTTPArchive(entries: cassette.entries)
        let rejected = silencingStandardError { mock.insert(cassette) }
        for error in rejected { _ = error.description }
    } else {
        do {
            archive = try HTTPArchive(data: data, source: "fuzz-input.har")
        } catch {
            // Rejected: the message must still be buildable (it quotes entries and fields).
            _ = error.description
            return 0
        }
        let rejected = silencingStandardError { mock.registerStubs(archive) }
        for error in rejected { _ = error.description }
    }
    _ = archive.skipped.map(\.count)
    _ = mock.unusedStubs

    for entry in archive.entries.prefix(8) {
        // Each entry's own request, as a proxy receives it (absolute form): matched against the
        // archive's stubs (method, query, body by meaning) or diagnosed as unmatched.
        let headers = Dictionary(entry.headers.map { ($0.name, $0.value) }) { first, _ in first }
        _ = mock.registry.respond(method: entry.method, target: entry.url, host: entry.host, headers: headers, body: entry.body)
    }

    // Written again as a cassette saves it, it loads again with as many entries.
    let saved = archive.data(redaction: .standard)
    do {
        let again = try HTTPArchive(data: saved, source: "fuzz-input.har, saved")
        guard again.entries.count == archive.entries.count else {
            fatalError("a saved archive of \(archive.entries.count) entries loads with \(again.entries.count):\n\(String(decoding: saved.prefix(4_000), as: UTF8.self))")
        }
        // A WebSocket's frames (`_webSocketMessages`) come back, as many as were written.
        guard again.entries.map(\.webSocketFrames.count) == archive.entries.map(\.webSocketFrames.count) else {
            fatalError("a saved archive's WebSocket frames load differently:\n\(String(decoding: saved.prefix(4_000), as: UTF8.self))")
        }
    } catch {
        fatalError("a saved archive does not load again: \(error)\n\(String(decoding: saved.prefix(4_000), as: UTF8.self))")
    }
    return 0
}
