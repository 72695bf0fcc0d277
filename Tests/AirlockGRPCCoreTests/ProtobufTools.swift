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

    /// Runs `python3 protobuf_tools.py <arguments>`; a run that outlives `limit` (a hang guard,
    /// not a performance limit: pip's first install included) is stopped.
    static func run(_ arguments: [String], limit: Duration = .seconds(1500)) async throws -> ProtobufToolsRun {
        let run = try await ToolRun.run("protobuf_tools.py", arguments, limit: limit)
        return ProtobufToolsRun(lines: run.lines, status: run.status, result: run.result)
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
