import Foundation
import ProcessSupport
import Testing

/// `Tests/Tools/protobuf_tools.py` run as a child process: Google's protobuf for Python, which
/// the script installs from PyPI into `.build/protobuf-tools` on its first run.
struct ProtobufToolsRun {
    let lines: [String]
    let status: Int32?
    let result: [String: Any]

    var ok: Bool { status == 0 && (result["ok"] as? Bool ?? false) }
    var problems: [String] { result["problems"] as? [String] ?? ["protobuf_tools.py printed no result line"] }

    static let script = Repository.root.appendingPathComponent("Tests/Tools/protobuf_tools.py")

    /// Runs `python3 protobuf_tools.py <arguments>`; a run that outlives `limit` (a hang guard,
    /// not a performance limit: pip's first install included) is stopped.
    static func run(_ arguments: [String], limit: Duration = .seconds(1500)) async throws -> ProtobufToolsRun {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("protobuf-tools-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        process.standardInput = nil
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await process.exitStatus() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            if first == nil { process.stop() }
            group.cancelAll()
            return first
        }
        let lines = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        let resultLine = lines.last { $0.hasPrefix("{") }
        let result = resultLine.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] } ?? [:]
        return ProtobufToolsRun(lines: lines, status: status, result: result)
    }

    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            ok,
            """
            protobuf_tools.py exited with \(status.map { "\($0)" } ?? "nothing (stopped by the hang guard)"):
            \(problems.joined(separator: "\n"))
            --- its last lines ---
            \(lines.suffix(40).joined(separator: "\n"))
            """,
            sourceLocation: sourceLocation
        )
    }
}
