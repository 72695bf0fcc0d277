import Foundation

/// One run of a script of `Tests/Tools` (`python3 Tests/Tools/<name>.py …`) as a child process:
/// its output lines, its exit status, and its closing JSON result line (see Tests/Tools/README.md),
/// for the test targets beyond MockServerTests (whose `ToolScriptRun` reads the output line by
/// line with its `LineReader`; the two are to become one once that reader moves here).
public struct ToolRun: Sendable {
    /// Every line it printed (standard error joined to standard output).
    public let lines: [String]
    /// Its exit status; `nil` when the hang guard stopped it.
    public let status: Int32?
    /// The result line, parsed (`{"tool": …, "ok": …, "problems": […], …}`), as JSON text.
    public let resultText: String?

    /// The result line as a dictionary.
    public var result: [String: Any] {
        resultText.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] } ?? [:]
    }

    /// Whether the script exited 0 and said `"ok": true`.
    public var ok: Bool { status == 0 && (result["ok"] as? Bool ?? false) }

    /// What went wrong, for a failure message: the status, the problems and the last lines.
    public var failureReport: String {
        let problems = result["problems"] as? [String] ?? ["no result line"]
        return """
            exited with \(status.map { "\($0)" } ?? "nothing (stopped by the hang guard)"):
            \(problems.joined(separator: "\n"))
            --- its last lines ---
            \(lines.suffix(40).joined(separator: "\n"))
            """
    }

    /// Runs `python3 Tests/Tools/<script> <arguments>`; a run that outlives `limit` (a hang
    /// guard, not a performance limit: pip's first install included) is stopped.
    public static func run(_ script: String, _ arguments: [String], limit: Duration = .seconds(1500)) async throws -> ToolRun {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.root.appendingPathComponent("Tests/Tools/\(script)").path] + arguments
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
        return ToolRun(lines: lines, status: status, resultText: lines.last { $0.hasPrefix("{") })
    }
}
