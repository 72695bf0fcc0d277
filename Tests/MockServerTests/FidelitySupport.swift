import Foundation
import ProcessSupport
import Testing

// What the fidelity and HAR-tool tests share: the Python upstream, the table sent over raw
// sockets, and the port in `airlock`'s banner.

/// Runs the fidelity upstream (`Upstream/fidelity_upstream.py`) for `body` and always stops it.
func withFidelityUpstream(_ body: (Int) async throws -> Void) async throws {
    try await withPythonUpstream("fidelity_upstream.py", body)
}

/// Runs a Python upstream of `Upstream/` (one that prints `port N` when ready) for `body`, and
/// always stops it.
func withPythonUpstream(_ name: String, _ body: (Int) async throws -> Void) async throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Upstream/\(name)")
    let process = TestProcess()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path]
    let output = Pipe()
    process.standardOutput = output
    let exit = try ChildProcess(running: process)
    defer { process.stop() }
    let lines = LineReader(output.fileHandleForReading)
    let ready = try #require(await lines.next(), "the upstream printed nothing")
    let port = try #require(Int(ready.dropFirst("port ".count)), "\(ready)")
    try await body(port)
    process.terminate()
    _ = await exit.status()
}

/// Sends each case on a connection of its own and parses the answer.
func fetchAll(port: Int, request: (FidelityCase) -> [UInt8]) async throws -> [String: WireResponse] {
    var answers: [String: WireResponse] = [:]
    for fidelityCase in FidelityCase.all {
        let bytes = try await rawBytesExchange(port: port, request(fidelityCase))
        let answer = try #require(WireResponse.parse(bytes, method: fidelityCase.method), "\(fidelityCase.name): \(String(decoding: bytes, as: UTF8.self))")
        answers[fidelityCase.name] = answer
    }
    return answers
}

/// The last `:port` of a banner line (`… call http://127.0.0.1:41234 instead`).
func lastPort(in banner: String) throws -> Int {
    let start = try #require(banner.range(of: "://127.0.0.1:", options: .backwards) ?? banner.range(of: "://localhost:", options: .backwards), "\(banner)")
    return try #require(Int(banner[start.upperBound...].prefix { $0.isNumber }), "\(banner)")
}
